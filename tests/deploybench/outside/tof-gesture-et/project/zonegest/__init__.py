"""Touchless gestures from an 8x8 multizone time-of-flight sensor (lobby kiosk, firmware 2.x)."""
