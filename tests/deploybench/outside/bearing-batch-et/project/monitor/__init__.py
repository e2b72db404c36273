"""The on-machine monitor that polls the sensor board and reports the bearing's condition."""
