"""Harbour-mouth hydrophone: what is making noise near the buoy (ambient, outboard, dolphin, pinger)."""
