"""The recorder's classification loop, as the firmware's Python reference runs it.

The recorder writes each detected clip as uint8 dB codes (see chorus.synth); ClipDecoder turns a
clip into the network's input, one clip per call (batch 1). `night_queue()` is what the
deployed cascade is fed during a survey night (aipc.toml run_inputs); `survey_replay()` runs the
labelled survey clips through the same decoder (aipc.toml app_eval_data).
"""
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "survey_clips.npz"


@dataclass(frozen=True)
class ClipDecoder:
    code_max: float = 255.0

    def __call__(self, codes):
        codes = np.asarray(codes, dtype=np.uint8)
        x = codes.astype(np.float32) / np.float32(self.code_max)
        return np.ascontiguousarray(x.reshape(1, 1, *codes.shape))


def _stored_clips():
    with np.load(DATA) as z:
        return z["holdout_codes"], z["holdout_labels"]


def night_queue(n=24):
    decode = ClipDecoder()
    codes, _ = _stored_clips()
    return [(decode(c),) for c in codes[:n]]


def survey_replay():
    decode = ClipDecoder()
    codes, labels = _stored_clips()
    return [(decode(c),) for c in codes], labels


def main():
    import torch

    from chorus.loader import load_cascade
    from chorus.synth import CALL_TYPES

    net = load_cascade()
    with torch.no_grad():
        for i, (clip,) in enumerate(night_queue(8)):
            k = int(net(torch.from_numpy(clip)).argmax(1))
            print(f"clip {i}: {CALL_TYPES[k]}")


if __name__ == "__main__":
    main()
