"""drivesense: belt-drive regime and wear classification from the drive-end accelerometer."""
