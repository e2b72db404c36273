#!/usr/bin/env bash
# The per-stage overhead of running on a device: examples/digits-cnn deployed with the scripted
# model on both real targets, locally and with --device, back to back, TRIALS times; prints the
# median wall time of every stage (report.json) for each, and the difference (docs/device.md).
#
# Usage: scripts/device-overhead.sh <device file for onnxruntime-cpu> <device file for executorch-xnnpack> [trials]
# (each a [device] table whose runner has that target's runtime; see docs/device.md)
set -euo pipefail
cd "$(dirname "$0")/.."
ort_device=$(realpath "$1"); et_device=$(realpath "$2"); trials=${3:-1}
aipc=${AIPC:-${CARGO_TARGET_DIR:-target}/debug/aipc}
out=$(mktemp -d -t aipc-device-overhead-XXXX)
for trial in $(seq "$trials"); do
  for target in onnxruntime-cpu executorch-xnnpack; do
    for mode in local device; do
      d=$out/$target-$mode-$trial; mkdir -p "$d"; cp -r examples/digits-cnn "$d/"
      (cd "$d/digits-cnn" && git init -q && git add -A && git -c user.name=aipc -c user.email=aipc@localhost commit -qm project)
      flags=()
      if [ "$mode" = device ]; then
        if [ "$target" = onnxruntime-cpu ]; then flags=(--device "$ort_device"); else flags=(--device "$et_device"); fi
      fi
      QNN_SDK_ROOT= "$aipc" --data-dir "$PWD" run "$d/digits-cnn" --target "$target" --batch --no-toolchain-setup \
        --model "scripted:$PWD/tests/data/scripts/digits-cnn.$target.jsonl" "${flags[@]}" > "$d/out.txt" 2> "$d/log.txt" \
        || echo "$target $mode trial $trial: exit $? (see $d/log.txt)" >&2
    done
  done
done
python3 - "$out" <<'PY'
import glob, json, statistics, sys
rows = {}
for f in glob.glob(f"{sys.argv[1]}/*/digits-cnn/.aipc/sessions/*/report.json"):
    target, mode, _ = f[len(sys.argv[1]) + 1:].split("/")[0].rsplit("-", 2)
    r = json.load(open(f))
    for s in r["stages"] + [{"name": "whole session", "duration_ms": r["duration_ms"]}]:
        rows.setdefault((target, s["name"]), {}).setdefault(mode, []).append(s["duration_ms"] / 1000)
print("| target | stage | local s | device s | overhead s |\n|---|---|---|---|---|")
for (t, stage), m in sorted(rows.items()):
    local, device = statistics.median(m.get("local", [0])), statistics.median(m.get("device", [0]))
    print(f"| {t} | {stage} | {local:.1f} | {device:.1f} | {device - local:+.1f} |")
PY
echo "sessions: $out" >&2
