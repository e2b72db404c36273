"""Pavement condition grading from the e-scooter fleet's deck IMU (city road-maintenance feed)."""
