"""elinspect: electroluminescence (EL) inspection of solar cells at the stringer."""
