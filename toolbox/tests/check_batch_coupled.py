#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""A model whose answer for one sample depends on the rest of its batch, compared for real.

The net has a batch-wide early exit (`torch.where((confidence >= t).all(), quick, deep)`, the
form fix_branch_to_where writes for `if settled(quick): return quick`): run on many rows at
once, one unsure row sends every row through the deep head; run one row at a time, each row
takes its own exit. The artifact is exported with a static batch (1, then 4 with the last chunk
padded), so `compare` runs it in chunks of that batch (a second net centres its features on the
batch mean, so the padding rows count too); the eager reference must run in the same
chunks, or a faithful artifact fails the cosine gate against a reference computed on another
batching. The check first asserts that the eval set really is batch-coupled (eager at 64 rows
differs from eager row by row), so it fails when the reference is batched differently.
"""
import tempfile
from pathlib import Path

from checklib import check, main, run_script, venv_target

TARGET_NAME, EXT, TARGET = venv_target()

NET = '''
import torch
from torch import nn


class Gated(nn.Module):
    """A quick head, a deep head, and a batch-wide exit: the quick answer when every row of the
    batch is confident enough."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quick = nn.Linear(6, 3)
        self.deep = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x):
        q = self.quick(x)
        settled = (q.softmax(-1).amax(-1) >= 0.6).all()
        return torch.where(settled, q, self.deep(x))


def build():
    return Gated().eval()


class Centered(nn.Module):
    """Features centred on the mean of the batch they arrive in (a batch statistic)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        return self.head(x - x.mean(0, keepdim=True))


def centered():
    return Centered().eval()


def rows():
    g = torch.Generator().manual_seed(3)
    scale = torch.linspace(0.05, 6.0, 40)[torch.randperm(40, generator=g)]
    return torch.randn(40, 6, generator=g) * scale[:, None]


def one():
    return (rows()[:1],)


def four():
    return (rows()[:4],)


def held_out():
    x = rows()
    with torch.no_grad():
        y = torch.cat([build()(x[i:i + 1]) for i in range(40)]).argmax(1)
    return (x,), y
'''

TOML = '''target = "{target}"
[project]
model = "net:build"
example_inputs = "net:{example}"
eval_data = "net:held_out"
dynamic_batch = false
quantize = "none"
'''


def project(example):
    d = Path(tempfile.mkdtemp(prefix="aipc-batch-coupled-"))
    (d / "net.py").write_text(NET)
    (d / "aipc.toml").write_text(TOML.format(target=TARGET_NAME, example=example))
    res, out = run_script(TARGET, d, "export.py", {})
    assert res["ok"], out
    return d


def the_eval_set_is_batch_coupled():
    import sys

    import torch

    d = Path(tempfile.mkdtemp(prefix="aipc-batch-coupled-net-"))
    (d / "net.py").write_text(NET)
    sys.path.insert(0, str(d))
    try:
        import net
    finally:
        sys.path.remove(str(d))
    model, x = net.build(), net.rows()
    with torch.no_grad():
        together = model(x)
        alone = torch.cat([model(x[i:i + 1]) for i in range(x.shape[0])])
        q = model.quick(x).softmax(-1).amax(-1)
    assert 0 < int((q >= 0.6).sum()) < x.shape[0], "both exits must occur row by row"
    assert (together - alone).abs().max() > 0.1, "at 40 rows the batch-wide exit must differ from row by row"


@check
def a_static_batch_artifact_is_compared_with_eager_run_in_its_own_chunks():
    the_eval_set_is_batch_coupled()
    for example, batch in (("one", 1), ("four", 4)):
        d = project(example)
        res, out = run_script(TARGET, d, "compare.py", {"artifact": f"build/model.{EXT}"})
        assert res["ok"] and res["samples"] == 40, out
        # 40 rows in chunks of 4 need no padding; of 1, none either. The reference sees the
        # same chunks, so the artifact matches it.
        assert res["cosine"] > 0.9999 and res["cosine_min"] > 0.999 and res["top1_agreement"] == 1.0, (batch, out)
        assert res["max_abs_err"] < 1e-3, (batch, out)


@check
def a_padded_last_chunk_is_padded_for_eager_too():
    d = project("four")
    # 38 rows: the last chunk of 4 holds 2 rows and 2 copies of the last one, for both runs; the
    # batch mean the centred model subtracts is that of the padded chunk.
    (d / "net.py").write_text(NET + "\n\ndef short():\n    (x,), y = held_out()\n    return (x[:38],), y[:38]\n")
    toml = (d / "aipc.toml").read_text().replace('model = "net:build"', 'model = "net:centered"')
    (d / "aipc.toml").write_text(toml)
    res, out = run_script(TARGET, d, "export.py", {})
    assert res["ok"], out
    (d / "aipc.toml").write_text(toml.replace("net:held_out", "net:short"))
    res, out = run_script(TARGET, d, "compare.py", {"artifact": f"build/model.{EXT}"})
    assert res["ok"] and res["samples"] == 38, out
    assert res["cosine"] > 0.9999 and res["cosine_min"] > 0.999, out


if __name__ == "__main__":
    main()
