#!/usr/bin/env bash
# Re-record the decoder-LLM flow's failure fixtures (tests/llm_flow.rs reads them): each is the
# real output of a flow script on a small project in a scratch folder, with the fault made by an
# aipc.toml edit or a model change. Needs the executorch-xnnpack venv. Usage: record.sh
# (about 5 minutes). quant-stale.txt comes from the Gemma 3 270M example instead: quality.py on
# its 8da4w program (perplexity over the budget) with aipc.toml naming another scheme.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
py="${AIPC_CACHE_DIR:-$HOME/.cache/aipc}/toolchains/executorch-xnnpack/venv/bin/python"
flow="$root/toolbox/flows/llm"
export PYTHONPATH="$root/toolbox/lib" AIPC_TOOLBOX="$root/toolbox" QNN_SDK_ROOT= \
    AIPC_TARGET_DIR="$root/toolbox/targets/llm-executorch-xnnpack"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$root/examples/llm-llama-tiny" "$work/p"
cd "$work/p"
run() { local out="$1"; shift; "$py" "$flow/$1" "${@:2}" > "$here/$out" 2>&1 || true; tail -n 1 "$here/$out"; }
set_key() { sed -i "s/^$1 = .*/$1 = $2/" aipc.toml; grep -q "^$1 = " aipc.toml || sed -i "/^\[project\]/a $1 = $2" aipc.toml; }

set_key llm_cache_len 200; run cache-too-short.txt reference.py
set_key llm_cache_len 2048; run cache-over-positions.txt reference.py
set_key llm_cache_len 320; run no-reference.txt export.py
"$py" "$flow/reference.py" > /dev/null 2>&1
run no-program.txt prefill.py
set_key llm_cache_len 330; run stale-reference.txt export.py
set_key llm_cache_len 320; "$py" "$flow/export.py" > /dev/null 2>&1
set_key llm_cache_len 330; run stale-program.txt verify.py
set_key llm_cache_len 320
AIPC_LLM_MEMORY_MB=500 run memory.txt export.py
# The model changed after the program was built: the program decodes another model.
sed -i 's/torch.manual_seed(0)/torch.manual_seed(5)/' model.py
"$py" "$flow/reference.py" > /dev/null 2>&1
run decode-divergence.txt decode.py
sed -i 's/torch.manual_seed(5)/torch.manual_seed(0)/' model.py
"$py" "$flow/reference.py" > /dev/null 2>&1
run quant-unrecorded.txt quantize.py --args-json '{"scheme": "8da8w", "group_size": 0}'
run quant-lowering.txt quantize.py --args-json '{"scheme": "8w", "group_size": 0}'
"$py" "$flow/quantize.py" > /dev/null 2>&1
set_key llm_ppl_budget_pct 1; run quant-sweep.txt sweep.py
set_key llm_group_size 16; run group-size.txt quantize.py
set_key llm_group_size 32
# A quantized program built for a shorter cache than the reference's windows.
set_key llm_ppl_budget_pct 10; set_key llm_cache_len 300
"$py" "$flow/reference.py" > /dev/null 2>&1; "$py" "$flow/quantize.py" > /dev/null 2>&1
set_key llm_cache_len 400; "$py" "$flow/reference.py" > /dev/null 2>&1
run past-cache.txt quality.py
set_key llm_cache_len 320
# Massive activations: one hidden channel entering every MLP scaled up 1000x and its weights
# scaled down to match (the float function is unchanged), as trained LLMs grow them; per-token
# int8 activations then crush every other channel, and no scheme of the sweep keeps the budget.
cat >> model.py <<'PY'


def load_model_with_outlier():
    model = load_model()
    with torch.no_grad():
        for layer in model.model.layers:
            layer.post_attention_layernorm.weight[7] *= 1000.0
            layer.mlp.gate_proj.weight[:, 7] /= 1000.0
            layer.mlp.up_proj.weight[:, 7] /= 1000.0
    return model
PY
sed -i 's/^model = .*/model = "model:load_model_with_outlier"/' aipc.toml
set_key llm_ppl_budget_pct 2
"$py" "$flow/reference.py" > /dev/null 2>&1
run quant-exhausted.txt sweep.py
sed -i 's/^model = .*/model = "model:load_model"/' aipc.toml
set_key llm_ppl_budget_pct 10
"$py" "$flow/reference.py" > /dev/null 2>&1
# A tokenizer key that is not set, a model that is not a causal LM.
sed -i '/^tokenizer = /d' aipc.toml; run tokenizer-missing.txt reference.py
sed -i '/^\[project\]/a tokenizer = "model:load_tokenizer"' aipc.toml
cat >> model.py <<'PY'


def plain_module():
    return torch.nn.Linear(4, 4)
PY
sed -i 's/^model = .*/model = "model:plain_module"/' aipc.toml; run not-causal-lm.txt reference.py
# A Gemma-class model whose sliding window is shorter than the cache.
cat > "$work/p/gemma_tiny.py" <<'PY'
import torch
from transformers import Gemma3ForCausalLM, Gemma3TextConfig


def load_model():
    torch.manual_seed(0)
    cfg = Gemma3TextConfig(vocab_size=259, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=1, head_dim=16, sliding_window=256)
    return Gemma3ForCausalLM(cfg).eval()
PY
sed -i 's/^model = .*/model = "gemma_tiny:load_model"/' aipc.toml
run cache-over-window.txt reference.py
# Drop the scratch paths from the recorded output.
sed -i "s#$work/p#<project>#g; s#$root#<repo>#g" "$here"/*.txt
