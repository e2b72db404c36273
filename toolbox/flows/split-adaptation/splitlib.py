"""Shared pieces of the split-adaptation flow (docs/split-adaptation.md): the project's model cut
into a backbone and a head, the runtime backend that builds and runs the backbone, feature
metrics, head training, and cross-layer equalization.

The split: aipc.toml [project] `split_head` names the head module by its dotted path; the backbone
is a copy of the model with that module replaced by an identity, so backbone(x) is what the head
receives and head(backbone(x)) must equal model(x) (checked by split_check.py: a model that does
more after its head, or a head fed by something other than the backbone's output, fails there).

The runtime is the target's (`$AIPC_RUNTIME`: onnxruntime-cpu or executorch-xnnpack); its module
(backend_ort.py, backend_et.py) builds build/backbone.* (FP32) and build/backbone_int8.* and runs
them. Artifacts: build/backbone.json records how the INT8 backbone was built.
"""
import copy
import json
import os
import sys
import time

import numpy as np

from aipc_toolbox import emit
from aipc_toolbox.emit import ToolError, note
from aipc_toolbox.project import Project

RESTORATIONS = ("cle", "per_channel")  # in the order of their aipc.toml spelling "cle+per_channel"
SIDECAR = "build/backbone.json"
FEATURES = "build/features.npz"
HEAD = "build/head.pt"


# ------------------------------------------------------------------ runtime backend

def backend():
    """The module that builds and runs backbones for this target's runtime."""
    runtime = os.environ.get("AIPC_RUNTIME", "")
    runtime_dir = os.environ.get("AIPC_RUNTIME_DIR")
    if runtime_dir and runtime_dir not in sys.path:
        sys.path.insert(0, runtime_dir)
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    if runtime == "onnxruntime-cpu":
        import backend_ort as b
    elif runtime == "executorch-xnnpack":
        import backend_et as b
    else:
        raise ToolError(f"split adaptation runs on onnxruntime-cpu or executorch-xnnpack, not AIPC_RUNTIME={runtime!r}; "
                        "run it through a split-* target (toolbox/targets/split-*/toolchain.toml names the runtime)")
    return b


def artifact_paths():
    b = backend()
    return f"build/backbone{b.SUFFIX}", f"build/backbone_int8{b.SUFFIX}"


def read_sidecar():
    if not os.path.isfile(SIDECAR):
        raise ToolError(f"{SIDECAR} does not exist: call build_backbone first")
    with open(SIDECAR) as f:
        side = json.load(f)
    for key in ("fp32", "int8"):
        path = side.get(key, {}).get("artifact")
        if not path or not os.path.isfile(path) or sha256(path) != side[key].get("sha256"):
            raise ToolError(f"{SIDECAR} describes a {key} backbone {path} that is missing or was rebuilt since: "
                            "call build_backbone again")
    return side


def sha256(path):
    from aipc_toolbox.report import sha256 as file_sha256

    return file_sha256(path)


# ------------------------------------------------------------------ the split

def module_at(model, path):
    mod = model
    for part in path.split("."):
        if not part:
            raise KeyError(path)
        mod = mod[int(part)] if part.isdigit() and hasattr(mod, "__getitem__") else getattr(mod, part)
    return mod


def set_module(model, path, new):
    parent_path, _, name = path.rpartition(".")
    parent = module_at(model, parent_path) if parent_path else model
    if name.isdigit() and hasattr(parent, "__setitem__"):
        parent[int(name)] = new
    else:
        setattr(parent, name, new)


def head_candidates(model):
    """Dotted paths of the Linear modules (and of containers ending in one), last first: where a
    classifier head usually is."""
    import torch

    names = []
    for name, mod in model.named_modules():
        if not name:
            continue
        if isinstance(mod, torch.nn.Linear):
            names.append(name)
        elif isinstance(mod, torch.nn.Sequential) and len(mod) and isinstance(list(mod.modules())[-1], torch.nn.Linear):
            names.append(name)
    return list(reversed(names))


