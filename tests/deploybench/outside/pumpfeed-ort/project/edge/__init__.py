"""The on-site monitor that runs the deployed PumpNet next to the pump (no torch on the gateway)."""
