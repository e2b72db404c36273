"""Room-state classification from a ceiling thermopile array (24x32)."""
ROOM_STATES = ("empty", "upright", "on_floor", "two_people", "appliance_only")
