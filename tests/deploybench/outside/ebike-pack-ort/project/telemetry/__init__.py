"""Pack telemetry: the BMS's CAN log format and a simulator of 10s e-bike packs on a ride."""
