"""The on-device listener of the smart-speaker app. The voice-activity detector cuts each
utterance at the end of speech, so an utterance lasts 400, 560 or 720 ms (40, 56 or 72 frames)
depending on how it was spoken; the listener sends one utterance per request,
mels (1, 8, frames) float32, and acts on the keyword.

`captured_utterances()` is what the listener sends the deployed spotter during one recorded
session (aipc.toml names it as run_inputs).

    python listener.py      # eager accuracy of the spotter per utterance length
"""
import json
from dataclasses import dataclass

import numpy as np
import torch

import melfeatures
from spotter import build_spotter

VAD_LENGTHS = (40, 56, 72)   # frames the VAD cuts utterances to


@dataclass
class Utterance:
    mels: np.ndarray      # (8, frames) float32
    keyword: int

    @property
    def frames(self):
        return self.mels.shape[-1]


class Listener:
    def __init__(self, spotter=None):
        self.spotter = spotter

    @staticmethod
    def request(utt):
        """One utterance -> the spotter's request: mels (1, 8, frames) float32."""
        return np.ascontiguousarray(utt.mels[None], dtype=np.float32)

    def hear(self, utt):
        with torch.no_grad():
            logits = self.spotter(torch.from_numpy(self.request(utt)))
        return melfeatures.WORDS[int(logits.argmax(1))]


def recorded_session(per_length=2, seed=500):
    """A recorded session: utterances of every VAD length, in the order they were spoken."""
    session = []
    for i, frames in enumerate(VAD_LENGTHS):
        mels, labels = melfeatures.utterances(per_length, frames, seed=seed + i)
        session += [Utterance(m.numpy(), int(k)) for m, k in zip(mels, labels)]
    return session


def captured_utterances():
    return [(Listener.request(utt),) for utt in recorded_session()]


def main():
    listener = Listener(build_spotter())
    scores = {}
    for frames in VAD_LENGTHS:
        mels, labels = melfeatures.utterances(200, frames, seed=900 + frames)
        heard = [listener.hear(Utterance(m.numpy(), int(k))) for m, k in zip(mels, labels)]
        scores[frames] = float(np.mean([h == melfeatures.WORDS[int(k)] for h, k in zip(heard, labels)]))
        print(f"{frames} frames: accuracy {scores[frames]:.4f} on 200 utterances")
    print(json.dumps({"accuracy_by_frames": scores}))


if __name__ == "__main__":
    main()
