"""Substation telemetry: the feeds, their scaling, and the disturbance classifier."""
