"""The nightly tiering job: for every site it takes the day's 24 hourly readings (kWh) from the
head-end system, normalises them and asks the model for the tariff tier.

`model_inputs_for_run()` is what the job hands the deployed model in a small recorded run
(aipc.toml run_inputs).

    python -m billing.tiering      # tier accuracy of the job with the eager model
"""
from dataclasses import dataclass

import numpy as np
import torch

from loadnet import load_checkpoint
from meterdata.normalize import NORMALIZER
from meterdata.profiles import TIERS, daily_profiles


@dataclass
class SiteDay:
    site: str
    kwh: np.ndarray          # (24,) hourly energy

    def model_input(self):
        return NORMALIZER.transform(self.kwh)[None]      # (1, 24) float32


class TieringJob:
    def __init__(self, predict):
        self.predict = predict

    def tier(self, day: SiteDay) -> str:
        logits = self.predict(day.model_input())
        return TIERS[int(np.argmax(logits))]


def recorded_days(count, seed=42):
    kwh, tiers = daily_profiles(count, seed)
    return [SiteDay(f"S{2000 + i}", k) for i, k in enumerate(kwh)], tiers


def model_inputs_for_run(count=10):
    days, _ = recorded_days(count)
    return [(d.model_input(),) for d in days]


if __name__ == "__main__":
    net = load_checkpoint()

    def eager(x):
        with torch.no_grad():
            return net(torch.from_numpy(x)).numpy()[0]

    job = TieringJob(eager)
    days, tiers = recorded_days(600)
    hits = sum(job.tier(d) == TIERS[t] for d, t in zip(days, tiers))
    print(f"job accuracy with the eager model: {hits / len(days):.4f} on {len(days)} site-days")
