"""Networks of the motion-levels project."""
