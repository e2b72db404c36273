"""pumpwatch: on-gateway vibration triage for centrifugal pumps.

A 3-axis MEMS accelerometer (+-4 g, 16-bit, 1024 Hz) on the bearing housing streams 125 ms
windows to the gateway; the classifier names the running condition of the pump.
"""
CONDITIONS = ("normal", "imbalance", "misalignment", "bearing_defect", "cavitation", "stopped")
SAMPLE_RATE_HZ = 1024
WINDOW = 128
AXES = 3
FULL_SCALE_G = 4.0
