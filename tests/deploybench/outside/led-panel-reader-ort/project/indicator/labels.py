"""Indicator states the reader reports, and the image normalisation the network was trained with."""
LED_STATES = ("off", "red", "amber", "green", "blue")

CROP_SIZE = 32
# Per-channel statistics of the training crops, in R, G, B order (computed once by train.py on
# the synthetic training set and frozen here; the network expects (pixel/255 - mean) / std).
CHANNEL_MEAN_RGB = (0.212, 0.205, 0.190)
CHANNEL_STD_RGB = (0.127, 0.105, 0.101)
