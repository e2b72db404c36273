#!/usr/bin/env bash
# Build the real llama.cpp programs aipc is measured and tested against, portable (no
# GGML_NATIVE), and install them into the aipc cache:
#
#   llama-bench  — the *same* llama.cpp library tree aipc links in-process (the one vendored by
#                  the llama-cpp-sys-2 crate Cargo.lock pins), with the same CPU flags and CMake
#                  build type, so `aipc bench model` compares like with like:
#                  <cache>/llama.cpp/llama-cpp-sys-2-<version>-<cpu>/bin/llama-bench
#                  The crate ships the library sources (ggml/, src/, common/) but not the tools':
#                  llama-bench.cpp (a timing harness over the public API) comes from the
#                  llama-cpp-python source distribution pinned below.
#   llama-server — the OpenAI-compatible server the HTTP backend is tested against, from the
#                  complete llama.cpp tree of that llama-cpp-python sdist (the server needs tool
#                  sources that the crate does not ship, and does not build against its newer
#                  library), with the same CPU flags:
#                  <cache>/llama.cpp/server-llama-cpp-python-<version>-<cpu>/bin/llama-server
#
# The CPU baseline is the `target-cpu` of .cargo/config.toml (x86-64-v3: AVX2/FMA/F16C/BMI2,
# which every x86-64 machine of this kind runs), mapped to llama.cpp's GGML_* options exactly as
# llama-cpp-sys-2 maps Rust's target features (`rustc --print cfg`). A GGML_NATIVE build on a
# CPU that advertises AMX dies with SIGILL where the hypervisor does not enable AMX tile state.
# AIPC_TARGET_CPU=native opts in to a build for this machine only.
#
# Usage: scripts/build-llama-server.sh [all|server|bench]   (default: all)
# Each program is skipped when already installed, so a machine builds once. Progress goes to
# stderr; stdout gets one line per program: its full path (`… | tail -n 1` is the last one;
# `server` prints only the server's).
#
# Needs cargo (to find the crate's source), python3 with pip (to fetch the sdist), cmake, g++
# and make (installed with apt-get when missing and running as root). About 9 minutes per
# program on 2 cores. CMAKE_<LANG>_COMPILER_LAUNCHER=ccache in the environment is honoured.
#
# Environment: AIPC_CACHE_DIR, XDG_CACHE_HOME (where to install), AIPC_BUILD_JOBS (default: the
# number of cores), AIPC_TARGET_CPU (default: from .cargo/config.toml).
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned: the newest llama-cpp-python on the registry when this was written (its vendored
# llama.cpp has ggml 0.25.3; llama-cpp-sys-2 0.1.161 vendors ggml 0.26.0).
LLAMA_CPP_PYTHON_VERSION="0.3.36"

what="${1:-all}"
case "$what" in all | server | bench) ;; *) echo "usage: $0 [all|server|bench]" >&2; exit 2 ;; esac

log() { printf '[build-llama-server] %s\n' "$*" >&2; }
fail() { log "error: $*"; exit 1; }

cpu="${AIPC_TARGET_CPU:-$(sed -n 's/.*"target-cpu=\([^"]*\)".*/\1/p' .cargo/config.toml | head -n 1)}"
cpu="${cpu:-x86-64}"
cache_root="${AIPC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/aipc}"
jobs="${AIPC_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
mkdir -p "$cache_root/llama.cpp"

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
        fail "missing ${missing[*]}: install them (e.g. apt-get install -y ${missing[*]}) and run again"
    fi
fi

# The CMake options llama-cpp-sys-2's build script gives llama.cpp for this target-cpu: the
# cmake/cc crates' default flags plus -march, GGML_* from Rust's target features, Release
# (.cargo/config.toml sets LLAMA_LIB_PROFILE=Release), static, no OpenMP.
cmake_options=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_OPENMP=OFF
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
    -DLLAMA_BUILD_APP=OFF)
if [ "$cpu" = "native" ]; then
    cmake_options+=(-DGGML_NATIVE=ON)
else
    common_flags="-march=$cpu -ffunction-sections -fdata-sections -fPIC -m64 -w"
    cmake_options+=(-DGGML_NATIVE=OFF "-DCMAKE_C_FLAGS=$common_flags" "-DCMAKE_CXX_FLAGS=$common_flags")
    features="$(rustc --print cfg -C "target-cpu=$cpu" | sed -n 's/^target_feature="\(.*\)"$/\1/p')"
    for feature in $features; do
        case "$feature" in
            avx) cmake_options+=(-DGGML_AVX=ON) ;;
            avx2) cmake_options+=(-DGGML_AVX2=ON) ;;
            avx512f) cmake_options+=(-DGGML_AVX512=ON) ;;
            avx512bf16) cmake_options+=(-DGGML_AVX512_BF16=ON) ;;
            avx512vbmi) cmake_options+=(-DGGML_AVX512_VBMI=ON) ;;
            avx512vnni) cmake_options+=(-DGGML_AVX512_VNNI=ON) ;;
            avxvnni) cmake_options+=(-DGGML_AVX_VNNI=ON) ;;
            bmi2) cmake_options+=(-DGGML_BMI2=ON) ;;
            f16c) cmake_options+=(-DGGML_F16C=ON) ;;
            fma) cmake_options+=(-DGGML_FMA=ON) ;;
            sse4.2) cmake_options+=(-DGGML_SSE42=ON) ;;
        esac
    done
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/aipc-llama-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The llama-cpp-python sdist, downloaded once into the cache.
sdist_tree() {
    local archive="$cache_root/llama.cpp/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"
    if [ ! -f "$archive" ]; then
        log "downloading the llama-cpp-python $LLAMA_CPP_PYTHON_VERSION source distribution"
        python3 -m pip download --quiet --no-deps --no-binary llama-cpp-python \
            --dest "$work/sdist" "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" >&2
        local got
        got="$(find "$work/sdist" -maxdepth 1 -name '*.tar.gz' | head -n 1)"
        [ -n "$got" ] || fail "pip left no .tar.gz source distribution in $work/sdist"
        cp "$got" "$archive.tmp" && mv "$archive.tmp" "$archive"
    fi
    if [ ! -d "$work/sdist-tree" ]; then
        mkdir -p "$work/sdist-tree"
        tar -xzf "$archive" -C "$work/sdist-tree"
    fi
    local tree
    tree="$(find "$work/sdist-tree" -mindepth 3 -maxdepth 3 -type d -path '*/vendor/llama.cpp' | head -n 1)"
    [ -f "$tree/CMakeLists.txt" ] || fail "$archive vendors no llama.cpp tree"
    echo "$tree"
}

