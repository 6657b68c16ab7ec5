"""Atomic file writes and format detection shared by snapshots and ledger files."""

from __future__ import annotations

import contextlib
import errno
import gc
import json
import math
import os
import secrets
import stat
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

from .errors import InvalidInputError, InvalidTypeError, SnapshotError

#: Files larger than this are refused unread (4 GiB); see :func:`max_file_bytes`.
DEFAULT_MAX_FILE_BYTES = 4 * 2**30
#: Environment variable overriding :data:`DEFAULT_MAX_FILE_BYTES` (a positive integer).
MAX_FILE_BYTES_ENV = "COROLLARY_MAX_FILE_BYTES"

ErrorType = Callable[[str, object], Exception]


def max_file_bytes(value: object = None) -> int:
    """The size bound for files read whole: ``value``, else ``$COROLLARY_MAX_FILE_BYTES``, else
    :data:`DEFAULT_MAX_FILE_BYTES`.

    An invalid argument raises; an invalid environment value warns and falls back to the
    default, so a typo in a deployment's environment never stops a load.

    >>> max_file_bytes(1024)
    1024
    """
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidTypeError(f"max_file_bytes must be an int, not {type(value).__name__}")
        if value < 1:
            raise InvalidInputError(f"max_file_bytes must be >= 1, got {value}")
        return value
    raw = os.environ.get(MAX_FILE_BYTES_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_FILE_BYTES
    try:
        parsed = int(raw)
    except ValueError:
        parsed = 0
    if parsed < 1:
        warnings.warn(f"ignoring {MAX_FILE_BYTES_ENV}={raw!r} (not a positive integer); using "
                      f"{DEFAULT_MAX_FILE_BYTES}", RuntimeWarning, stacklevel=3)
        return DEFAULT_MAX_FILE_BYTES
    return parsed


def os_cause(exc: OSError) -> str:
    """``"No space left on device (ENOSPC)"``: the cause of an ``OSError``, without its path."""
    code = errno.errorcode.get(exc.errno or 0)
    text = exc.strerror or str(exc)
    return f"{text} ({code})" if code else text


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, for error messages."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def read_regular(path: str | os.PathLike[str], what: str, error: ErrorType, *,
                 limit: int | None = None, kind_error: ErrorType | None = None,
                 setting: str = MAX_FILE_BYTES_ENV) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Never blocks and never reads without bound: the file is opened non-blocking (a FIFO
    without a writer opens at once) and refused by ``fstat`` unless it is a regular file
    (``kind_error``, default ``error``), and a file larger than the bound is refused unread
    (``error``, naming ``setting``). A missing file raises ``FileNotFoundError``; every other
    ``OSError`` becomes ``error(message, path)``.
    """
    bound = max_file_bytes(limit)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(
        os, "O_CLOEXEC", 0)
    try:
        # stat first: opening a device at all can have effects; fstat below catches a swap
        _check_regular(os.stat(path).st_mode, path, what, kind_error or error)
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise error(f"cannot read the {what}: {os_cause(exc)}", path) from exc
    try:
        st = os.fstat(fd)
        _check_regular(st.st_mode, path, what, kind_error or error)
        if st.st_size > bound:
            raise error(f"the {what} is {st.st_size} bytes, more than the bound of {bound} "
                        f"bytes; raise it with {setting} to read it", path)
        chunks = []
        size = 0
        # the file may grow while it is read: read past its size, up to the bound
        while True:
            want = max(st.st_size - size, 0) + (1 << 16)
            chunk = os.read(fd, min(want, bound + 1 - size, 1 << 30))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > bound:
                raise error(f"the {what} grew past the bound of {bound} bytes while it was "
                            f"read; raise it with {setting} to read it", path)
        return b"".join(chunks)
    except OSError as exc:
        raise error(f"cannot read the {what}: {os_cause(exc)}", path) from exc
    finally:
        os.close(fd)


def _check_regular(mode: int, path: object, what: str, error: ErrorType) -> None:
    if not stat.S_ISREG(mode):
        raise error(f"{kind_of(mode)}, not a regular file: not a {what}; left untouched", path)


def atomic_write(path: str | os.PathLike[str], data: bytes, *, what: str = "file",
                 error: ErrorType = SnapshotError) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never half.

    The bytes go to a temporary file in the same directory, are fsynced, and replace the
    target in one rename; the directory is fsynced too so the rename survives a crash. A file
    that exists keeps its mode (and, where the user may set it, its owner and group); a new
    one gets ``0o666`` less the umask, as any file the process creates. A full disk, a
    file-size limit, a directory that cannot be written or a target that is not a regular
    file raise ``error(message, path)`` (default :class:`SnapshotError`) naming the cause,
    and leave the old file as it was.
    """
    check_path(path)
    target = Path(path)
    try:
        _atomic_write(target, data, what, error)
    except OSError as exc:
        raise error(f"cannot write the {what}: {os_cause(exc)}; the previous file, if any, is "
                    "unchanged", path) from exc


def _atomic_write(target: Path, data: bytes, what: str, error: ErrorType) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        old: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise error(f"{kind_of(old.st_mode)}, not a regular file: refusing to replace it with "
                    f"the {what}", target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        # a short name: the target's may already be as long as the file system allows
        tmp = target.parent / f".{target.name[:64]}.{secrets.token_hex(6)}.tmp"
        try:
            # a new file is created 0o666 and the kernel applies the umask (and default ACLs);
            # an existing file's mode is copied below
            fd = os.open(tmp, flags, 0o666 if old is None else 0o600)
            break
        except FileExistsError:  # pragma: no cover - 48 random bits collided
            continue
    try:
        try:
            if old is not None:
                _keep_owner_and_mode(fd, old)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    try:
        dir_fd = os.open(target.parent, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    """Give the new file the old one's owner and group where allowed, then its mode."""
    # chown first: it clears set-id bits that the chmod below then restores
    for uid in (old.st_uid, -1):  # root may keep the owner; anyone may keep a group they are in
        try:
            os.fchown(fd, uid, old.st_gid)
            break
        except OSError:
            continue
    os.fchmod(fd, stat.S_IMODE(old.st_mode))


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
    """A file path is a non-empty ``str`` or ``os.PathLike`` the file system can name."""
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidTypeError(f"a path must be a str or os.PathLike, not {type(path).__name__}")
    try:
        text = os.fspath(path)
    except TypeError as exc:
        raise InvalidTypeError(f"a path's __fspath__ must return a str ({exc})") from None
    if not isinstance(text, str):
        raise InvalidTypeError(f"a path must name a str, not {type(text).__name__}")
    if not text or "\x00" in text:
        raise InvalidInputError(f"a path is a non-empty string without NUL characters, got "
                                f"{text!r}")
    try:
        os.fsencode(text)
    except UnicodeEncodeError:
        raise InvalidInputError(f"the path {text!r} holds characters the file system cannot "
                                "name") from None


def decode_file(path: str | os.PathLike[str], expected: str,
                limit: int | None = None) -> Any:
    """Read a JSON or msgpack file (sniffed), raising :class:`SnapshotError` naming the path.

    FIFOs, devices and directories are refused without reading, and so are files larger
    than ``limit`` bytes (default :func:`max_file_bytes`). A missing file raises
    ``FileNotFoundError``.
    """
    check_path(path)
    return decode_bytes(read_regular(path, expected, SnapshotError, limit=limit), expected, path)


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
