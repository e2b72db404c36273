"""GaitBand wrist activity recognition (6-axis IMU -> activity)."""
