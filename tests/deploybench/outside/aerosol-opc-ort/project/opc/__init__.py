"""aerosol-opc: which source dominates the air at a low-cost optical particle counter (OPC).

opc.size_dist    synthetic 16-bin particle size distributions of five source regimes
opc.spectrum     count spectra -> the classifier's input (log10 counts, standardised per bin)
opc.stores       the data stores: the 2023 archive, the holdout, the reference-site dumps
opc.source_mlp   SourceMLP, the classifier the counters run
"""
