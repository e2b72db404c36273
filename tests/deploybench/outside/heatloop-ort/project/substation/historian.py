"""Reader of the data platform's trend exports (one .npz per site-week).

An export holds one array per trend tag, (records, minutes), the tag list and the unit of
each tag as the platform stores it."""
import os
from dataclasses import dataclass

import numpy as np

LOGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "logs")

# trend tag on the platform -> the model's channel
TAGS = {
    "PRI_SUP_T": "primary_supply_c",
    "PRI_RET_T": "primary_return_c",
    "SEC_SUP_T": "secondary_supply_c",
    "SEC_RET_T": "secondary_return_c",
    "PRI_FLOW": "primary_flow_m3h",
    "CV1_POS": "valve_pct",
}


@dataclass
class TrendExport:
    series: dict
    units: dict

    @classmethod
    def load(cls, name):
        with np.load(os.path.join(LOGS, name)) as z:
            tags = [str(t) for t in z["tags"]]
            return cls({t: z[t] for t in tags}, dict(zip(tags, (str(u) for u in z["units"]))))

    def windows(self, channels):
        """(records, len(channels), minutes) in the order of `channels`."""
        by_channel = {TAGS[t]: v for t, v in self.series.items()}
        return np.stack([by_channel[c] for c in channels], axis=1).astype(np.float32)
