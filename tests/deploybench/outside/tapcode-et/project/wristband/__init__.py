"""Tap-gesture recognition for the wristband: a small banded-attention encoder over the
accelerometer's z axis (see README.md)."""
