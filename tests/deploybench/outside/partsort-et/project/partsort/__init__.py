"""Conveyor part sorter: grayscale patch -> part type, by cosine similarity to enrolled prototypes."""
