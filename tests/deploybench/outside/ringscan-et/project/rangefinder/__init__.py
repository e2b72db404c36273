"""Place recognition from a planar 360-degree rangefinder ring (warehouse AMR, nav stack v3)."""
