"""Street-level LiDAR segment classification (curb-side asset survey)."""
