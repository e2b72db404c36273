"""Where each data set comes from, and in which unit its capture tool writes acceleration."""
from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class Source:
    name: str
    captures: Tuple[str, ...]
    accel_unit: str          # "counts" (wristband ADC, needs lsb_per_g), "g", "mg", "m/s2"
    note: str = ""


FIELD_EVAL = Source(
    "field-eval-2025-03", ("field_2025_03_labelled",), accel_unit="counts",
    note="wristband rev C, labelled by the study nurses",
)

# Calibration windows for the INT8 build: unlabelled wear-time from the field plus motion
# sweeps from the lab's shaker rig (they cover the strong-impact end of the range).
CALIBRATION = (
    Source("field-wear-2025-02", ("field_2025_02_wear",), accel_unit="counts",
           note="wristband rev C, unlabelled wear-time"),
    Source("bench-rig-2025-01", ("bench_rig_sweep_a", "bench_rig_sweep_b"), accel_unit="g",
           note="shaker rig, reference IMU exported by RigLogger"),
)
