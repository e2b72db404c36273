"""NIR polymer identification for the recycling sort line."""