class Split:
    """The project's model, its backbone and its head."""

    def __init__(self, p=None):
        import torch

        self.p = p or Project()
        head_path = self.p.get("split_head")
        self.model = self.p.load_model()
        if not head_path:
            raise ToolError("aipc.toml [project]: split_head is not set: it names the head module the backbone feeds; "
                            f"candidates in this model: {', '.join(head_candidates(self.model)[:6]) or 'none'} "
                            '(set it with set_project_option {"key": "split_head", "value": "<path>"})')
        try:
            self.head = module_at(self.model, head_path)
        except (AttributeError, KeyError, IndexError, ValueError, TypeError):
            raise ToolError(f"{self.p._where('split_head')}: split_head = {head_path!r}: the model "
                            f"({type(self.model).__name__}) has no module at that path; candidates: "
                            f"{', '.join(head_candidates(self.model)[:6]) or 'none'}") from None
        if not isinstance(self.head, torch.nn.Module):
            raise ToolError(f"{self.p._where('split_head')}: split_head = {head_path!r} is a "
                            f"{type(self.head).__name__}, not a module")
        self.head_path = head_path
        self.backbone = copy.deepcopy(self.model)
        set_module(self.backbone, head_path, torch.nn.Identity())
        self.backbone.eval()
        self.head.eval()

    def new_head(self, classes, seed):
        """A copy of the head whose last Linear layer gives `classes` outputs, freshly initialised
        from `seed` (the rest of the head keeps its pre-trained weights and trains too)."""
        import torch

        head = copy.deepcopy(self.head)
        torch.manual_seed(seed)
        linears = [n for n, m in head.named_modules() if isinstance(m, torch.nn.Linear)]
        if not linears:
            raise ToolError(f"the head {self.head_path!r} ({type(self.head).__name__}) has no Linear layer to give the "
                            "new classes; point split_head at the classifier")
        last = linears[-1]
        old = module_at(head, last) if last else head
        new = torch.nn.Linear(old.in_features, classes, bias=old.bias is not None)
        if last:
            set_module(head, last, new)
        else:
            head = new
        return head


def verify_split(split, inputs):
    """head(backbone(x)) against model(x): (relative max error, features). A head path whose
    removal breaks the model, or whose module cannot take the backbone's output, is refused with
    the candidates; a model whose own output is not finite too."""
    import torch

    cands = ", ".join(head_candidates(split.model)[:6]) or "none"
    with torch.no_grad():
        whole = split.model(*inputs)
        try:
            feats = split.backbone(*inputs)
        except Exception as exc:  # noqa: BLE001 - a backbone that does not run is the finding
            raise ToolError(f"split_head = {split.head_path!r}: the model does not run with that module replaced by an "
                            f"identity ({emit.describe(exc)}): it is not the last module applied; candidates: {cands}") from None
        try:
            parts = split.head(feats)
        except Exception as exc:  # noqa: BLE001
            raise ToolError(f"split_head = {split.head_path!r}: the head does not take the backbone's output "
                            f"{tuple(feats.shape)}: {emit.describe(exc)}; candidates: {cands}") from None
    if not isinstance(whole, torch.Tensor) or not torch.isfinite(whole).all():
        raise ToolError(f"the model's output on eval_data is not a finite tensor ({type(whole).__name__}): the split "
                        "cannot be checked; make the model's forward return finite logits")
    if whole.shape != parts.shape:
        return float("inf"), feats
    scale = max(float(whole.abs().max()), 1.0)
    return float((whole - parts).abs().max()) / scale, feats


def as_tuple(x):
    import torch

    if isinstance(x, torch.Tensor):
        return (x,)
    return tuple(x)


def adapt_data(p):
    """(train inputs tuple, train labels, test inputs tuple, test labels, classes)."""
    import torch

    d = p._call("adapt_data")
    if not (isinstance(d, (tuple, list)) and len(d) == 4):
        raise ToolError(f"{p._where('adapt_data')}: {p['adapt_data']} must return (train inputs, train labels, "
                        "test inputs, test labels)")
    tx, ty, vx, vy = d
    tx, vx = as_tuple(tx), as_tuple(vx)
    ty, vy = torch.as_tensor(ty).long(), torch.as_tensor(vy).long()
    if len(ty) != tx[0].shape[0] or len(vy) != vx[0].shape[0]:
        raise ToolError(f"{p['adapt_data']}: {tx[0].shape[0]} train inputs for {len(ty)} labels, "
                        f"{vx[0].shape[0]} test inputs for {len(vy)} labels")
    if len(ty) == 0 or len(vy) == 0:
        raise ToolError(f"{p['adapt_data']}: the train and test sets must not be empty")
    classes = int(max(ty.max(), vy.max())) + 1
    if int(min(ty.min(), vy.min())) < 0:
        raise ToolError(f"{p['adapt_data']}: labels must be class indices from 0")
    return tx, ty, vx, vy, classes


def eager_features(backbone, inputs, batch=256):
    import torch

    outs = []
    with torch.no_grad():
        for start in range(0, inputs[0].shape[0], batch):
            y = backbone(*[t[start:start + batch] for t in inputs])
            outs.append(y.reshape(y.shape[0], -1).numpy())
    return np.concatenate(outs)


# ------------------------------------------------------------------ feature metrics

