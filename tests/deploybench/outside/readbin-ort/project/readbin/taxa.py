"""The reference panel of four taxa and a read simulator (fixed seeds, no download).

Each taxon's genome is modelled by its own first-order Markov chain over A, C, G, T (its
dinucleotide profile: GC content, CpG depletion, purine runs, ...). A read is a stretch of that
chain with 1 % sequencing substitutions. Short reads carry less of the profile, so they are
harder to bin."""
from functools import lru_cache

import numpy as np

TAXA = ("Bacteroides", "Escherichia", "Lactobacillus", "Streptococcus")
BASES = np.array(list("ACGT"))
PROFILE_SEED = 3
PROFILE_CONCENTRATION = 0.6


@lru_cache(maxsize=1)
def transition_profiles() -> np.ndarray:
    """(taxa, 4, 4): row s of taxon k is P(next base | base s)."""
    rng = np.random.default_rng(PROFILE_SEED)
    return rng.dirichlet([PROFILE_CONCENTRATION] * 4, size=(len(TAXA), 4))


def simulate_reads(count, length, seed):
    """`count` reads of `length` bases: (list of str, taxon index per read (np.int64))."""
    rng = np.random.default_rng(seed)
    profiles = transition_profiles()
    labels = rng.integers(0, len(TAXA), count)
    cum = np.cumsum(profiles, axis=-1)
    reads = []
    for lab in labels:
        seq = np.empty(length, dtype=np.int64)
        seq[0] = rng.integers(0, 4)
        draws = rng.random(length)
        for j in range(1, length):
            seq[j] = min(int(np.searchsorted(cum[lab, seq[j - 1]], draws[j])), 3)
        noise = rng.random(length) < 0.01
        seq[noise] = rng.integers(0, 4, noise.sum())
        reads.append("".join(BASES[seq]))
    return reads, labels.astype(np.int64)
