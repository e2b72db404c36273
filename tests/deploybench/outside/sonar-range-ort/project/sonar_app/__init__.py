"""The echo-sounder app: pings in from the transducer's ADC, a class out per ping."""
