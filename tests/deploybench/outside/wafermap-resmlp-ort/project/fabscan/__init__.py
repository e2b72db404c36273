"""FabScan: wafer-map defect pattern classification at the probe station."""
