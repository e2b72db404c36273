"""Fit the scaler on the training windows (artifacts/scaler.json) and train ClimateStateNet on
the standardised windows (artifacts/climate_state.pt). Deterministic; a few seconds."""
import torch
from torch import nn

from climate import windows
from climate.classifier import WEIGHTS, ClimateStateNet

EPOCHS = 60


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    raw, _ = windows.raw_training_windows()
    windows.ClimateScaler.fit(raw).save()
    x, y = windows.training_set()
    (xe,), ye = windows.eval_windows()
    net = ClimateStateNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3, weight_decay=1e-4)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), 32):
            idx = order[i:i + 32]
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
        if epoch % 20 == 19:
            net.eval()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: field-log accuracy {acc:.4f}")
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS} and {windows.SCALER_PATH}")


if __name__ == "__main__":
    main()
