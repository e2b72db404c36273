"""A Llama-class decoder built from a transformers config with fixed-seed random weights (no hub
download), and a byte-level tokenizer. It shows the decoder-LLM flow on an architecture other
than Gemma: rotary positions, grouped-query attention (4 query heads per KV head), RMSNorm,
SwiGLU, untied embeddings.
"""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

BOS, EOS, BYTE0 = 1, 2, 3


class ByteTokenizer:
    """UTF-8 bytes shifted past the special ids; BOS first."""

    vocab_size = 256 + BYTE0

    def encode(self, text):
        return [BOS] + [b + BYTE0 for b in text.encode("utf-8")]

    def decode(self, ids):
        return bytes(i - BYTE0 for i in ids if i >= BYTE0).decode("utf-8", "replace")


def load_tokenizer():
    return ByteTokenizer()


def load_model():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=ByteTokenizer.vocab_size, hidden_size=256, intermediate_size=688,
                         num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2,
                         max_position_embeddings=1024, rope_theta=10000.0, tie_word_embeddings=False,
                         bos_token_id=BOS, eos_token_id=EOS, pad_token_id=0)
    return LlamaForCausalLM(config).eval()


def example_inputs():
    tok = ByteTokenizer()
    return (torch.tensor([tok.encode("hello world"), tok.encode("good night!")]),)
