"""readbin: bins metagenomic sequencing reads to the taxon they come from, with a tiny
transformer encoder over the read's bases."""
