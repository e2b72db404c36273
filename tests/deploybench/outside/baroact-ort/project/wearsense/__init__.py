"""Wrist-worn activity tracker: IMU + barometer windows -> activity class."""
