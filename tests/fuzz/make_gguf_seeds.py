#!/usr/bin/env python3
"""Writes the small GGUF seeds in seeds/gguf (committed; rerun after changing).

The fixture models are megabytes, mostly tensor data the fuzzer cannot get
past; these seeds are a few hundred bytes each and valid, so mutations start
from files that parse: every metadata value type (nested arrays included),
tensors of several ggml types, a custom alignment, a GGUF v2 header and a tiny
byte-level BPE vocabulary the tokenizer factory accepts.
"""
import os
import struct

U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)
SCALAR = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f",
          BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}


def string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def value(t, v):
    if t == STR:
        return string(v)
    if t == ARR:
        et, items = v
        return struct.pack("<IQ", et, len(items)) + b"".join(value(et, i) for i in items)
    return struct.pack(SCALAR[t], v)


def gguf(kv, tensors, version=3, alignment=32):
    """kv: [(key, type, value)]; tensors: [(name, ggml_type, ne, data)]."""
    head = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kv))
    for key, t, v in kv:
        head += string(key) + struct.pack("<I", t) + value(t, v)
    offset, data = 0, b""
    for name, ggml_type, ne, blob in tensors:
        head += string(name) + struct.pack("<I", len(ne))
        head += b"".join(struct.pack("<Q", n) for n in ne)
        head += struct.pack("<IQ", ggml_type, offset)
        pad = (-len(blob)) % alignment
        data += blob + b"\0" * pad
        offset += len(blob) + pad
    head += b"\0" * ((-len(head)) % alignment)
    return head + data


F32_T, F16_T, Q8_0_T = 0, 1, 8
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "gguf")
os.makedirs(here, exist_ok=True)

every_type = [
    ("general.architecture", STR, "llama"), ("general.name", STR, "seed"),
    ("u8", U8, 7), ("i8", I8, -7), ("u16", U16, 700), ("i16", I16, -700),
    ("u32", U32, 70000), ("i32", I32, -70000), ("f32", F32, 0.5), ("bool", BOOL, True),
    ("u64", U64, 2**40), ("i64", I64, -2**40), ("f64", F64, 1e-3),
    ("floats", ARR, (F32, [1.0, 2.0, 3.0])), ("ints", ARR, (I32, [1, -2, 3])),
    ("strings", ARR, (STR, ["a", "bc", ""])),
    ("nested", ARR, (ARR, [(U8, [1, 2]), (U8, [])])),
    ("llama.block_count", U32, 1), ("llama.context_length", U32, 64),
    ("llama.embedding_length", U32, 8), ("llama.attention.head_count", U32, 2),
]
tensors = [
    ("token_embd.weight", F32_T, [8, 4], struct.pack("<32f", *range(32))),
    ("output_norm.weight", F16_T, [8], b"\0\x3c" * 8),
    ("blk.0.attn_q.weight", Q8_0_T, [32, 1], struct.pack("<e", 0.5) + bytes(range(32))),
]
tokens = ["!", "a", "b", "ab", "Ġ", "Ġa", "<|endoftext|>"]
vocab = [
    ("general.architecture", STR, "qwen2"),
    ("tokenizer.ggml.model", STR, "gpt2"), ("tokenizer.ggml.pre", STR, "qwen2"),
    ("tokenizer.ggml.tokens", ARR, (STR, tokens)),
    ("tokenizer.ggml.token_type", ARR, (I32, [1, 1, 1, 1, 1, 1, 3])),
    ("tokenizer.ggml.merges", ARR, (STR, ["a b", "Ġ a"])),
    ("tokenizer.ggml.eos_token_id", U32, 6), ("tokenizer.ggml.bos_token_id", U32, 6),
]
spm_tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)] + ["▁", "▁a", "a"]
spm = [
    ("general.architecture", STR, "llama"),
    ("tokenizer.ggml.model", STR, "llama"),
    ("tokenizer.ggml.tokens", ARR, (STR, spm_tokens)),
    ("tokenizer.ggml.scores", ARR, (F32, [0.0] * len(spm_tokens))),
    ("tokenizer.ggml.token_type", ARR, (I32, [2, 3, 3] + [6] * 256 + [1, 1, 1])),
    ("tokenizer.ggml.bos_token_id", U32, 1), ("tokenizer.ggml.eos_token_id", U32, 2),
]
seeds = {
    "every_type.gguf": gguf(every_type, tensors),
    "aligned_64.gguf": gguf([("general.alignment", U32, 64)] + every_type[:3], tensors[:2],
                            alignment=64),
    "version2.gguf": gguf(every_type[:5], tensors[:1], version=2),
    "no_tensors.gguf": gguf([("general.architecture", STR, "gpt2")], []),
    "bpe_vocab.gguf": gguf(vocab, []),
    "spm_vocab.gguf": gguf(spm, []),
}
for name, blob in seeds.items():
    with open(os.path.join(here, name), "wb") as f:
        f.write(blob)
