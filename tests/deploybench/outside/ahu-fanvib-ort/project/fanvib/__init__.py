"""fanvib: fault classification for air-handling-unit fans from a triaxial accelerometer."""
