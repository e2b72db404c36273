"""Trains the cascade encoder (random init from the tiny BERT config, fixed seeds, one thread,
about half a minute) on the training split: both exits are fitted together (quick + final
cross-entropy). Writes artifacts/cascade_encoder.pt and artifacts/feature_stats.json."""
import torch
from torch import nn

from triage import cases
from triage.cascade import CascadeEncoder
from triage.loading import WEIGHTS
from triage.settings import DEFAULT


def main(epochs=40, batch=32):
    torch.manual_seed(DEFAULT.seed)
    torch.set_num_threads(1)
    cases.write_stats()
    x, y = cases.training_cases()
    model = CascadeEncoder(DEFAULT)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=epochs * ((len(y) + batch - 1) // batch))
    g = torch.Generator().manual_seed(DEFAULT.seed)
    for _ in range(epochs):
        model.train()
        for idx in torch.randperm(len(y), generator=g).split(batch):
            quick, final = model.both_exits(x[idx])
            # the quick exit is trained with label smoothing so its probability means something at the gate
            loss = (nn.functional.cross_entropy(quick, y[idx], label_smoothing=0.2)
                    + nn.functional.cross_entropy(final, y[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    model.eval()
    (xh,), yh = cases.holdout()
    with torch.no_grad():
        quick, final = model.both_exits(xh)
        served = torch.stack([model(xh[i:i + 1])[0] for i in range(len(yh))])
        early = (model.policy.top_probability(quick) >= DEFAULT.exit_confidence).float().mean().item()
    for name, logits in (("quick exit", quick), ("final exit", final), ("served (one case per call)", served)):
        print(f"holdout accuracy, {name}: {(logits.argmax(1) == yh).float().mean().item():.4f}")
    print(f"cases answered by the quick exit: {early:.2%}")
    torch.save(model.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
