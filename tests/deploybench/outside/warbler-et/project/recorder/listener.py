"""The field recorder's listening loop: the microphone driver hands over int16 PCM in DMA
blocks of 512 samples; `CallListener` keeps the last clip's worth of audio and, when asked,
turns it into the model's (1, 1, 16, 32) log-mel input with the same frontend as training.

`recorded_inputs()` is what the recorder feeds the deployed model over a recorded session
(aipc.toml run_inputs); `labelled_inputs()` the same path over the holdout clips, with their
labels (app_eval_data).

    python -m recorder.listener     # accuracy of the recorder's path with the eager model
"""
from collections import deque

import numpy as np
import torch

from birdcalls.audio import CALLS, CLIP
from birdcalls.datasets import field_holdout_pcm
from birdcalls.features import FRONTEND

DMA_BLOCK = 512


class CallListener:
    def __init__(self, clip: int = CLIP):
        self.clip = clip
        self._pcm = deque(maxlen=clip)

    def on_dma_block(self, block: np.ndarray) -> None:
        self._pcm.extend(block.tolist())

    def ready(self) -> bool:
        return len(self._pcm) == self.clip

    def model_input(self) -> np.ndarray:
        pcm = np.asarray(self._pcm, dtype=np.int16)
        return FRONTEND(pcm)[None]

    def identify(self, net) -> str:
        with torch.no_grad():
            return CALLS[int(net(torch.from_numpy(self.model_input())).argmax(1))]


def _listen(clips) -> list:
    feeds = []
    for pcm in clips:
        listener = CallListener()
        for i in range(0, len(pcm), DMA_BLOCK):
            listener.on_dma_block(pcm[i:i + DMA_BLOCK])
        feeds.append((listener.model_input(),))
    return feeds


def recorded_inputs(count: int = 6) -> list:
    pcm, _ = field_holdout_pcm()
    return _listen(pcm[:count])


def labelled_inputs():
    pcm, labels = field_holdout_pcm()
    return _listen(pcm), torch.from_numpy(labels)


if __name__ == "__main__":
    from birdcalls.net import load_callnet

    net = load_callnet()
    feeds, labels = labelled_inputs()
    with torch.no_grad():
        hits = sum(int(net(torch.from_numpy(f[0])).argmax(1)) == int(t) for f, t in zip(feeds, labels))
    print(f"recorder path accuracy with the eager model: {hits / len(labels):.4f} on {len(labels)} clips")
