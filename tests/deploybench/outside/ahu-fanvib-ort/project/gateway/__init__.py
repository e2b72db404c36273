"""The AHU gateway application: polls the fan's accelerometer, runs the deployed model."""
