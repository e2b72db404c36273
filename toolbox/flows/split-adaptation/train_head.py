"""split adaptation, tool `train_head`: train the FP32 head for the adaptation classes on the
runtime's cached INT8-backbone features (build/features.npz), on the host CPU: a copy of the
project's head whose last Linear layer gets one output per adaptation class (initialised from
aipc.toml adapt_seed), trained full-batch for adapt_epochs with adapt_optimizer at adapt_lr.
Writes build/head.pt (the state dict, with the backbone hash it was trained for).

Metrics: trained (1/0), train_acc, test_acc, loss, seconds, ms_per_sample, epochs.
"""
import torch

from aipc_toolbox import emit
from aipc_toolbox.emit import note
from aipc_toolbox.project import Project

import splitlib


def body(a):
    p = Project()
    side, cached, split, classes = splitlib.trained_state(p)
    head = split.new_head(classes, p["adapt_seed"])
    head, seconds, loss, train_acc = splitlib.train_head(head, cached["train"], cached["train_labels"], p)
    test_acc = splitlib.head_accuracy(head, cached["test"], cached["test_labels"])
    torch.save({"state_dict": head.state_dict(), "classes": classes, "backbone_sha256": side["int8"]["sha256"]},
               splitlib.HEAD)
    n = len(cached["train_labels"])
    note(f"test accuracy of INT8 backbone + head: {test_acc:.4f} on {len(cached['test_labels'])} held-out samples; "
         f"wrote {splitlib.HEAD}")
    return {"trained": 1, "train_acc": round(train_acc, 4), "test_acc": round(test_acc, 4), "loss": round(loss, 6),
            "seconds": round(seconds, 4), "ms_per_sample": round(seconds / n * 1000, 4), "epochs": p["adapt_epochs"],
            "classes": classes}


if __name__ == "__main__":
    emit.main("train_head", __file__, "adapt", body)
