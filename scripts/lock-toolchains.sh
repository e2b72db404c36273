#!/usr/bin/env bash
# Re-lock every target's toolchain: toolbox/targets/<target>/requirements.txt (the pins a person
# edits) → requirements.lock (every transitive package pinned, with the sha256 of every file the
# registry serves for that version), which `aipc toolchain setup` installs with
# `pip install --require-hashes --no-deps`. Run it after editing a requirements.txt and commit
# both files; a test fails while a lock is older than its requirements.txt.
#
# Resolved for the platform aipc's toolchains run on: Linux x86_64 (manylinux_2_28), CPython
# 3.11. Uses uv's resolver (installed with pip into a throwaway venv); needs registry access.
#
# Usage: scripts/lock-toolchains.sh [<target>…]   (default: every target with requirements.txt)
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[lock-toolchains] %s\n' "$*" >&2; }

tools="$(mktemp -d "${TMPDIR:-/tmp}/aipc-lock.XXXXXX")"
trap 'rm -rf "$tools"' EXIT
log "installing uv into $tools"
python3 -m venv "$tools/venv"
"$tools/venv/bin/python" -m pip install --quiet uv

targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    for requirements in toolbox/targets/*/requirements.txt; do
        targets+=("$(basename "$(dirname "$requirements")")")
    done
fi

for target in "${targets[@]}"; do
    dir="toolbox/targets/$target"
    [ -f "$dir/requirements.txt" ] || { log "error: $dir/requirements.txt does not exist"; exit 1; }
    hash="$(sha256sum "$dir/requirements.txt" | cut -d' ' -f1)"
    log "locking $dir/requirements.txt"
    {
        echo "# The full lock of $dir/requirements.txt: made by scripts/lock-toolchains.sh, do not edit."
        echo "# requirements.txt sha256 $hash"
        echo "# Linux x86_64 (manylinux_2_28), CPython 3.11; installed with pip --require-hashes --no-deps."
        "$tools/venv/bin/uv" pip compile --quiet --no-header --generate-hashes \
            --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
            "$dir/requirements.txt"
    } >"$dir/requirements.lock.tmp"
    mv "$dir/requirements.lock.tmp" "$dir/requirements.lock"
    log "$dir/requirements.lock: $(grep -c '==' "$dir/requirements.lock") packages"
done
