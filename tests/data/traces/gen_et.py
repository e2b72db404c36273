"""Record real executorch-xnnpack toolchain failures with full tracebacks, one file per case.

Run in the executorch-xnnpack venv from a scratch copy of this file (short paths):
`QNN_SDK_ROOT= python gen_et.py` writes et--*.txt there (scratch files under ./_scratch).
Each case runs in a child process so that the runtime's C++ log lines (fd 2) are recorded with
the Python traceback, as a toolbox script's output would hold them.
"""
import os, subprocess, sys, traceback
import torch

os.makedirs("_scratch", exist_ok=True)
CASES = {}
PREFIX = "et"


def case(name, fn):
    CASES[name] = fn


def record(name):
    out = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True, text=True)
    text = (out.stdout + out.stderr).replace(os.getcwd() + "/", "").replace(sys.prefix, "venv")
    # torch shortens paths in "Caused by: (...)" by cutting their start.
    cwd = os.getcwd() + "/"
    for k in range(1, len(cwd)):
        text = text.replace("(" + cwd[k:], "(")
    with open(f"{PREFIX}--{name}.txt", "w") as f:
        f.write(text)
    print(name, len(text.splitlines()), "lines, exit", out.returncode)


class Lin(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.l(x)


def lin_pte():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    ep = torch.export.export(Lin().eval(), (torch.randn(2, 4),))
    prog = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()
    with open("_scratch/lin.pte", "wb") as f:
        f.write(prog.buffer)


def unknown_method():
    from executorch.runtime import Runtime
    Runtime.get().load_program("_scratch/lin.pte").load_method("nope")


class Unique(torch.nn.Module):
    def forward(self, x):
        return torch.unique(x)


def missing_kernel():
    from executorch.exir import to_edge, EdgeCompileConfig
    from executorch.runtime import Runtime
    ep = torch.export.export(Unique(), (torch.randn(6),))
    cfg = EdgeCompileConfig(_core_aten_ops_exception_list=[torch.ops.aten._unique2.default])
    prog = to_edge(ep, compile_config=cfg).to_executorch()
    with open("_scratch/unique.pte", "wb") as f:
        f.write(prog.buffer)
    Runtime.get().load_program("_scratch/unique.pte").load_method("forward")


class ItemSize(torch.nn.Module):
    def forward(self, x):
        n = int(x.max().item())
        return torch.zeros(n)


def item_size():
    torch.export.export(ItemSize(), (torch.tensor([3.0]),))


class NumpyInForward(torch.nn.Module):
    def forward(self, x):
        return torch.from_numpy(x.numpy() * 2)


def numpy_in_forward():
    torch.export.export(NumpyInForward(), (torch.randn(4, 2),))


class Median(torch.nn.Module):
    def forward(self, x):
        return torch.median(x, dim=1).values


def lower_median():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    ep = torch.export.export(Median(), (torch.randn(2, 5),))
    to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()


case("unknown-method", unknown_method)
case("missing-kernel", missing_kernel)
case("item-size", item_size)
case("numpy-in-forward", numpy_in_forward)
case("lower-median", lower_median)

if __name__ == "__main__":
    # `gen.py` records every case, `gen.py A B` only those; `--case A` is the child run.
    if sys.argv[1:2] == ["--case"]:
        try:
            CASES[sys.argv[2]]()
            print("(no exception)")
        except Exception:
            traceback.print_exc()
            sys.exit(1)
    else:
        lin_pte()
        for name in sys.argv[1:] or CASES:
            record(name)
