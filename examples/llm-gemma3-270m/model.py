"""Gemma 3 270M with real weights: the GGUF aipc runs as its own model (Q4_K_M), loaded by
transformers as a PyTorch Gemma3ForCausalLM (dequantized to float32; needs the gguf and
accelerate packages). Nothing is downloaded: the file is the one `aipc model fetch` puts in the
aipc cache ($AIPC_CACHE_DIR, default ~/.cache/aipc), or $AIPC_GGUF.
"""
import os

GGUF_NAME = "gemma-3-270m-q4_k_m.gguf"


def gguf_path():
    given = os.environ.get("AIPC_GGUF")
    if given:
        return given
    cache = os.environ.get("AIPC_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "aipc")
    path = os.path.join(cache, "models", GGUF_NAME)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: the Gemma 3 270M GGUF is not there; run `aipc model fetch` (or set AIPC_GGUF)")
    return path


def load_tokenizer():
    from transformers import AutoTokenizer

    path = gguf_path()
    return AutoTokenizer.from_pretrained(os.path.dirname(path), gguf_file=os.path.basename(path))


def load_model():
    import torch
    from transformers import AutoModelForCausalLM

    path = gguf_path()
    model = AutoModelForCausalLM.from_pretrained(os.path.dirname(path), gguf_file=os.path.basename(path),
                                                 dtype=torch.float32)
    return model.eval()


def example_inputs():
    import torch

    tok = load_tokenizer()
    a, b = tok.encode("The capital of France is"), tok.encode("Water boils at one hundred")
    n = min(len(a), len(b))
    return (torch.tensor([a[:n], b[:n]]),)
