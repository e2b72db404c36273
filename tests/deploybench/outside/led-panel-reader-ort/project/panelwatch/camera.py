"""Frames from the line camera, live or replayed from a capture file."""
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from panelwatch.settings import ReplaySettings


@dataclass(frozen=True)
class CameraFrame:
    pixels: np.ndarray      # (H, W, 3) uint8, packed as pixel_format says
    pixel_format: str       # "BGR8" for linecam-2
    sequence: int
    camera: str


class CaptureReplay:
    """Yields the frames of a stored capture file in recording order."""

    def __init__(self, settings: ReplaySettings = ReplaySettings()):
        self.settings = settings
        with np.load(settings.capture_file) as z:
            self._frames = z["frames"]
            self._format = str(z["pixel_format"])
            self._camera = str(z["camera"])
            self._truth = z["state"].astype(np.int64) if "state" in z.files else None

    def __len__(self):
        n = len(self._frames)
        return min(n, self.settings.max_frames) if self.settings.max_frames else n

    def frames(self) -> Iterator[CameraFrame]:
        for i in range(len(self)):
            yield CameraFrame(self._frames[i], self._format, i, self._camera)

    def ground_truth(self):
        return None if self._truth is None else self._truth[:len(self)]
