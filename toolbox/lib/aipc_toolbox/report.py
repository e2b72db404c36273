"""The report stage's check, shared by the targets' report.py: list the deployment artifacts in
build/ with size and sha256 (two-file ONNX models and .pte sidecars included), and write them to
build/report.json. Large artifacts are not committed; these hashes identify them.
"""
import glob
import hashlib
import json
import os

from . import emit


def sha256(path):
    """sha256 (hex) of a file, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def collect(patterns, out="build/report.json"):
    files = sorted({f for p in patterns for f in glob.glob(p)} - {out})
    if not files:
        raise emit.ToolError(f"no artifacts matching {', '.join(patterns)}: the build stages did not run here")
    arts = []
    for f in files:
        entry = {"path": f, "bytes": os.path.getsize(f), "sha256": sha256(f)}
        if f.endswith(".json"):
            try:
                with open(f) as fh:
                    side = json.load(fh)
                d = side.get("delegation", {})
                entry["delegated_ratio"] = d.get("delegated_ratio")
                entry["non_delegated_ops"] = d.get("non_delegated_ops")
            except (OSError, ValueError):
                pass
        arts.append(entry)
        emit.note(f"{f}: {entry['bytes']} bytes, sha256 {entry['sha256'][:16]}...")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w") as fh:
        json.dump({"artifacts": arts}, fh, indent=1)
    sizes = {os.path.basename(a["path"]): a["bytes"] for a in arts}
    return {"report": out, "artifacts": len(arts), "bytes": sizes, "total_bytes": sum(a["bytes"] for a in arts)}
