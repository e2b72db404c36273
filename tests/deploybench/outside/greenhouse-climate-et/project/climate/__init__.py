"""Greenhouse climate-state classifier: the training side (data sets, scaler, network)."""
