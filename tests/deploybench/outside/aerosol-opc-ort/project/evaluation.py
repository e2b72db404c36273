"""The evaluation side of the deployment contract (aipc.toml [project]): the 2024 holdout, as the
counters report it, put through the same input preparation the counters' firmware applies
(opc.spectrum: log10 counts, standardised per bin)."""
import torch

from opc import stores
from opc.spectrum import bin_scaler


def holdout_2024():
    """((spectra,), labels): 600 labelled spectra, model-ready (N, 16) float32."""
    counts, labels = stores.holdout()
    return (torch.from_numpy(bin_scaler().from_counts(counts)),), torch.from_numpy(labels)


def one_spectrum():
    (x,), _ = holdout_2024()
    return (x[:1].clone(),)
