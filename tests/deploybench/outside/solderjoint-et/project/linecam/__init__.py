"""The AOI station's software on the line camera's ARM board."""
