"""One place for the sorter's numbers (the line's config file reads into the same dict)."""

CONFIG = {
    "bins": 48,                # spectral bins, 900-1700 nm
    "scans": 5,                # repeated exposures per flake while it crosses the beam
    "polymers": ["PE", "PP", "PET", "PS"],
    "fusion_rank": 3,          # which order statistic of the scans is kept per bin (3 of 5: the median)
    "channels": [12, 24, 32],  # conv widths of the feature extractor
    "hidden": 48,
    "weights": "weights/spectrum_net.pt",
}
