"""fieldspec: ground-cover classification for a handheld field spectrometer.

One trigger of the instrument gives one reflectance spectrum (BANDS bands, 420-980 nm).  The
spectrum is unmixed against the lab's endmember library (`library.py`, `unmixing.py`) and the
abundances are classified into a ground-cover class (`cover.py`).
"""
