"""The decoder-LLM flow's shared code (docs/llm.md): the project's model and tokenizer, the prompt
set and the bundled perplexity text, the static-KV-cache export to ExecuTorch + XNNPACK, the
runtime program's prefill/decode loop, the eager reference, and the resource guards.

Every phase script imports this; nothing here prints a result line (emit does that).
"""
import gc
import json
import os
import resource
import time

from aipc_toolbox.emit import ToolError, note, rel

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = "build"
REFERENCE = os.path.join(BUILD, "llm_reference.pt")
# Artifacts by quantization scheme: FP32 is "none".
QUANT_SCHEMES = ("none", "8da4w", "8da8w", "8w", "4w")
# How many prompts the decode-parity gate runs to llm_decode_tokens (the longest first).
DECODE_PROMPTS = 4
MIN_PROMPTS = 8


def artifact_path(quant, build=BUILD):
    return os.path.join(build, "llm_fp32.pte" if quant == "none" else f"llm_{quant}.pte")


def peak_rss_mb():
    """This process's peak resident memory so far (MiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


class Phase:
    """Wall time and peak RSS of one phase, for the result line and the report."""

    def __init__(self):
        self.t0 = time.monotonic()

    def fields(self):
        return {"phase_s": round(time.monotonic() - self.t0, 2), "peak_rss_mb": peak_rss_mb()}


# ---------------------------------------------------------------- project: model, tokenizer, text


def bundled_prompts():
    with open(os.path.join(HERE, "prompts.json"), encoding="utf-8") as f:
        return json.load(f)["prompts"]


def bundled_text():
    with open(os.path.join(HERE, "perplexity.txt"), encoding="utf-8") as f:
        return f.read().strip()


def prompts(project):
    """The prompt set: aipc.toml llm_prompts or the bundled one; at least MIN_PROMPTS strings."""
    if project.get("llm_prompts"):
        got = project._call("llm_prompts")
        where = project._where("llm_prompts")
    else:
        got, where = bundled_prompts(), "the bundled prompt set"
    if not isinstance(got, (list, tuple)) or not all(isinstance(p, str) and p.strip() for p in got):
        raise ToolError(f"{where}: the prompt set must be a list of non-empty strings")
    if len(got) < MIN_PROMPTS:
        raise ToolError(f"{where}: {len(got)} prompts; the prefill gate needs at least {MIN_PROMPTS} of several lengths")
    return list(got)


def load_tokenizer(project):
    tok = project._call("tokenizer")
    for attr in ("encode", "decode"):
        if not callable(getattr(tok, attr, None)):
            raise ToolError(f"{project._where('tokenizer')}: {project['tokenizer']} returned {type(tok).__name__}, "
                            f"which has no {attr}(); the flow needs encode(text) -> ids and decode(ids) -> text")
    return tok


def encode(tok, text):
    ids = tok.encode(text)
    if hasattr(ids, "tolist"):
        ids = ids.tolist()
    ids = [int(i) for i in ids]
    if not ids:
        raise ToolError(f"the tokenizer encoded {text[:40]!r} to no tokens")
    return ids


def load_model(project):
    """The project's causal LM in FP32 eval mode, with a static-cache generation config."""
    import torch

    model = project.load_model()
    config = getattr(model, "config", None)
    if config is None or not hasattr(model, "generation_config"):
        raise ToolError(f"{project._where('model')}: {project['model']} returned {type(model).__name__}, which is not a "
                        "transformers causal LM (no config / generation_config); the flow exports "
                        "transformers decoder models with their KV cache")
    if next(model.parameters()).dtype != torch.float32:
        note(f"model loaded in {next(model.parameters()).dtype}; the flow's reference and FP32 program are float32: casting")
        model = model.float()
    return model.eval()


def text_config(model):
    c = model.config
    return c.get_text_config() if hasattr(c, "get_text_config") else c