# install <program> <build dir> <bin dir> <description>
install_program() {
    local built
    built="$(find "$2" -type f -name "$1" -perm -u+x | head -n 1)"
    [ -n "$built" ] || fail "the build produced no $1 binary"
    mkdir -p "$3"
    # Copy then rename, so a half-written binary is never taken for a finished one.
    cp "$built" "$3/.$1.tmp"
    mv -f "$3/.$1.tmp" "$3/$1"
    printf '%s\ntarget-cpu %s\n%s\n' "$4" "$cpu" "${cmake_options[*]}" >"$(dirname "$3")/BUILD"
}

# lock <install prefix>: one build at a time per install folder (a developer and CI on one machine).
lock() {
    mkdir -p "$1"
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$1/.build.lock"
        log "waiting for the build lock $1/.build.lock"
        flock 9
    fi
}

# compile <program> <source dir> <description> [cmake option…]: configure, build, install.
compile() {
    local program="$1" source="$2" description="$3" started
    shift 3
    started=$(date +%s)
    log "configuring $program ($description) for target-cpu=$cpu"
    cmake -S "$source" -B "$work/build-$program" "${cmake_options[@]}" "$@" >&2
    log "building $program with $jobs jobs"
    cmake --build "$work/build-$program" --target "$program" -j "$jobs" >&2
    install_program "$program" "$work/build-$program" "$prefix/bin" "$description"
    log "$program built in $(($(date +%s) - started)) s"
}

# ensure <program> <make function>: unless $prefix/bin/<program> exists, take the folder's
# lock and (if no other run built it meanwhile) call the function; print the program's path.
ensure() {
    local bin="$prefix/bin/$1"
    if [ ! -x "$bin" ]; then
        lock "$prefix"
    fi
    if [ ! -x "$bin" ]; then
        "$2"
    else
        log "already built: $bin"
    fi
    echo "$bin"
}

# The crate's tree, with the llama-bench source added and only it in tools/.
make_bench() {
    cargo fetch --locked >&2 || fail "cargo fetch --locked failed (is the crate registry reachable?)"
    local manifest crate_tree sdist
    manifest="$(cargo metadata --locked --format-version 1 2>/dev/null |
        python3 -c 'import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == "llama-cpp-sys-2" and p["version"] == sys.argv[1]:
        print(p["manifest_path"])' "$sys_version")"
    crate_tree="$(dirname "$manifest")/llama.cpp"
    [ -f "$crate_tree/CMakeLists.txt" ] || fail "no llama.cpp tree at $crate_tree (llama-cpp-sys-2 $sys_version)"
    sdist="$(sdist_tree)"
    cp -r "$crate_tree" "$work/bench-src"
    chmod -R u+w "$work/bench-src"
    rm -rf "$work/bench-src/tools/llama-bench"
    cp -r "$sdist/tools/llama-bench" "$work/bench-src/tools/llama-bench"
    printf 'llama_add_compile_flags()\nadd_subdirectory(llama-bench)\n' >"$work/bench-src/tools/CMakeLists.txt"
    compile llama-bench "$work/bench-src" \
        "llama.cpp library of llama-cpp-sys-2 $sys_version; tools/llama-bench of llama-cpp-python $LLAMA_CPP_PYTHON_VERSION" \
        -DLLAMA_BUILD_SERVER=OFF
}

make_server() {
    compile llama-server "$(sdist_tree)" "llama.cpp of llama-cpp-python $LLAMA_CPP_PYTHON_VERSION"
}

build_bench() {
    sys_version="$(awk '/^name = "llama-cpp-sys-2"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
    [ -n "$sys_version" ] || fail "Cargo.lock pins no llama-cpp-sys-2"
    prefix="$cache_root/llama.cpp/llama-cpp-sys-2-$sys_version-$cpu"
    ensure llama-bench make_bench
}

build_server() {
    prefix="$cache_root/llama.cpp/server-llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION-$cpu"
    ensure llama-server make_server
}

case "$what" in
    bench) build_bench ;;
    server) build_server ;;
    all) build_bench; build_server ;;
esac
