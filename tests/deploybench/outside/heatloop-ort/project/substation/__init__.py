"""substation: fault detection for district-heating substations (plate heat exchanger + control valve)."""
