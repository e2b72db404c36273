"""motorfault: fault classification of servo-motor torque traces."""
