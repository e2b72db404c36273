"""executorch-xnnpack target, tool `report`: the report stage's check. Lists the artifacts built in this run
(sizes, sha256) and writes build/report.json.

Metrics: artifacts (count), total_bytes, bytes.<file>.
"""
from aipc_toolbox import emit, report

PATTERNS = ["build/*.pte", "build/*.pte.json"]


def body(a):
    return report.collect(PATTERNS)


if __name__ == "__main__":
    emit.main("report", __file__, "report", body)
