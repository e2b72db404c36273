"""Wafer-map failure pattern recognition for the probe-floor sorter."""
