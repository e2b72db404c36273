"""grading: second-life 18650 cell grading at the sorting station.

Each incoming cell gets a 16-minute constant-current charge step on a station channel; the
channel logs terminal voltage and current every 10 s (96 samples). The grader estimates which
grade the cell's remaining capacity (state of health) falls in, without a full capacity test.
"""
GRADES = ("A", "B", "C", "recycle")       # SoH >= 0.90, 0.80-0.90, 0.70-0.80, < 0.70
SOH_EDGES = (0.90, 0.80, 0.70)
RATED_AH = 2.5
SAMPLE_PERIOD_S = 10.0
SAMPLES = 96
