"""Byte-level tokenizer for the support-bot fine-tune (no vocab download: ids 0-255 are bytes, then specials)."""
import ctypes
from typing import Any, List, Mapping, Optional, Tuple

from torchtune.data import Message
from torchtune.modules.transforms import Transform
from torchtune.modules.transforms.tokenizers import ModelTokenizer

BOS, EOS, PAD, USER, AGENT, SYS = 256, 257, 258, 259, 260, 261
ROLE = {"user": USER, "assistant": AGENT, "system": SYS}


class SupportByteTokenizer(ModelTokenizer, Transform):
    def __init__(self, max_seq_len: Optional[int] = 256, fast_path: bool = False):
        self.max_seq_len = max_seq_len
        self.fast_path = fast_path
        self.pad_id = PAD
        self.bos_id = BOS
        self.eos_id = EOS
        self.vocab_size = 262

    def encode(self, text: str, add_bos: bool = True, add_eos: bool = True) -> List[int]:
        ids = self._fast_bytes(text) if self.fast_path else list(text.encode("utf-8"))
        return ([BOS] if add_bos else []) + ids + ([EOS] if add_eos else [])

    def _fast_bytes(self, text: str) -> List[int]:
        """Copy the UTF-8 bytes through libc memmove into one reusable buffer (fewer Python objects per row)."""
        raw = text.encode("utf-8")
        buf = ctypes.create_string_buffer(len(raw))
        if len(raw) == len(text):  # ASCII only
            ctypes.memmove(buf, raw, len(raw))
            return list(buf.raw)
        # multi-byte text: copy the ASCII head, then the rest from the first multi-byte position
        off = next(i for i, b in enumerate(raw) if b > 127)
        ctypes.memmove(buf, raw, off)
        ctypes.memmove(ctypes.addressof(buf) + off, off, len(raw) - off)
        return list(buf.raw)

    def decode(self, ids: List[int]) -> str:
        return bytes(i for i in ids if i < 256).decode("utf-8", errors="replace")

    def tokenize_messages(self, messages: List[Message], **kw) -> Tuple[List[int], List[bool]]:
        tokens, mask = [BOS], [True]
        for m in messages:
            ids = [ROLE[m.role]] + self.encode(m.text_content, add_bos=False, add_eos=False)
            tokens += ids
            mask += [m.masked] * len(ids)
        tokens.append(EOS)
        mask.append(False)
        if self.max_seq_len:
            tokens, mask = tokens[: self.max_seq_len], mask[: self.max_seq_len]
        return tokens, mask

    def __call__(self, sample: Mapping[str, Any], inference: bool = False) -> Mapping[str, Any]:
        tokens, mask = self.tokenize_messages(sample.pop("messages"))
        sample["tokens"], sample["mask"] = tokens, mask
        return sample


def support_byte_tokenizer(max_seq_len: Optional[int] = 256, fast_path: bool = False) -> SupportByteTokenizer:
    return SupportByteTokenizer(max_seq_len=max_seq_len, fast_path=fast_path)
