"""slipcam: reads the handwritten bay number (0-9) off delivery-slip crops from the dock camera."""
