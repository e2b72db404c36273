"""Olive-oil authenticity from mid-IR spectra: lab pipeline (data, preprocessing, model)."""
