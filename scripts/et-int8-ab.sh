#!/usr/bin/env bash
# A/B of executorch-xnnpack's static INT8 build between two toolboxes on ZooBench architectures:
# the same generated project and the same FP32 export, quantize.py {} from the toolbox at <before>
# and from this checkout, each checked by this checkout's compare.py (cosine, top-1 agreement,
# accuracy drop against eager). No model is involved: it measures the build, not a session.
#
# Usage: scripts/et-int8-ab.sh <before commit> <zoo architecture>...
#   e.g. scripts/et-int8-ab.sh 794f925 tinynet-e efficientnet-b0 hgnetv2-b0
# Needs the executorch-xnnpack venv (aipc toolchain setup executorch-xnnpack) and a built aipc
# (for tests/zoobench/generate.py). Prints one line per build; keeps the logs under $AB_OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD
before=$1; shift
cache="${AIPC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/aipc}"
py="$cache/toolchains/executorch-xnnpack/venv/bin/python"
aipc="${AIPC_BIN:-${CARGO_TARGET_DIR:-$cache/target}/debug/aipc}"
out="${AB_OUT:-$(mktemp -d)}"
old=$(mktemp -d)
trap 'git worktree remove --force "$old" >/dev/null 2>&1 || true' EXIT
git worktree add -q --detach "$old" "$before"
python3 tests/zoobench/generate.py --aipc "$aipc" "$@" >/dev/null
export QNN_SDK_ROOT= OMP_NUM_THREADS=1
script() { # <toolbox tree> <script> <args json>
  AIPC_TARGET_DIR="$1/toolbox/targets/executorch-xnnpack" AIPC_TOOLBOX="$1/toolbox" PYTHONPATH="$1/toolbox/lib" \
    timeout 1200 "$py" "$1/toolbox/targets/executorch-xnnpack/$2" --args-json "$3"
}
for arch in "$@"; do
  project="$out/$arch"
  rm -rf "$project" && mkdir -p "$project"
  cp -r "tests/zoobench/tasks/$arch-et/project/." "$project/"
  cd "$project"
  script "$here" export.py '{}' >export.log 2>&1 || { echo "$arch: export failed (see $project/export.log)"; cd "$here"; continue; }
  for side in before after; do
    tree=$([ "$side" = before ] && echo "$old" || echo "$here")
    script "$tree" quantize.py '{}' >"quantize-$side.log" 2>&1 || { echo "$arch $side: quantize failed"; continue; }
    script "$here" compare.py '{"artifact": "build/model_int8.pte"}' >"compare-$side.log" 2>&1 || true
    floor=$(grep -o 'activation range under the scale floor: [0-9]* of [0-9]*' "quantize-$side.log" | grep -o '[0-9]* of [0-9]*' || echo "none")
    grep '^{' "compare-$side.log" | tail -1 | python3 -c "
import json, sys
r = json.loads(sys.stdin.read())
print(f'$arch $side: cosine {r[\"cosine\"]:.4f} (min {r[\"cosine_min\"]:.4f}), top-1 {r[\"top1_agreement\"]:.3f}, '
      f'drop {r[\"acc_drop_points\"]:.2f} points; activation tensors under the floor: $floor')"
  done
  cd "$here"
done
echo "logs: $out"
