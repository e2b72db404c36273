"""spindlewatch: remaining-useful-life estimation for machine-tool spindle bearings.

The on-prem gateway takes one vibration snapshot per spindle per shift, reduces it to band
energies (see `spectra.py`) and asks the hazard network (`survival.py`) in which maintenance
window the bearing is expected to fail.
"""
