"""Parcel shape sorting for the induction conveyor: a PointNet-style classifier of the 3-D points
the overhead depth sensor returns for one parcel."""
