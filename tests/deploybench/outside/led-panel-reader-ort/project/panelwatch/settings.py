"""Service configuration (normally read from /etc/panelwatch/reader.toml; defaults here)."""
from dataclasses import dataclass, field
from pathlib import Path

from indicator.labels import CHANNEL_MEAN_RGB, CHANNEL_STD_RGB, CROP_SIZE, LED_STATES

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class NormalizerSettings:
    crop_size: int = CROP_SIZE
    mean: tuple = CHANNEL_MEAN_RGB
    std: tuple = CHANNEL_STD_RGB


@dataclass(frozen=True)
class ReaderSettings:
    model_path: Path = PROJECT_ROOT / "build" / "model.onnx"
    intra_op_threads: int = 1
    states: tuple = LED_STATES
    min_confidence: float = 0.5
    normalizer: NormalizerSettings = field(default_factory=NormalizerSettings)


@dataclass(frozen=True)
class ReplaySettings:
    """Replay of stored camera captures (acceptance runs, incident analysis)."""
    capture_file: Path = PROJECT_ROOT / "captures" / "acceptance_line3.npz"
    max_frames: int = 0  # 0: all
