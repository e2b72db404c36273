"""Per-line settings of the grading station."""
from dataclasses import dataclass


@dataclass(frozen=True)
class LineSettings:
    crop: int = 32                                   # the model's input side, centre crop
    unit_scale: float = 1.0 / 255.0                  # 8-bit pixel -> [0, 1]
    channel_mean: tuple = (0.47, 0.36, 0.31)         # in model_order
    channel_std: tuple = (0.17, 0.19, 0.16)          # in model_order
    model_order: str = "rgb"                         # channel order GradeNet was trained on

    @classmethod
    def for_line(cls, line="L2"):
        # every line runs the same camera model and belt for now
        return cls()