def feature_metrics(ref, out):
    """INT8 (or FP32 artifact) features against eager FP32 features, per sample and per channel."""
    ref = ref.reshape(ref.shape[0], -1).astype(np.float64)
    out = out.reshape(out.shape[0], -1).astype(np.float64)
    num = (ref * out).sum(1)
    den = np.linalg.norm(ref, axis=1) * np.linalg.norm(out, axis=1)
    cos = np.where(den > 0, num / np.maximum(den, 1e-30), np.where(np.abs(ref).sum(1) + np.abs(out).sum(1) == 0, 1.0, 0.0))
    rms = np.sqrt(((out - ref) ** 2).mean(0))
    spread = ref.std(0)
    scale = np.maximum(spread, 1e-6 * max(float(np.abs(ref).max()), 1e-12))
    chan = rms / scale
    live = spread > 1e-6 * max(float(np.abs(ref).max()), 1e-12)
    worst = int(np.argmax(np.where(live, chan, -1))) if live.any() else 0
    return {
        "cosine_mean": round(float(cos.mean()), 6),
        "cosine_min": round(float(cos.min()), 6),
        "channel_err_max": round(float(chan[live].max()) if live.any() else 0.0, 6),
        "channel_err_median": round(float(np.median(chan[live])) if live.any() else 0.0, 6),
        "worst_channel": worst,
        "finite": int(bool(np.isfinite(out).all())),
        "features": int(ref.shape[1]),
        "samples": int(ref.shape[0]),
    }


# ------------------------------------------------------------------ head training

def train_head(head, feats, labels, p, log=True):
    """Train `head` on cached features, full batch, with aipc.toml's epochs / lr / optimizer;
    returns (head, seconds, final loss, train accuracy)."""
    import torch

    x = torch.from_numpy(np.ascontiguousarray(feats, dtype=np.float32))
    y = torch.as_tensor(labels).long()
    torch.set_num_threads(p["threads"])
    torch.manual_seed(p["adapt_seed"])
    params = [q for q in head.parameters() if q.requires_grad]
    opt = (torch.optim.Adam(params, lr=p["adapt_lr"]) if p["adapt_optimizer"] == "adam"
           else torch.optim.SGD(params, lr=p["adapt_lr"], momentum=0.9))
    head.train()
    t0 = time.perf_counter()
    loss = None
    for _ in range(p["adapt_epochs"]):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(head(x), y)
        loss.backward()
        opt.step()
    loss = float(loss.detach())
    seconds = time.perf_counter() - t0
    head.eval()
    with torch.no_grad():
        acc = float((head(x).argmax(1) == y).float().mean())
    if log:
        note(f"head trained: {p['adapt_epochs']} epochs, {p['adapt_optimizer']} lr {p['adapt_lr']}, seed "
             f"{p['adapt_seed']}, {len(y)} samples: loss {loss:.4f}, train accuracy {acc:.3f}, {seconds:.3f} s")
    return head, seconds, loss, acc


def head_accuracy(head, feats, labels):
    import torch

    with torch.no_grad():
        pred = head(torch.from_numpy(np.ascontiguousarray(feats, dtype=np.float32))).argmax(1)
    return float((pred == torch.as_tensor(labels).long()).float().mean())


# ------------------------------------------------------------------ cross-layer equalization

def fold_batch_norms(module, example):
    """The module with every Conv -> BatchNorm pair folded into the convolution (eval mode), as a
    torch.fx GraphModule; None when the module does not trace symbolically."""
    import torch
    import torch.fx
    from torch.fx.experimental.optimization import fuse

    try:
        traced = torch.fx.symbolic_trace(copy.deepcopy(module).eval())
    except Exception as exc:  # noqa: BLE001 - any tracing failure means: no CLE for this model
        note(f"cross-layer equalization: the backbone does not trace symbolically ({emit.describe(exc)})")
        return None
    fused = fuse(traced)
    with torch.no_grad():
        a, b = module(*example), fused(*example)
    if not torch.allclose(a, b, rtol=1e-4, atol=1e-5):
        raise ToolError("folding batch norms changed the backbone's output (max abs diff "
                        f"{float((a - b).abs().max()):.3g}); cross-layer equalization is not applied")
    return fused


def _equalizable_pairs(gm):
    """(conv1, conv2) call_module pairs where conv1's output reaches only conv2, through at most
    ReLU / LeakyReLU / identity-like modules (positively homogeneous: f(s x) = s f(x), s > 0)."""
    import torch

    mods = dict(gm.named_modules())
    homogeneous = (torch.nn.ReLU, torch.nn.LeakyReLU, torch.nn.Identity, torch.nn.Dropout)
    pairs = []
    for node in gm.graph.nodes:
        if node.op != "call_module" or not isinstance(mods.get(node.target), torch.nn.Conv2d):
            continue
        cur = node
        while True:
            users = list(cur.users)
            if len(users) != 1:
                break
            nxt = users[0]
            if nxt.op == "call_module" and isinstance(mods.get(nxt.target), homogeneous):
                cur = nxt
                continue
            if nxt.op == "call_function" and getattr(nxt.target, "__name__", "") in ("relu",):
                cur = nxt
                continue
            if nxt.op == "call_module" and isinstance(mods.get(nxt.target), torch.nn.Conv2d):
                pairs.append((mods[node.target], mods[nxt.target], node.target, nxt.target))
            break
    return pairs