def sliding_window(model):
    """The model's attention window when any layer slides, else None."""
    c = text_config(model)
    window = getattr(c, "sliding_window", None)
    types = getattr(c, "layer_types", None) or []
    if window and (not types or any("sliding" in t for t in types)):
        return int(window)
    return None


def check_cache_len(project, model, longest_needed):
    """Refuse a cache length the exported program cannot honour, with the numbers to fix it."""
    cache_len = project["llm_cache_len"]
    window = sliding_window(model)
    where = project._where("llm_cache_len")
    if window is not None and cache_len > window:
        raise ToolError(
            f"{where}: llm_cache_len = {cache_len} exceeds the model's sliding attention window ({window} tokens, "
            f"config.sliding_window): the static-cache export gives sliding layers a full cache, so every token past "
            f"position {window} would attend further back than the model was trained to. Set llm_cache_len to at most "
            f"{window}")
    max_pos = getattr(text_config(model), "max_position_embeddings", None)
    if max_pos and cache_len > max_pos:
        raise ToolError(f"{where}: llm_cache_len = {cache_len} exceeds the model's max_position_embeddings ({max_pos}); "
                        f"set it to at most {max_pos}")
    if longest_needed >= cache_len:
        raise ToolError(
            f"{where}: llm_cache_len = {cache_len} cannot hold the longest sequence the gates run ({longest_needed} tokens: "
            f"the longest prompt plus llm_decode_tokens); set llm_cache_len to at least {longest_needed + 1}")


# ---------------------------------------------------------------- memory guard


def available_mb():
    """Memory this process may still use: MemAvailable, capped by the cgroup limit and
    AIPC_LLM_MEMORY_MB (a test or a user can set a smaller ceiling)."""
    avail = None
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) / 1024.0
    except OSError:
        pass
    for path in ("/sys/fs/cgroup/memory.max",):
        try:
            with open(path, encoding="ascii") as f:
                raw = f.read().strip()
            if raw != "max":
                with open("/sys/fs/cgroup/memory.current", encoding="ascii") as f:
                    used = int(f.read().strip())
                left = (int(raw) - used) / 2**20
                avail = left if avail is None else min(avail, left)
        except (OSError, ValueError):
            pass
    override = os.environ.get("AIPC_LLM_MEMORY_MB")
    if override:
        try:
            avail = float(override) if avail is None else min(avail, float(override))
        except ValueError:
            raise ToolError(f"AIPC_LLM_MEMORY_MB={override!r} is not a number of MiB") from None
    return avail


def guard_memory(phase, need_mb, how_to_lower):
    """Stop before a phase whose estimated peak exceeds the memory left, saying what to change."""
    avail = available_mb()
    note(f"{phase}: needs about {need_mb:,.0f} MiB; {'unknown' if avail is None else f'{avail:,.0f} MiB'} available")
    if avail is not None and need_mb > avail:
        raise ToolError(f"{phase} would need about {need_mb:,.0f} MiB but only {avail:,.0f} MiB is available; "
                        f"it was not started. {how_to_lower}")


def param_mb(model):
    """Size of the model's parameters (MiB); a weight shared by two modules counts once."""
    return sum(p.numel() * p.element_size() for p in model.parameters()) / 2**20


def tied_embeddings(model):
    """True when the input embedding and the output head share one weight tensor."""
    try:
        return model.get_input_embeddings().weight is model.get_output_embeddings().weight
    except AttributeError:
        return False


def kv_cache_mb(model, cache_len):
    c = text_config(model)
    heads = getattr(c, "num_key_value_heads", None) or c.num_attention_heads
    head_dim = getattr(c, "head_dim", None) or c.hidden_size // c.num_attention_heads
    return 2 * c.num_hidden_layers * heads * head_dim * cache_len * 4 / 2**20


# Measured on Gemma 3 270M (docs/llm.md): export + XNNPACK lowering peaked at 8.3x the FP32 weights (8.9 GB).
EXPORT_FACTOR = 8.5


