from dataclasses import dataclass

CLASSES = ("pole", "facade", "tree", "car", "cable", "pedestrian")


@dataclass(frozen=True)
class DescriptorSettings:
    neighbours: int = 12          # k of the local neighbourhood (the point itself included)
    eps: float = 1e-6


@dataclass(frozen=True)
class SegNetSettings:
    points: int = 128             # points per segment after the app's resampling
    widths: tuple = (64, 96, 160)
    head: int = 128
    dropout: float = 0.2
    num_classes: int = len(CLASSES)
    descriptor: DescriptorSettings = DescriptorSettings()
