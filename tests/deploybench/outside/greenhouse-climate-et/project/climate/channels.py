"""The four climate channels, in the order the network reads them (axis 1 of a window)."""
CHANNELS = ("air_temp_c", "rh_pct", "par_umol_m2s", "co2_ppm")
STATES = ("normal", "heating_failure", "vent_stuck_closed", "co2_valve_stuck", "mister_stuck_on")
STEPS = 32          # one window: 32 controller samples, 5 minutes apart (2 h 40 min)
SAMPLE_MINUTES = 5
