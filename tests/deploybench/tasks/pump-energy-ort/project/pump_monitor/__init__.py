"""Pump condition monitoring from one accelerometer channel."""
