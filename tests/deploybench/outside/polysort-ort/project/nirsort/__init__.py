"""nirsort: polymer identification for the NIR flake-sorting line (line-scan InGaAs camera, 256 bands)."""
