"""station: the stringer's EL inspection station (camera frames, archives, the inspection loop)."""
