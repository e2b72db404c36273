"""qairt-snpe target, tool `inspect_dlc`: describe a DLC. The body is qairt-qnn's
inspect_qnn.py (one implementation for both QAIRT flows: the artifact names the flow); this file runs it
with this target's toolbox.toml, so the arguments are the ones qairt-snpe declares."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "qairt-qnn"))

from aipc_toolbox import emit  # noqa: E402
from inspect_qnn import body  # noqa: E402

if __name__ == "__main__":
    emit.main("inspect_dlc", __file__, "inspect", body)
