"""The dock kiosk: takes the slip crops the camera SDK hands over and reads the bay number."""
