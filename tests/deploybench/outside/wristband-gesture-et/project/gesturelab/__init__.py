"""gesturelab: the training side of the wristband gesture recogniser (synthetic IMU recordings,
the feature pipeline, the network)."""