def export_need_mb(model, cache_len):
    return EXPORT_FACTOR * param_mb(model) + 2 * kv_cache_mb(model, cache_len) + 600


# ---------------------------------------------------------------- eager reference


def eager_greedy(model, ids, steps):
    """Greedy continuation with the model's own (dynamic) cache: (last-position logits of the
    prompt, generated token ids)."""
    import torch

    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), use_cache=True)
        first = out.logits[0, -1].float().clone()
        past, logits, gen = out.past_key_values, first, []
        for _ in range(steps):
            nxt = int(logits.argmax())
            gen.append(nxt)
            if len(gen) == steps:
                break
            out = model(input_ids=torch.tensor([[nxt]]), past_key_values=past, use_cache=True)
            past, logits = out.past_key_values, out.logits[0, -1].float()
    return first, gen


def chunks_of(ids, size):
    """The text's token ids cut into windows of at most `size` tokens (each evaluated from position 0)."""
    return [ids[i:i + size] for i in range(0, len(ids), size) if len(ids[i:i + size]) >= 2]


def nll_sum(logits, ids):
    """Summed negative log-likelihood of ids[1:] under logits[:-1] (logits: [seq, vocab])."""
    import torch

    logp = torch.log_softmax(logits[:-1].float(), dim=-1)
    target = torch.tensor(ids[1:])
    return float(-logp.gather(1, target[:, None]).sum()), len(ids) - 1


def ppl_of(total, count):
    """exp(mean NLL); inf when the mean is not finite or beyond float range (a broken program)."""
    import math

    mean = total / count
    return math.exp(mean) if math.isfinite(mean) and mean < 700 else float("inf")


def eager_perplexity(model, windows):
    import torch

    total, count = 0.0, 0
    with torch.no_grad():
        for w in windows:
            s, n = nll_sum(model(input_ids=torch.tensor([w])).logits[0], w)
            total, count = total + s, count + n
    return ppl_of(total, count)


def load_reference():
    import torch

    if not os.path.isfile(REFERENCE):
        raise ToolError(f"{REFERENCE}: no eager reference yet; run the reference phase first (tool llm_reference)")
    return torch.load(REFERENCE, weights_only=False)


# ---------------------------------------------------------------- export


def exportable(model, cache_len):
    """The model wrapped with a static KV cache: forward(input_ids [1, seq], cache_position [seq])
    -> logits [1, seq, vocab]; each call at cache_position 0 starts a new sequence."""
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    model.generation_config.use_cache = True
    model.generation_config.cache_implementation = "static"
    return TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=cache_len)


def quantize_in_place(model, scheme, group_size):
    """torchao source-transform quantization of the Linear layers, as ExecuTorch's LLM export does.
    The token embedding stays in float: its quantized form lowers to torchao::dequantize_affine,
    which has no ExecuTorch out variant in 1.5.1 ("Missing out variants")."""
    if scheme == "none":
        return
    from executorch.extension.llm.export.quantize import quantize_model_

    quantize_model_(model, qlinear_config=scheme, qlinear_group_size=group_size, skip_incompatible_shapes=True)


def export_program(model, cache_len, example_len=4):
    """torch.export with a dynamic sequence length (1 .. cache_len - 1), strict (dynamo) tracing."""
    import torch

    wrapped = exportable(model, cache_len)
    ids = torch.zeros((1, example_len), dtype=torch.long)
    seq = torch.export.Dim("seq_len", min=1, max=cache_len - 1)
    with torch.no_grad():
        return wrapped.export(input_ids=ids, cache_position=torch.arange(example_len),
                              dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}}, strict=True)


