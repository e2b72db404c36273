"""Automated optical inspection of solder joints (the model side)."""
