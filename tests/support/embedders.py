"""A small deterministic embedder for tests: hashed character trigrams (nothing downloads a
model)."""

from __future__ import annotations

import hashlib

import numpy as np


def trigrams(texts, dim=256):
    out = np.zeros((len(texts), dim))
    for i, text in enumerate(texts):
        padded = f"  {text.casefold()}  "
        for j in range(len(padded) - 2):
            h = int.from_bytes(hashlib.blake2b(padded[j:j + 3].encode(), digest_size=4).digest(),
                               "little")
            out[i, h % dim] += 1.0
    return out
