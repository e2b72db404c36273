"""The live binner as it runs next to the sequencer: reads arrive as FASTQ records after adapter
and quality trimming, so their length varies from read to read (14 to 40 bases). Each read is
tokenized on its own and sent to the deployed model as one request, (1, 1 + length) int64 token
ids: nothing is padded, nothing is cut.

`run_inputs()` (aipc.toml) returns what the binner feeds the deployed model for a recorded
stretch of the run; `python -m binner.live` prints its accuracy per read length (eager model).
"""
from dataclasses import dataclass

import numpy as np
import torch

from readbin.alphabet import VOCAB
from readbin.taxa import TAXA, simulate_reads

TRIMMED_LENGTHS = (14, 19, 24, 31, 40)


@dataclass
class FastqRecord:
    name: str
    sequence: str
    quality: str = ""


class RequestBuilder:
    def __init__(self, vocab=VOCAB):
        self.vocab = vocab

    def tokens(self, record: FastqRecord) -> np.ndarray:
        return self.vocab.encode(record.sequence)[None, :]     # (1, 1 + len)


def recorded_run(lengths=TRIMMED_LENGTHS, per_length=1, seed=900):
    """Records of a recorded stretch of the run, `per_length` reads of each trimmed length."""
    records, labels = [], []
    for n in lengths:
        reads, labs = simulate_reads(per_length, n, seed=seed + n)
        records += [FastqRecord(f"run1:{n}:{i}", r, "I" * n) for i, r in enumerate(reads)]
        labels += list(labs)
    return records, np.array(labels)


def run_inputs():
    builder = RequestBuilder()
    records, _ = recorded_run()
    return [(builder.tokens(r),) for r in records]


def bin_read(model, record: FastqRecord, builder=RequestBuilder()) -> str:
    with torch.no_grad():
        return TAXA[int(model(torch.from_numpy(builder.tokens(record))).argmax(1))]


if __name__ == "__main__":
    from readbin.store import load_binner

    model = load_binner()
    for n in TRIMMED_LENGTHS:
        records, labels = recorded_run((n,), per_length=200, seed=1900)
        hits = sum(bin_read(model, r) == TAXA[t] for r, t in zip(records, labels))
        print(f"{n:2d}-base reads: binning accuracy {hits / len(labels):.4f} (eager, 200 reads)")
