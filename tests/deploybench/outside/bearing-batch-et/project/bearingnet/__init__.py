"""Bearing condition monitoring: synthetic accelerometer windows and a small 1-D CNN."""
