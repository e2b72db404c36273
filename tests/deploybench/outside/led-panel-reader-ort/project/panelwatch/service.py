"""Line-side service entry points, and the hooks the deployment pipeline (aipc.toml) calls to
see what this service feeds the model."""
import argparse
import json

import numpy as np

from panelwatch.camera import CaptureReplay
from panelwatch.reader import IndicatorReader
from panelwatch.settings import ReaderSettings, ReplaySettings


def replay(settings: ReplaySettings = ReplaySettings(), reader: IndicatorReader = None):
    reader = reader or IndicatorReader()
    source = CaptureReplay(settings)
    readings = [reader.read(f) for f in source.frames()]
    truth = source.ground_truth()
    if truth is not None:
        hits = sum(r.state == reader.settings.states[t] for r, t in zip(readings, truth))
        print(json.dumps({"frames": len(readings), "accuracy": hits / len(readings)}))
    return readings


# --- deployment hooks (aipc.toml [project] run_inputs / app_eval_data) -----------------------

def _service_inputs(max_frames=0):
    reader = IndicatorReader(ReaderSettings())
    source = CaptureReplay(ReplaySettings(max_frames=max_frames))
    return [(reader.prepare(f),) for f in source.frames()], source.ground_truth()


def field_inputs():
    """What the service feeds the model: the first frames of a replayed capture."""
    return _service_inputs(max_frames=8)[0]


def replay_feed_with_truth():
    """Every acceptance frame as the service prepares it, with the recorded LED state."""
    inputs, truth = _service_inputs()
    return inputs, np.asarray(truth)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="replay a capture file through the reader")
    ap.add_argument("--capture", default=str(ReplaySettings().capture_file))
    ap.add_argument("--model", default=str(ReaderSettings().model_path))
    a = ap.parse_args()
    from pathlib import Path
    replay(ReplaySettings(capture_file=Path(a.capture)), IndicatorReader(ReaderSettings(model_path=Path(a.model))))
