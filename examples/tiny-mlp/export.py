"""Export the model to the reference runtime's format: build/model.json.

The runtime executes a list of layers: {"op": "dense", "w": [[...]], "b": [...]} and
{"op": "<activation>"} with activations relu, sigmoid or tanh.
"""
import json
import os

import model


def main():
    params = model.build()
    layers = [
        {"op": "dense", "w": params["w1"], "b": params["b1"]},
        # The first version of this exporter only knew one activation.
        {"op": "relu"},
        {"op": "dense", "w": params["w2"], "b": params["b2"]},
    ]
    os.makedirs("build", exist_ok=True)
    with open("build/model.json", "w") as f:
        json.dump({"format": 1, "inputs": model.INPUTS, "layers": layers}, f)
    print(json.dumps({"layers": len(layers), "path": "build/model.json"}))


if __name__ == "__main__":
    main()
