"""kerbscan: classification of LiDAR object clusters seen from a street-side sensor pole."""
