"""loomcam: defect classification of woven fabric patches from the loom's line camera."""
