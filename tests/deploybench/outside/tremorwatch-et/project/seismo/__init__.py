"""Seismic event classification for an unattended geophone station."""
