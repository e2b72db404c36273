"""A Qwen-class decoder (Qwen3: per-head q/k RMSNorm, grouped-query attention, tied input and
output embeddings) built from a transformers config with fixed-seed random weights (no hub
download), and a UTF-8 byte tokenizer without a BOS token, as Qwen's tokenizers have none.
"""
import torch
from transformers import Qwen3Config, Qwen3ForCausalLM

ENDOFTEXT = 256  # the only special token, after the 256 byte values


class Utf8Tokenizer:
    vocab_size = 257

    def encode(self, text):
        return list(text.encode("utf-8"))

    def decode(self, ids):
        return bytes(i for i in ids if i < 256).decode("utf-8", "replace")


def load_tokenizer():
    return Utf8Tokenizer()


def load_model():
    torch.manual_seed(1)
    config = Qwen3Config(vocab_size=Utf8Tokenizer.vocab_size, hidden_size=192, intermediate_size=512,
                         num_hidden_layers=3, num_attention_heads=6, num_key_value_heads=2, head_dim=32,
                         max_position_embeddings=2048, tie_word_embeddings=True, use_sliding_window=False,
                         bos_token_id=None, eos_token_id=ENDOFTEXT, pad_token_id=ENDOFTEXT)
    return Qwen3ForCausalLM(config).eval()


def example_inputs():
    tok = Utf8Tokenizer()
    return (torch.tensor([tok.encode("quiet river"), tok.encode("small brook")]),)
