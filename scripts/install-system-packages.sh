#!/usr/bin/env bash
# Install the Debian packages aipc needs and that are missing: cmake, clang and libclang-dev
# (llama-cpp-sys-2 compiles llama.cpp and runs bindgen), g++ and make, git, python3 with pip and
# venv (the toolchains and `aipc model fetch`), bubblewrap (the sandbox every session command
# runs in), and tmux and openssh-server (only with --tests: the end-to-end terminal tests, and the
# device runner's tests, which start an OpenSSH server on localhost; tests/device.rs). Nothing
# happens when all are present. Needs root for apt-get; otherwise it
# prints the command to run and exits 1.
#
# Usage: scripts/install-system-packages.sh [--tests]
set -euo pipefail

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v clang >/dev/null || need+=(clang)
[ -n "$(find /usr/lib /usr/lib64 -name 'libclang*.so*' -print -quit 2>/dev/null)" ] || need+=(libclang-dev)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v git >/dev/null || need+=(git)
command -v python3 >/dev/null || need+=(python3)
python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need+=(python3-venv)
command -v bwrap >/dev/null || need+=(bubblewrap)
if [ "${1:-}" = "--tests" ]; then
    command -v tmux >/dev/null || need+=(tmux)
    [ -x /usr/sbin/sshd ] || need+=(openssh-server)
    command -v ssh >/dev/null || need+=(openssh-client)
fi
if [ "${#need[@]}" -eq 0 ]; then
    echo "[system packages] all present" >&2
    exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "[system packages] missing: ${need[*]}; install them, e.g.: sudo apt-get install -y ${need[*]}" >&2
    exit 1
fi
echo "[system packages] installing ${need[*]} with apt-get" >&2
apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
