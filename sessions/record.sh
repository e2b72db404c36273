#!/usr/bin/env bash
# Record (or refresh) a shipped session: deploy a fresh copy of examples/<example> on <target>
# with the real embedded model in batch mode, and keep the session's log and report (not its
# worktree) under sessions/<name>/, with ship.toml saying how it was made.
#
#   sessions/record.sh <example> <target> <name> [extra `aipc run` options]
#   e.g. sessions/record.sh digits-cnn onnxruntime-cpu digits-cnn-onnxruntime
#
# Uses $AIPC (default: the release binary under $CARGO_TARGET_DIR or target/). The recording is
# kept whatever its outcome: a failing session is a useful demo too. CI re-runs every shipped
# session (tests/shipped_sessions.rs): after a toolbox or prompt change that alters what the
# model sees, re-record the sessions it names.
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n 2,12p "$0" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
example=$1 target=$2 name=$3
shift 3
aipc=${AIPC:-${CARGO_TARGET_DIR:-$root/target}/release/aipc}
[ -x "$aipc" ] || { echo "no aipc binary at $aipc (cargo build --release, or set AIPC)" >&2; exit 2; }
[ -d "$root/examples/$example" ] || { echo "no example $root/examples/$example" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
project="$work/$example"
mkdir -p "$project"
# Only the files git tracks: the copy CI makes from a clean clone must have the same tree.
git -C "$root" ls-files -z "examples/$example" | while IFS= read -r -d '' f; do
  cp "$root/$f" "$project/${f#examples/$example/}"
done
set +e
AIPC_DATA_DIR="$root" "$aipc" run "$project" --target "$target" --batch --threads 2 "$@" \
  >"$work/stdout" 2>"$work/stderr"
code=$?
set -e
report=$(tail -n 1 "$work/stdout")
session=$(dirname "$report")
[ -f "$session/events.jsonl" ] || { cat "$work/stderr" >&2; echo "no session was recorded (exit $code)" >&2; exit 1; }
dest="$here/$name"
rm -rf "$dest"
mkdir -p "$dest"
cp "$session/meta.json" "$session/events.jsonl" "$session/report.md" "$session/report.json" "$dest/"
cat >"$dest/ship.toml" <<TOML
# How this recording was made (sessions/record.sh); tests/shipped_sessions.rs re-runs it.
example = "examples/$example"
target = "$target"
command = "sessions/record.sh $example $target $name${*:+ $*}"
exit_code = $code
recorded = "$(date -u +%Y-%m-%d)"
TOML
echo "recorded $dest (aipc exit $code)"
