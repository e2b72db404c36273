"""The pattern classifier: a ResMLP (timm's MlpMixer family with ResBlock / Affine, Touvron et
al. 2021) sized for the probe station's controller: 4x4 patches of a 32x32 map (64 tokens),
width 128, 3 blocks, ~0.41 M parameters, random init, trained on FabScan maps."""
from pathlib import Path

import torch
from timm.models.mlp_mixer import Affine, MlpMixer, ResBlock

from fabscan.wafer_synth import PATTERNS, SIZE

CHECKPOINT = Path(__file__).resolve().parent.parent / "resmlp_wafer.pt"

ARCH = dict(img_size=SIZE, in_chans=1, patch_size=4, num_blocks=3, embed_dim=128, mlp_ratio=4,
            block_layer=ResBlock, norm_layer=Affine, stem_norm=False, drop_rate=0.0)


def build_resmlp():
    return MlpMixer(num_classes=len(PATTERNS), **ARCH)


def load_resmlp(path=CHECKPOINT):
    if not Path(path).is_file():
        raise FileNotFoundError(f"{path} missing: run `python train.py` first")
    model = build_resmlp()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
