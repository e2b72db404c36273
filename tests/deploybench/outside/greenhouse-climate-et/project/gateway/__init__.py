"""The greenhouse gateway: reads the climate controller's log and runs the deployed classifier."""
