"""Trains meterproto_s on the training crops (fixed seeds, one thread, ~30 s) and writes
checkpoints/meterproto_s.pt. Cross-entropy plus the ProtoPNet cluster term (every crop has a
patch close to one of its own class's prototypes)."""
import torch
from torch import nn

from meterread.digits import test_crops, train_crops
from meterread.registry import checkpoint_path, create_model


def main(epochs=30, batch=64):
    torch.manual_seed(5)
    torch.set_num_threads(1)
    x, y = train_crops()
    model = create_model("meterproto_s")
    head = model.head
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=1e-4)
    steps = epochs * ((len(y) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 5e-3, total_steps=steps)
    g = torch.Generator().manual_seed(5)
    for _ in range(epochs):
        model.train()
        for idx in torch.randperm(len(y), generator=g).split(batch):
            fmap = model.backbone(x[idx])
            dist = head._patch_distances(head._patches(head.add_on(fmap))).amin(dim=1)   # (B, K)
            own = head.class_identity[y[idx]].bool()
            cluster = dist.masked_fill(~own, float("inf")).amin(dim=1).mean()
            loss = nn.functional.cross_entropy(head(fmap), y[idx]) + 0.05 * cluster
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    model.eval()
    (xt,), yt = test_crops()
    with torch.no_grad():
        acc = (model(xt).argmax(1) == yt).float().mean().item()
    print(f"held-out accuracy {acc:.4f}")
    torch.save(model.state_dict(), checkpoint_path("meterproto_s"))


if __name__ == "__main__":
    main()
