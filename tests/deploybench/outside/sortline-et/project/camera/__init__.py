"""The sorting line's camera side: frame capture, line settings, the frame -> model input pipeline."""
