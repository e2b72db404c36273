"""wristfall: on-watch fall detection from the 6-axis IMU."""
