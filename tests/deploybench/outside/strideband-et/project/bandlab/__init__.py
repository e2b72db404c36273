"""bandlab: activity recognition (idle / typing / writing / walk / run) from a wrist band's
3-axis accelerometer, 2.56 s windows at 25 Hz."""
