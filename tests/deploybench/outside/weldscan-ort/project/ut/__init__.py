"""Ultrasonic weld inspection: B-scans of a butt weld -> flaw class."""
