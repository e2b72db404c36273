"""Deployment-side helpers of the band firmware build (INT8 calibration)."""
