"""hivesense: colony-state classification from the hive monitors' mel-energy frames."""
