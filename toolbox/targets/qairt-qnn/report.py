"""qairt-* targets, tool `report`: the report stage's check. Lists the artifacts built in this
run (the ONNX export; qairt-qnn's FP model library and INT8 context binary, qairt-snpe's FP and
quantized DLC; sizes, sha256) and writes build/report.json.

Metrics: artifacts (count), total_bytes, bytes.<file>.
"""
from aipc_toolbox import emit, report

PATTERNS = ["build/*.onnx", "build/*.onnx.data", "build/qnn/fp/libs/*/*.so", "build/qnn/int8/output/*.bin", "build/snpe/*.dlc"]


def body(a):
    return report.collect(PATTERNS)


if __name__ == "__main__":
    emit.main("report", __file__, "report", body)
