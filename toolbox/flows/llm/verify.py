"""decoder-LLM flow, the export stage's check: the FP32 program exists and was built for this
project as it is now (the reference's and aipc.toml's llm_cache_len, from build/llm_export_none.json).
Cheap: it loads the program, not the model.

Metrics: program_ok, artifact_mb, cache_len, delegate_calls, portable_ops.
"""
import json
import os

from aipc_toolbox import emit
from aipc_toolbox.emit import ToolError, note
from aipc_toolbox.project import Project

import llmlib


def body(a):
    p = Project()
    path = llmlib.artifact_path("none")
    record = os.path.join(llmlib.BUILD, "llm_export_none.json")
    if not os.path.isfile(path) or not os.path.isfile(record):
        raise ToolError(f"{path}: not built yet; call llm_export")
    with open(record, encoding="utf-8") as f:
        built = json.load(f)
    ref = llmlib.load_reference()
    cache_len = p["llm_cache_len"]
    stale = [f"{what} {v}" for what, v in (("the program's", built["cache_len"]), ("the reference's", ref["cache_len"]))
             if v != cache_len]
    if stale:
        raise ToolError(f"{p._where('llm_cache_len')}: llm_cache_len = {cache_len}, but {' and '.join(stale)}; "
                        "call llm_reference, then llm_export")
    llmlib.Program(path, cache_len)
    note(f"{path}: {built['artifact_mb']} MiB, static cache {cache_len}, {built['delegate_calls']} delegate calls, "
         f"{built['portable_ops']} portable ops; loads in the runtime")
    return {"program_ok": 1, "artifact_mb": built["artifact_mb"], "cache_len": cache_len,
            "delegate_calls": built["delegate_calls"], "portable_ops": built["portable_ops"]}


if __name__ == "__main__":
    emit.main("llm_export", __file__, "export", body)
