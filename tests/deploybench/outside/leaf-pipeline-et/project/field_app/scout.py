"""A scouting walk: every crop from the camera goes through the capture pipeline to the leaf
classifier, and the app tallies the conditions it saw.

`model_feed()` is what the app hands the deployed classifier during one recorded walk
(aipc.toml names it as run_inputs).

    python -m field_app.scout       # the app's accuracy on a recorded walk, eager model
"""
import json

import torch

from field_app.capture import FieldCamera, Pipeline
from leafnet.model import load_classifier
from leafnet.patches import SPEC

WALK_LENGTH = 6


class Scout:
    def __init__(self, classifier=None):
        self.pipeline = Pipeline()
        self.classifier = classifier

    def batch_for(self, crop):
        return self.pipeline(crop)

    def diagnose(self, crop):
        batch = torch.from_numpy(self.batch_for(crop)).permute(0, 3, 1, 2).float()
        with torch.no_grad():
            return int(self.classifier(batch).argmax(1))


def model_feed():
    scout, camera = Scout(), FieldCamera()
    crops, _ = camera.crops(WALK_LENGTH)
    return [(scout.batch_for(crop),) for crop in crops]


def main(count=500):
    scout = Scout(load_classifier())
    crops, labels = FieldCamera().crops(count)
    seen = [scout.diagnose(c) for c in crops]
    acc = sum(p == t for p, t in zip(seen, labels)) / count
    tally = {name: seen.count(i) for i, name in enumerate(SPEC.conditions)}
    print(f"app accuracy with the eager classifier: {acc:.4f} on {count} crops")
    print(json.dumps({"accuracy": acc, "tally": tally}))


if __name__ == "__main__":
    main()