def lower_to_pte(ep, out_path):
    """XNNPACK delegation and serialization; returns delegation facts."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower

    edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()],
                                       compile_config=EdgeCompileConfig(_check_ir_validity=False))
    counts = delegation(edge.exported_program().graph_module)
    prog = edge.to_executorch()
    os.makedirs(os.path.dirname(out_path) or ".", exist_ok=True)
    tmp = out_path + ".tmp"
    with open(tmp, "wb") as f:
        prog.write_to_file(f)
    os.replace(tmp, out_path)
    del prog, edge
    gc.collect()
    return counts


def delegation(gm):
    """Delegated call count and the ops left outside the delegate (by name, with counts)."""
    delegated, left = 0, {}
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        name = str(getattr(node.target, "__name__", node.target))
        if "executorch_call_delegate" in name:
            delegated += 1
        elif not name.startswith(("getitem", "sym_size", "_assert", "aten.sym", "scalar_tensor")) and "sym" not in name:
            left[name] = left.get(name, 0) + 1
    return {"delegate_calls": delegated, "portable_ops": sum(left.values()),
            "portable_op_names": sorted(left, key=lambda k: -left[k])[:8]}


# ---------------------------------------------------------------- runtime program


class Program:
    """A lowered .pte: prefill(ids) -> logits of every position; step(token, pos) -> logits."""

    def __init__(self, path, cache_len):
        if not os.path.isfile(path):
            raise ToolError(f"{path}: not built yet; run the export phase (tool llm_export) first")
        from executorch.runtime import Runtime

        # The cache the program was built with (its export record), else the one asked for.
        record = os.path.join(os.path.dirname(path), "llm_export_" + os.path.basename(path)[4:-4].replace("fp32", "none")
                              + ".json")
        if os.path.isfile(record):
            with open(record, encoding="utf-8") as f:
                cache_len = int(json.load(f).get("cache_len", cache_len))
        self.path, self.cache_len = path, cache_len
        self.method = Runtime.get().load_program(path).load_method("forward")

    def _run(self, ids, start):
        import torch

        if start + len(ids) > self.cache_len:
            raise ToolError(f"{rel(self.path)}: position {start + len(ids)} is past the program's KV cache "
                            f"({self.cache_len}); raise llm_cache_len and export again")
        out = self.method.execute([torch.tensor([ids], dtype=torch.long),
                                   torch.arange(start, start + len(ids), dtype=torch.long)])
        return out[0][0]

    def prefill(self, ids):
        return self._run(ids, 0)

    def greedy(self, ids, steps):
        """(last-position prompt logits, `steps` greedy tokens), the prompt prefilled in one call."""
        logits = self.prefill(ids)
        first = logits[-1].float().clone()
        gen, pos, cur = [], len(ids), first
        for _ in range(steps):
            nxt = int(cur.argmax())
            gen.append(nxt)
            if len(gen) == steps:
                break
            cur = self._run([nxt], pos)[-1].float()
            pos += 1
        return first, gen

    def perplexity(self, windows):
        total, count = 0.0, 0
        for w in windows:
            s, n = nll_sum(self.prefill(w), w)
            total, count = total + s, count + n
        return ppl_of(total, count)


def cosine(a, b):
    import torch

    return float(torch.nn.functional.cosine_similarity(a.float().flatten(), b.float().flatten(), dim=0))


def first_divergence(ref, got):
    for i, (r, g) in enumerate(zip(ref, got)):
        if r != g:
            return i
    return None if len(ref) == len(got) else min(len(ref), len(got))


def scheme_body(record_prefix, measure):
    """The body of a tool that measures one program: argument `scheme` (default "none", the FP32
    program) → measure(project, scheme), kept in build/llm_<record_prefix>_<scheme>.json."""

    def body(a):
        from aipc_toolbox.project import Project

        scheme = a.get("scheme") or "none"
        fields = measure(Project(), scheme)
        record(f"{record_prefix}_{scheme}", fields)
        return fields

    return body


def record(name, fields, build=BUILD):
    """Keep a phase's result in <build>/llm_<name>.json (the report reads build/'s)."""
    os.makedirs(build, exist_ok=True)
    with open(os.path.join(build, f"llm_{name}.json"), "w", encoding="utf-8") as f:
        json.dump(fields, f, indent=1, default=str)
