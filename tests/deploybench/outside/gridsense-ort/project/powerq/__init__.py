"""Power-quality event classification for a three-phase smart meter."""
