"""sorter: the optical sorter's grading loop (one kernel per ejector decision)."""
