"""kernelnet: single-kernel NIR classification for the optical grain sorter."""
