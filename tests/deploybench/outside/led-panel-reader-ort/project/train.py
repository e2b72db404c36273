"""Train the ConvNeXt reader on freshly rendered crops (fixed seeds, one thread) and write
checkpoints/led_convnext.pt. Also prints the channel statistics frozen in indicator/labels.py."""
import numpy as np
import torch
from torch import nn

from indicator.backbone import CHECKPOINT, create_reader_net
from indicator.render import render_crops
from indicator.tensors import acceptance_batch, crops_to_tensor

TRAIN_SEED, N_TRAIN, EPOCHS = 4242, 1500, 6


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    frames, states = render_crops(N_TRAIN, TRAIN_SEED)
    rgb = frames[..., ::-1].reshape(-1, 3) / 255.0
    print("training channel mean (RGB)", np.round(rgb.mean(0), 3), "std", np.round(rgb.std(0), 3))
    x, y = crops_to_tensor(frames), torch.from_numpy(states)
    (xe,), ye = acceptance_batch()
    net = create_reader_net()
    opt = torch.optim.AdamW(net.parameters(), lr=4e-3, weight_decay=0.05)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=EPOCHS * ((N_TRAIN + 63) // 64))
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: acceptance accuracy {acc:.4f}")
    CHECKPOINT.parent.mkdir(exist_ok=True)
    torch.save(net.state_dict(), CHECKPOINT)
    print("wrote", CHECKPOINT)


if __name__ == "__main__":
    main()
