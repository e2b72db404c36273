"""Regenerate data/ride_log.npz and data/street_test.npz (seeded; these are the committed files)."""
import os

import numpy as np

from ridesense.simulate import ride_log, street_test

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    counts, grade, ride = ride_log()
    np.savez_compressed(os.path.join(HERE, "data", "ride_log.npz"), counts=counts, grade=grade, ride=ride)
    print("ride_log", counts.shape, np.bincount(grade))
    counts, grade = street_test()
    np.savez_compressed(os.path.join(HERE, "data", "street_test.npz"), counts=counts, grade=grade)
    print("street_test", counts.shape, np.bincount(grade))


if __name__ == "__main__":
    main()
