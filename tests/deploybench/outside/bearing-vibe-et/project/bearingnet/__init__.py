"""bearingnet: condition classifier for the two-axis accelerometer on the pump bearing housings.

encoder.py  the network (1-D conv trunk + cosine prototype head) and its loader
synth.py    the synthetic vibration generator used to build the stored data sets
splits.py   the stored data sets as the deployment contract wants them
"""
