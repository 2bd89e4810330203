"""Plain trees of arrays and numbers to bytes and back, safely: what the live monitor's
carried state is stored as outside the process (db.reads.monitor_state).

A tree is None, a bool, an int, a float, a str, a NumPy array of a listed plain dtype
(:data:`DTYPES`), or a tuple, list or str-keyed dict of trees. :func:`pack` writes a JSON
header (the tree's shape, each array as [dtype, shape, offset, bytes]) followed by the
arrays' raw bytes (little-endian, C order); :func:`unpack` reads it back, the arrays equal
bit for bit. Nothing is ever evaluated or imported on the way back (no pickle): an
unlisted dtype, an unknown node, a header or buffer that does not add up is a
:class:`ValueError`.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import numpy as np

#: The dtypes an array may have (object arrays, structured or byte-swapped dtypes: refused).
DTYPES = ("<f8", "<f4", "<i8", "<i4", "|b1", "|u1")
MAGIC = b"TMS1"


def pack(tree: Any) -> bytes:
    """The bytes of ``tree`` (module docstring)."""
    chunks: list[bytes] = []
    offset = [0]

    def node(x: Any) -> Any:
        if x is None or isinstance(x, (bool, str)):
            return {"v": x}
        if isinstance(x, (int, np.integer)) and not isinstance(x, np.bool_):
            return {"i": int(x)}
        if isinstance(x, (float, np.floating)):
            return {"f": repr(float(x))}  # repr keeps every bit, inf and nan included
        if isinstance(x, np.bool_):
            return {"v": bool(x)}
        if isinstance(x, np.ndarray):
            arr = np.ascontiguousarray(x)
            dt = arr.dtype.newbyteorder("<") if arr.dtype.byteorder == ">" else arr.dtype
            arr = arr.astype(dt, copy=False)
            if dt.str not in DTYPES:
                raise ValueError(f"cannot pack an array of dtype {arr.dtype}")
            raw = arr.tobytes()
            chunks.append(raw)
            offset[0] += len(raw)
            return {"a": [dt.str, list(arr.shape), offset[0] - len(raw), len(raw)]}
        if isinstance(x, tuple):
            return {"t": [node(v) for v in x]}
        if isinstance(x, list):
            return {"l": [node(v) for v in x]}
        if isinstance(x, dict):
            if not all(isinstance(k, str) for k in x):
                raise ValueError("only str keys can be packed")
            return {"d": {k: node(v) for k, v in x.items()}}
        raise ValueError(f"cannot pack a {type(x).__name__}")

    header = json.dumps(node(tree), separators=(",", ":")).encode()
    return MAGIC + struct.pack("<I", len(header)) + header + b"".join(chunks)


def unpack(data: bytes) -> Any:
    """The tree :func:`pack` wrote into ``data``; ValueError when ``data`` is not one."""
    data = bytes(data)
    if len(data) < 8 or data[:4] != MAGIC:
        raise ValueError("not a packed monitor state")
    (n,) = struct.unpack("<I", data[4:8])
    if 8 + n > len(data):
        raise ValueError("packed state cut short")
    try:
        header = json.loads(data[8 : 8 + n])
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError("packed state has a broken header") from exc
    body = memoryview(data)[8 + n :]

    def node(h: Any) -> Any:
        if not isinstance(h, dict) or len(h) != 1:
            raise ValueError("packed state has an unknown node")
        ((kind, v),) = h.items()
        if kind == "v" and (v is None or isinstance(v, (bool, str))):
            return v
        if kind == "i" and isinstance(v, int) and not isinstance(v, bool):
            return v
        if kind == "f" and isinstance(v, str):
            return _float(v)
        if kind == "a":
            return _array(v, body)
        if kind in ("t", "l") and isinstance(v, list):
            items = [node(x) for x in v]
            return tuple(items) if kind == "t" else items
        if kind == "d" and isinstance(v, dict):
            return {str(k): node(x) for k, x in v.items()}
        raise ValueError(f"packed state has an unknown node {kind!r}")

    return node(header)


def _float(text: str) -> float:
    try:
        out = float(text)
    except ValueError as exc:
        raise ValueError(f"packed state has a bad number {text[:20]!r}") from exc
    if not (math.isfinite(out) or text in ("inf", "-inf", "nan")):
        raise ValueError(f"packed state has a bad number {text[:20]!r}")
    return out


def _array(spec: Any, body: memoryview) -> np.ndarray:
    if not (isinstance(spec, list) and len(spec) == 4 and spec[0] in DTYPES):
        raise ValueError("packed state has a bad array")
    dt, shape, start, size = spec
    if not (isinstance(shape, list) and all(isinstance(s, int) and s >= 0 for s in shape)):
        raise ValueError("packed state has a bad array shape")
    dtype = np.dtype(dt)
    if not (
        isinstance(start, int)
        and isinstance(size, int)
        and start >= 0
        and start + size <= len(body)
        and size == dtype.itemsize * math.prod(shape)
    ):
        raise ValueError("packed state has an array outside its buffer")  # fmt: skip
    return np.frombuffer(body[start : start + size], dtype=dtype).reshape(shape).copy()
