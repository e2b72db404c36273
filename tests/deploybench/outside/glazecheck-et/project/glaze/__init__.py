"""glaze: surface inspection of glazed tiles on the kiln exit conveyor."""
