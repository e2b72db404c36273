"""Wrist-gesture recognition for the wristband's wake gate."""
