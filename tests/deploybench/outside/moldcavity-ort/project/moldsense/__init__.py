"""Cavity-pressure quality check for an injection moulding cell."""
