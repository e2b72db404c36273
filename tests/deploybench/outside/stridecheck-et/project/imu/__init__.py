"""Wrist IMU activity/fall classifier: captures, units, windows, network."""
