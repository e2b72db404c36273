#!/usr/bin/env bash
# Decode speed of llama.cpp on the default model with OpenMP on and off, 1 and 2 threads, on an
# idle machine and with one core kept busy (as a toolchain process or the TUI would) — the
# figures behind aipc's default thread count and build features.
#
# Usage: scripts/bench-threads.sh <llama-bench with OpenMP> <llama-bench without OpenMP> [model.gguf]
# Prints one line per configuration: build, threads, load, decode tokens/s.
set -euo pipefail
omp="$1"
noomp="$2"
model="${3:-${AIPC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/aipc}/models/gemma-3-270m-q4_k_m.gguf}"

decode_tps() { # binary threads
    "$1" -m "$model" -t "$2" -p 0 -n 64 -r 3 -o json 2>/dev/null |
        python3 -c 'import json,sys; print(round(json.load(sys.stdin)[0]["avg_ts"], 1))'
}

busy_pid=""
stop_busy() { [ -n "$busy_pid" ] && kill "$busy_pid" 2>/dev/null || true; busy_pid=""; }
trap stop_busy EXIT

printf '%-8s %-7s %-10s %s\n' build threads load decode_tok_s
for load in idle one-core-busy; do
    if [ "$load" = one-core-busy ]; then
        sh -c 'while :; do :; done' &
        busy_pid=$!
    fi
    for build in openmp no-openmp; do
        bin="$omp"; [ "$build" = no-openmp ] && bin="$noomp"
        for threads in 1 2; do
            printf '%-8s %-7s %-10s %s\n' "$build" "$threads" "$load" "$(decode_tps "$bin" "$threads")"
        done
    done
    stop_busy
done
