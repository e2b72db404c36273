"""coldroom: fault triage for walk-in cold-room refrigeration units (R134a, scroll compressor).

The unit controller publishes one telemetry snapshot a minute; the on-controller model names
the unit's state from it.
"""
STATES = ("normal", "undercharge", "condenser_fouling", "evaporator_airflow", "valve_wear")
FEATURES = ("suction_kpa", "discharge_kpa", "suction_line_c", "discharge_line_c",
            "liquid_line_c", "ambient_c", "box_air_c", "compressor_a")
