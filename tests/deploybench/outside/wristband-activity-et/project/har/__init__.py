"""Wrist-band activity recognition (3-axis accelerometer, 25 Hz, 2.56 s windows)."""
