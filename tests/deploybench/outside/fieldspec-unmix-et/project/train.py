"""Train the cover classifier's head on unmixed training-field readings; write
weights/cover_head.pt.  The unmixer has no trained parameters (the library is measured).
Deterministic, a few seconds.
  python train.py               # writes the data files first if missing
  python train.py --regen-data  # rebuild data/endmembers.npz and data/holdout.npz, then train
"""
import os
import sys

import numpy as np
import torch
from torch.nn import functional as F

import instrument
from fieldspec.cover import CoverClassifier
from fieldspec.field import simulate
from fieldspec.library import ENDMEMBERS, synthesize_library

TRAIN_SEED, HOLDOUT_SEED, CALIB_SEED = 21, 22, 23
N_TRAIN, N_HOLDOUT, N_CALIB = 3000, 500, 64
STEPS = 400


def write_data():
    os.makedirs(os.path.dirname(instrument.LIBRARY), exist_ok=True)
    lib = synthesize_library()
    np.savez_compressed(instrument.LIBRARY, spectra=lib, names=np.array(ENDMEMBERS))
    ho, cal = simulate(lib, N_HOLDOUT, HOLDOUT_SEED), simulate(lib, N_CALIB, CALIB_SEED)
    np.savez_compressed(instrument.READINGS, reflectance=ho.reflectance, cover=ho.cover,
                        calib_reflectance=cal.reflectance)
    print(f"wrote {instrument.LIBRARY} and {instrument.READINGS}")


def main():
    if "--regen-data" in sys.argv or not os.path.isfile(instrument.READINGS):
        write_data()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    lib = instrument.endmember_library()
    clf = CoverClassifier(lib)
    fields = simulate(lib, N_TRAIN, TRAIN_SEED)
    with torch.no_grad():
        feats = clf.composition(torch.from_numpy(fields.reflectance))
    y = torch.from_numpy(fields.cover)
    (xh,), yh = instrument.holdout()
    opt = torch.optim.Adam(clf.head.parameters(), lr=3e-3)
    for step in range(STEPS):
        loss = F.cross_entropy(clf.head(feats), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 99:
            with torch.no_grad():
                acc = (clf(xh).argmax(1) == yh).float().mean().item()
            print(f"step {step + 1}: loss {loss.item():.4f}, holdout accuracy {acc:.4f}")
    os.makedirs(os.path.dirname(instrument.HEAD_WEIGHTS), exist_ok=True)
    torch.save(clf.head.state_dict(), instrument.HEAD_WEIGHTS)
    print(f"wrote {instrument.HEAD_WEIGHTS}")


if __name__ == "__main__":
    main()
