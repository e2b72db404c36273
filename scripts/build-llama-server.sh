#!/usr/bin/env bash
# Build the real `llama-server` and `llama-bench` from the very llama.cpp tree that aipc links
# in-process (the one vendored by the llama-cpp-sys-2 crate that Cargo.lock pins), with the
# flags llama-cpp-sys-2's build script gives it, and install them into the aipc cache:
#
#   ${AIPC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/aipc}/llama.cpp/llama-cpp-sys-2-<version>-<cpu>/bin/
#
# Same tree, same flags: `aipc bench model` compares the in-process model against llama-bench
# like with like, and the HTTP-backend tests talk to a server with the same kernels.
#
# The CPU baseline is the `target-cpu` of .cargo/config.toml (x86-64-v3: AVX2/FMA/F16C/BMI2,
# which every x86-64 machine of this kind runs), mapped to llama.cpp's GGML_* options exactly as
# llama-cpp-sys-2 maps Rust's target features (`rustc --print cfg`); GGML_NATIVE stays off, so
# the binaries run on any such host (a GGML_NATIVE build on a CPU that advertises AMX dies with
# SIGILL where the hypervisor does not enable AMX tile state). AIPC_TARGET_CPU=native opts in
# to a build for this machine only.
#
# Skipped when both binaries are already there, so a machine builds once. Progress goes to
# stderr; the last line on stdout is the bin folder:
#
#   bin="$(scripts/build-llama-server.sh | tail -n 1)"
#
# Needs cargo (to find the crate's source), cmake, g++ and make (installed with apt-get when
# missing and running as root). About 6 minutes on 2 cores.
#
# Environment: AIPC_CACHE_DIR, XDG_CACHE_HOME (where to install), AIPC_BUILD_JOBS (default:
# the number of cores), AIPC_TARGET_CPU (default: from .cargo/config.toml).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[build-llama-server] %s\n' "$*" >&2; }
fail() { log "error: $*"; exit 1; }

# The llama-cpp-sys-2 crate Cargo.lock pins, and its source folder (cargo fetches it if needed).
sys_version="$(awk '/^name = "llama-cpp-sys-2"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
[ -n "$sys_version" ] || fail "Cargo.lock pins no llama-cpp-sys-2"
cargo fetch --locked >&2 || fail "cargo fetch --locked failed (is the crate registry reachable?)"
manifest="$(cargo metadata --locked --format-version 1 2>/dev/null |
    python3 -c 'import json, sys
v = sys.argv[1]
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == "llama-cpp-sys-2" and p["version"] == v:
        print(p["manifest_path"])' "$sys_version")"
src="$(dirname "$manifest")/llama.cpp"
[ -f "$src/CMakeLists.txt" ] || fail "no llama.cpp tree at $src (llama-cpp-sys-2 $sys_version)"
[ -d "$src/tools/server" ] && [ -d "$src/tools/llama-bench" ] ||
    fail "$src does not vendor tools/server and tools/llama-bench"

cpu="${AIPC_TARGET_CPU:-$(sed -n 's/.*"target-cpu=\([^"]*\)".*/\1/p' .cargo/config.toml | head -n 1)}"
cpu="${cpu:-x86-64}"

cache_root="${AIPC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/aipc}"
prefix="$cache_root/llama.cpp/llama-cpp-sys-2-$sys_version-$cpu"
bin_dir="$prefix/bin"
jobs="${AIPC_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"

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
        fail "missing ${missing[*]}: install them (e.g. apt-get install -y ${missing[*]}) and run again"
    fi
fi

# The CPU options, as llama-cpp-sys-2's build script sets them for this target-cpu.
cpu_flags=()
if [ "$cpu" = "native" ]; then
    cpu_flags+=(-DGGML_NATIVE=ON)
else
    # The compiler flags of llama-cpp-sys-2's CMake build (the cmake and cc crates' defaults plus
    # -march), so that ccache, where .ci/run enables it, reuses the crate's objects.
    common="-march=$cpu -ffunction-sections -fdata-sections -fPIC -m64 -w"
    cpu_flags+=(-DGGML_NATIVE=OFF "-DCMAKE_C_FLAGS=$common" "-DCMAKE_CXX_FLAGS=$common")
    features="$(rustc --print cfg -C "target-cpu=$cpu" | sed -n 's/^target_feature="\(.*\)"$/\1/p')"
    for feature in $features; do
        case "$feature" in
            avx) cpu_flags+=(-DGGML_AVX=ON) ;;
            avx2) cpu_flags+=(-DGGML_AVX2=ON) ;;
            avx512bf16) cpu_flags+=(-DGGML_AVX512_BF16=ON) ;;
            avx512vbmi) cpu_flags+=(-DGGML_AVX512_VBMI=ON) ;;
            avx512vnni) cpu_flags+=(-DGGML_AVX512_VNNI=ON) ;;
            avxvnni) cpu_flags+=(-DGGML_AVX_VNNI=ON) ;;
            bmi2) cpu_flags+=(-DGGML_BMI2=ON) ;;
            f16c) cpu_flags+=(-DGGML_F16C=ON) ;;
            fma) cpu_flags+=(-DGGML_FMA=ON) ;;
            sse4.2) cpu_flags+=(-DGGML_SSE42=ON) ;;
        esac
    done
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/aipc-llama-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT

started=$(date +%s)
log "configuring llama.cpp of llama-cpp-sys-2 $sys_version for target-cpu=$cpu: ${cpu_flags[*]}"
# Release, GGML_OPENMP=OFF and static libraries like aipc's in-process build (.cargo/config.toml
# sets LLAMA_LIB_PROFILE=Release; Cargo.toml and README "Model speed and threads" say why no
# OpenMP). CMAKE_<LANG>_COMPILER_LAUNCHER=ccache in the environment is honoured by CMake.
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DBUILD_SHARED_LIBS=OFF -DGGML_OPENMP=OFF "${cpu_flags[@]}" >&2
log "building llama-server and llama-bench with $jobs jobs"
cmake --build "$work/build" --target llama-server llama-bench -j "$jobs" >&2

mkdir -p "$bin_dir"
for tool in llama-server llama-bench; do
    built="$(find "$work/build" -type f -name "$tool" -perm -u+x | head -n 1)"
    [ -n "$built" ] || fail "the build produced no $tool binary"
    # Copy then rename, so a half-written binary is never taken for a finished one.
    cp "$built" "$bin_dir/.$tool.tmp"
    mv -f "$bin_dir/.$tool.tmp" "$bin_dir/$tool"
done
printf 'llama-cpp-sys-2 %s\ntarget-cpu %s\n%s\n' "$sys_version" "$cpu" "${cpu_flags[*]}" >"$prefix/BUILD"
log "built in $(($(date +%s) - started)) s: $bin_dir"
echo "$bin_dir"
