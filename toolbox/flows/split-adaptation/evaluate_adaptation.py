"""split adaptation, tool `evaluate_adaptation`: the adaptation gate. On adapt_data's held-out
test inputs:

- acc: the deployed split — the runtime's INT8 backbone features (build/features.npz) through the
  head train_head wrote (build/head.pt);
- ref_acc: the reference — the same head, trained the same way (seed, epochs, optimizer) on the
  eager FP32 backbone's features;
- full_ft_acc: fine-tuning the whole FP32 model (backbone and the same new head, 20 epochs of
  mini-batches of 64, a tenth of the head's learning rate) for comparison; reported, not gated;
- acc_drop_points = (ref_acc - acc) * 100, gated against aipc.toml adapt_budget_points
  (within_budget).

Metrics: acc, ref_acc, full_ft_acc, acc_drop_points, budget_points, within_budget.
"""
import copy

import numpy as np
import torch

from aipc_toolbox import emit
from aipc_toolbox.emit import note
from aipc_toolbox.project import Project

import splitlib

FULL_FT_BATCH = 64
FULL_FT_EPOCHS = 20  # mini-batch epochs: each is len(train) / 64 steps, against one for the head


def full_finetune(split, tx, ty, classes, p):
    model = copy.deepcopy(split.model)
    splitlib.set_module(model, split.head_path, split.new_head(classes, p["adapt_seed"]))
    torch.manual_seed(p["adapt_seed"])
    opt = (torch.optim.Adam(model.parameters(), lr=p["adapt_lr"] / 10) if p["adapt_optimizer"] == "adam"
           else torch.optim.SGD(model.parameters(), lr=p["adapt_lr"] / 10, momentum=0.9))
    model.train()
    n = tx[0].shape[0]
    for _ in range(FULL_FT_EPOCHS):
        for idx in torch.randperm(n).split(FULL_FT_BATCH):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(*[t[idx] for t in tx]), ty[idx]).backward()
            opt.step()
    return model.eval()


def body(a):
    p = Project()
    side, cached, split, classes = splitlib.trained_state(p)
    try:
        saved = torch.load(splitlib.HEAD, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise emit.ToolError(f"{splitlib.HEAD} does not exist: call train_head first") from None
    if saved.get("backbone_sha256") != side["int8"]["sha256"]:
        raise emit.ToolError(f"{splitlib.HEAD} was trained for another INT8 backbone: call train_head again")
    head = split.new_head(classes, p["adapt_seed"])
    head.load_state_dict(saved["state_dict"])
    acc = splitlib.head_accuracy(head, cached["test"], cached["test_labels"])

    tx, ty, vx, vy, _ = splitlib.adapt_data(p)
    ref_train = splitlib.eager_features(split.backbone, tx)
    ref_test = splitlib.eager_features(split.backbone, vx)
    ref_head, _, _, _ = splitlib.train_head(split.new_head(classes, p["adapt_seed"]), ref_train, ty, p, log=False)
    ref_acc = splitlib.head_accuracy(ref_head, ref_test, vy)

    full = full_finetune(split, tx, ty, classes, p)
    with torch.no_grad():
        full_acc = float((full(*vx).argmax(1) == vy).float().mean())
    drop = round((ref_acc - acc) * 100, 3)
    budget = p["adapt_budget_points"]
    note(f"test accuracy on {len(vy)} held-out samples of {classes} adaptation classes:")
    note(f"  runtime INT8 backbone + trained head: {acc:.4f}")
    note(f"  eager FP32 backbone + the same head trained the same way: {ref_acc:.4f}")
    note(f"  the whole FP32 model fine-tuned ({FULL_FT_EPOCHS} epochs, batch {FULL_FT_BATCH}): {full_acc:.4f}")
    note(f"  drop against the FP32-feature head: {drop:.2f} points (budget {budget} points, aipc.toml adapt_budget_points)")
    agree = float(np.mean(
        ref_head(torch.from_numpy(ref_test)).argmax(1).numpy() == head(torch.from_numpy(cached["test"])).argmax(1).numpy()))
    return {"acc": round(acc, 4), "ref_acc": round(ref_acc, 4), "full_ft_acc": round(full_acc, 4),
            "acc_drop_points": drop, "budget_points": budget, "within_budget": int(drop <= budget),
            "prediction_agreement": round(agree, 4), "test_samples": int(len(vy)), "classes": classes}


if __name__ == "__main__":
    emit.main("evaluate_adaptation", __file__, "adapt", body)
