"""Atomic file writes and format detection shared by snapshots and ledger files."""

from __future__ import annotations

import gc
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import msgpack

from .errors import InvalidInputError, InvalidTypeError, SnapshotError


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never half.

    The bytes go to a temporary file in the same directory, are fsynced, and replace the
    target in one rename; the directory is fsynced too so the rename survives a crash.
    """
    check_path(path)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dir_fd = os.open(target.parent, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def format_for(path: str | os.PathLike[str], fmt: str | None, default: str) -> str:
    """Pick ``"json"`` or ``"msgpack"`` from an explicit format or the file's suffix."""
    check_path(path)
    if fmt is not None and type(fmt) is not str:
        raise InvalidInputError(f"unknown format {fmt!r}: use 'json' or 'msgpack'")
    if fmt is None:
        suffix = Path(path).suffix.lower()
        fmt = {".json": "json", ".msgpack": "msgpack", ".mp": "msgpack", ".cor": "msgpack"}.get(
            suffix, default
        )
    if fmt not in ("json", "msgpack"):
        raise InvalidInputError(f"unknown format {fmt!r}: use 'json' or 'msgpack'")
    return fmt


_FLOAT_TAG = "$float"


def _box(data: Any) -> Any:
    """Non-finite floats as ``{"$float": "inf"}``: JSON has no infinity, promises do."""
    if isinstance(data, float):
        return data if math.isfinite(data) else {_FLOAT_TAG: repr(data)}
    if isinstance(data, dict):
        return {k: _box(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_box(v) for v in data]
    return data


def _unbox(obj: dict[str, Any]) -> Any:
    if len(obj) == 1 and _FLOAT_TAG in obj:
        return float(obj[_FLOAT_TAG])
    return obj


def encode(data: Any, fmt: str) -> bytes:
    """Serialise plain data as JSON (UTF-8) or msgpack."""
    if fmt == "json":
        return json.dumps(_box(data), ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False).encode()
    return msgpack.packb(data, use_bin_type=True)


def check_path(path: object) -> None:
    """A file path is a ``str`` or an ``os.PathLike``."""
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidTypeError(f"a path must be a str or os.PathLike, not {type(path).__name__}")


def decode_file(path: str | os.PathLike[str], expected: str) -> Any:
    """Read a JSON or msgpack file (sniffed), raising :class:`SnapshotError` naming the path."""
    check_path(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise SnapshotError(f"cannot read {expected}: {exc}", path) from exc
    return decode_bytes(raw, expected, path)


def decode_bytes(raw: bytes, expected: str, where: object = None) -> Any:
    """Decode JSON or msgpack bytes (sniffed); ``where`` names the source in errors."""
    if not raw:
        raise SnapshotError(f"empty, not a {expected}", where)
    enabled = gc.isenabled()
    gc.disable()  # decoding builds many containers and frees none: skip the collector's passes
    try:
        if raw[:1] in (b"{", b"[", b" ", b"\n"):
            return json.loads(raw.decode("utf-8"), object_hook=_unbox)
        return msgpack.unpackb(raw, raw=False, strict_map_key=False)
    except (ValueError, UnicodeDecodeError, msgpack.exceptions.ExtraData,
            msgpack.exceptions.UnpackException) as exc:
        raise SnapshotError(f"corrupt or truncated {expected} ({exc.__class__.__name__}: {exc})",
                            where) from exc
    finally:
        if enabled:
            gc.enable()
