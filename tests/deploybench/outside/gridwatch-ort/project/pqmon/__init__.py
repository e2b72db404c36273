"""pqmon: power-quality event classification for the feeder monitors (3-phase voltage, 10 cycles)."""
