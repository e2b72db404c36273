"""Fermenter headspace e-nose: an 8-element MOX gas sensor array sniffing the tank's headspace."""
