"""Produce grading model of the sorting line: what lies under the camera, from a 32x32 RGB crop."""
