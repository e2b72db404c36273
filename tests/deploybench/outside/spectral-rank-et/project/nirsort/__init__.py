"""NIR sorting of plastic flakes on a conveyor: spectra in, polymer class out."""
