"""Wine cultivar classification from raw assay rows."""