def cross_layer_equalize(module, example, iterations=4):
    """Cross-layer equalization (Nagel et al., 2019) of consecutive convolutions: for each pair
    whose first output reaches the second through positively homogeneous activations only, scale
    output channel i of the first by 1/s_i and input channel i of the second by s_i, with
    s_i = sqrt(r1_i / r2_i) (r: the channel's weight range), so both channels end with the same
    range. The float function is unchanged (checked); returns (module, pairs, ranges before/after)."""
    import torch

    gm = fold_batch_norms(module, example)
    if gm is None:
        return module, 0, None
    pairs = _equalizable_pairs(gm)
    if not pairs:
        note("cross-layer equalization: no pair of consecutive convolutions joined by ReLU-like activations")
        return gm, 0, None

    def spread(w, dims):
        r = w.detach().abs().amax(dim=dims)
        return float(r.max() / max(float(r.min()), 1e-12))

    before = max(spread(c1.weight, (1, 2, 3)) for c1, _, _, _ in pairs)
    with torch.no_grad():
        for _ in range(iterations):
            for c1, c2, _, _ in pairs:
                out_ch = c1.weight.shape[0]
                r1 = c1.weight.abs().amax(dim=(1, 2, 3))
                if c2.groups == 1:
                    r2 = c2.weight.abs().amax(dim=(0, 2, 3))
                elif c2.groups == c2.in_channels == c2.out_channels:
                    r2 = c2.weight.abs().amax(dim=(1, 2, 3))
                else:
                    continue
                if r2.shape[0] != out_ch:
                    continue
                s = torch.sqrt(r1.clamp_min(1e-12) / r2.clamp_min(1e-12))
                s = torch.where((r1 > 1e-12) & (r2 > 1e-12), s, torch.ones_like(s))
                c1.weight.div_(s.view(-1, 1, 1, 1))
                if c1.bias is not None:
                    c1.bias.div_(s)
                if c2.groups == 1:
                    c2.weight.mul_(s.view(1, -1, 1, 1))
                else:
                    c2.weight.mul_(s.view(-1, 1, 1, 1))
    after = max(spread(c1.weight, (1, 2, 3)) for c1, _, _, _ in pairs)
    with torch.no_grad():
        a, b = module(*example), gm(*example)
    diff = float((a - b).abs().max())
    if not torch.allclose(a, b, rtol=1e-3, atol=1e-4):
        raise ToolError(f"cross-layer equalization changed the backbone's output (max abs diff {diff:.3g}): not applied")
    note(f"cross-layer equalization: {len(pairs)} convolution pairs ({', '.join(f'{a}->{b}' for _, _, a, b in pairs[:6])}"
         f"{' ...' if len(pairs) > 6 else ''}); worst per-channel weight range ratio {before:.1f} -> {after:.1f}; "
         f"float output unchanged (max abs diff {diff:.2g})")
    return gm, len(pairs), {"range_ratio_before": round(before, 3), "range_ratio_after": round(after, 3)}


def restorations(p, a):
    """The restoration techniques, as a list: the tool's argument, else aipc.toml's `restoration`
    ("none", "per_channel", "cle" or "cle+per_channel"), checked."""
    chosen = a.get("restoration") or p.get("restoration") or "none"
    parts = [] if chosen == "none" else chosen.split("+")
    bad = [r for r in parts if r not in RESTORATIONS]
    if bad:
        raise ToolError(f"restoration {chosen!r}: {', '.join(bad)} is not one of {', '.join(RESTORATIONS)}")
    return sorted(set(parts), key=RESTORATIONS.index)


def restoration_name(parts):
    """The aipc.toml spelling of a technique list."""
    return "+".join(sorted(set(parts), key=RESTORATIONS.index)) or "none"


def trained_state(p):
    """What training and evaluating the head start from: (the backbone record, the cached runtime
    features, the split, the number of adaptation classes)."""
    side = read_sidecar()
    cached = load_features(side)
    return side, cached, Split(p), int(cached["classes"])


def load_features(side):
    """build/features.npz, checked against the INT8 backbone it must come from."""
    import os

    if not os.path.isfile(FEATURES):
        raise ToolError(f"{FEATURES} does not exist: call extract_features first")
    with np.load(FEATURES) as d:
        cached = {k: d[k] for k in d.files}
    if str(cached.get("backbone_sha256")) != side["int8"]["sha256"]:
        raise ToolError(f"{FEATURES} was extracted with another INT8 backbone than {side['int8']['artifact']} "
                        "(rebuilt since): call extract_features again")
    return cached
