"""split adaptation, tool `report`: the report stage's check. Lists the artifacts of the split
(backbone artifacts and their record, the cached features, the trained head) with sizes and
sha256, and writes build/report.json.

Metrics: artifacts (count), total_bytes, bytes.<file>, restoration.
"""
from aipc_toolbox import emit, report

import splitlib

PATTERNS = ["build/backbone*.onnx", "build/backbone*.pte", "build/backbone*.json", splitlib.FEATURES, splitlib.HEAD]


def body(a):
    out = report.collect(PATTERNS)
    out["restoration"] = splitlib.read_sidecar().get("restoration") or "none"
    return out


if __name__ == "__main__":
    emit.main("report", __file__, "report", body)
