#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""The harness itself: a check file runs in every venv its header names, and the toolbox library
imports there (tests/toolbox_python.rs)."""
from checklib import check, main, raises

from aipc_toolbox.emit import ToolError


@check
def raises_sees_the_message():
    def boom():
        raise ToolError("model.py:3: refused")

    raises(boom, "model.py:3")


@check
def torch_imports_in_this_venv():
    import torch

    assert torch.zeros(2).sum().item() == 0


if __name__ == "__main__":
    main()
