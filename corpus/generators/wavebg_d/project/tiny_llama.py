"""The team's tiny llama-style instruction model (torchtune component builder, small dims)."""
from torchtune.models.llama3 import llama3


def support_llama_tiny(vocab_size: int = 262, embed_dim: int = 128, num_layers: int = 2, max_seq_len: int = 256):
    return llama3(vocab_size=vocab_size, num_layers=num_layers, num_heads=4, num_kv_heads=2, embed_dim=embed_dim,
                  max_seq_len=max_seq_len, intermediate_dim=2 * embed_dim)
