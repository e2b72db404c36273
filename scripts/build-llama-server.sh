#!/usr/bin/env bash
# Build the real `llama-server` and `llama-bench` from the llama.cpp tree that the
# llama-cpp-python source distribution vendors, and install them into the aipc cache:
#
#   ${AIPC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/aipc}/llama.cpp/<version>/bin/
#
# The work is skipped when both binaries are already there, so a machine (a developer's or
# CI's) builds once. Progress goes to stderr; the last line on stdout is the bin folder, so
#
#   bin="$(scripts/build-llama-server.sh | tail -n 1)"
#
# works. Needs python3 with pip, cmake and g++ (installed with apt-get when missing and
# running as root). Takes about 10 minutes on 2 cores.
#
# Environment: AIPC_CACHE_DIR, XDG_CACHE_HOME (where to install), AIPC_BUILD_JOBS (default 2).
set -euo pipefail

# Pinned: the newest llama-cpp-python that pip resolved when this script was written.
LLAMA_CPP_PYTHON_VERSION="0.3.36"

cache_root="${AIPC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/aipc}"
prefix="$cache_root/llama.cpp/$LLAMA_CPP_PYTHON_VERSION"
bin_dir="$prefix/bin"
jobs="${AIPC_BUILD_JOBS:-2}"

log() { printf '[build-llama-server] %s\n' "$*" >&2; }

installed() { [ -x "$bin_dir/llama-server" ] && [ -x "$bin_dir/llama-bench" ]; }

if installed; then
    log "already built: $bin_dir"
    echo "$bin_dir"
    exit 0
fi

mkdir -p "$prefix"
# One build at a time per install folder (a developer and CI on one machine).
if command -v flock >/dev/null 2>&1; then
    exec 9>"$prefix/.build.lock"
    log "waiting for the build lock $prefix/.build.lock"
    flock 9
    if installed; then
        log "built meanwhile by another run: $bin_dir"
        echo "$bin_dir"
        exit 0
    fi
fi

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        log "installing ${missing[*]} with apt-get"
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
    else
        log "missing ${missing[*]}: install them (e.g. apt-get install -y ${missing[*]}) and run again"
        exit 1
    fi
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/aipc-llama-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT

started=$(date +%s)
log "downloading the llama-cpp-python $LLAMA_CPP_PYTHON_VERSION source distribution"
# Only llama-cpp-python itself must come as source; its build backend (needed by pip to read
# the sdist's metadata) may come as wheels, which saves compiling ninja and friends.
python3 -m pip download --quiet --no-deps --no-binary llama-cpp-python \
    --dest "$work/sdist" "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" >&2
archive="$(find "$work/sdist" -maxdepth 1 -name 'llama_cpp_python-*.tar.gz' -o -maxdepth 1 -name 'llama-cpp-python-*.tar.gz' | head -n 1)"
if [ -z "$archive" ]; then
    log "pip did not leave a .tar.gz source distribution in $work/sdist"
    exit 1
fi
mkdir -p "$work/src"
tar -xzf "$archive" -C "$work/src"
src="$(find "$work/src" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
if [ ! -f "$src/vendor/llama.cpp/CMakeLists.txt" ]; then
    log "$archive has no vendor/llama.cpp/CMakeLists.txt"
    exit 1
fi

log "configuring llama.cpp from $(basename "$archive")"
cmake -S "$src/vendor/llama.cpp" -B "$work/build" \
    -DLLAMA_CURL=OFF -DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=OFF \
    -DBUILD_SHARED_LIBS=OFF -DGGML_OPENMP=OFF >&2
# GGML_OPENMP=OFF like aipc's in-process build, so `aipc bench model --llama-bench` compares
# like with like (scripts/bench-threads.sh has the figures behind the choice).
log "building llama-server and llama-bench with $jobs jobs"
cmake --build "$work/build" --target llama-server llama-bench -j "$jobs" >&2

mkdir -p "$bin_dir"
for tool in llama-server llama-bench; do
    built="$(find "$work/build" -type f -name "$tool" -perm -u+x | head -n 1)"
    if [ -z "$built" ]; then
        log "the build produced no $tool binary"
        exit 1
    fi
    # Copy then rename, so a half-written binary is never taken for a finished one.
    cp "$built" "$bin_dir/.$tool.tmp"
    mv -f "$bin_dir/.$tool.tmp" "$bin_dir/$tool"
done
printf '%s\n' "$LLAMA_CPP_PYTHON_VERSION" >"$prefix/VERSION"
log "built in $(($(date +%s) - started)) s: $bin_dir"
echo "$bin_dir"
