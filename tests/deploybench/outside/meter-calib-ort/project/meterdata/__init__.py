"""Smart-meter data for the tariff-tier model: synthetic daily profiles, normalisation, logs."""
