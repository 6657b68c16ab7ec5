"""Atomic file writes, format detection and sealed (checksummed) encoding, shared by snapshots
and ledger files."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import re
import secrets
import stat
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

from ._collector import collector_paused
from ._validate import check_int
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
        return check_int(value, "max_file_bytes", low=1)
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
_FLOATS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}

#: Documents this corollary writes, and the newest schema version of each it reads.
SNAPSHOT_FORMAT = "corollary-snapshot"
SNAPSHOT_VERSION = 3
LEDGER_FORMAT = "corollary-ledger"
LEDGER_VERSION = 1
_NEWEST = {SNAPSHOT_FORMAT: SNAPSHOT_VERSION, LEDGER_FORMAT: LEDGER_VERSION}
#: The first version whose files must carry a checksum. Ledger files stay readable without
#: one: the JSON-file store writes the same document, unsealed, as it goes.
_SEALED_SINCE = {SNAPSHOT_FORMAT: 2}
_EXPECTED = {"snapshot": SNAPSHOT_FORMAT, "ledger": LEDGER_FORMAT}

#: The digest a sealed file carries: BLAKE2b with a 128-bit digest, over the body's bytes.
CHECKSUM = "blake2b-128"
_ENVELOPE = ("format", "version", "checksum", "body")
# A sealed JSON file is written in exactly this form, so the body's bytes are found without
# parsing the file twice; a file reformatted by hand is still read (see _open_parsed).
_JSON_HEAD = re.compile(
    rb'\{"format":"([a-z-]{1,40})","version":([0-9]{1,9}),"checksum":"([a-z0-9-]{1,20}):([0-9a-f]{0,128})","body":'
)


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
        tag = obj[_FLOAT_TAG]
        if type(tag) is not str or tag not in _FLOATS:
            raise ValueError(f"{_FLOAT_TAG} holds {tag!r}, not 'inf', '-inf' or 'nan'")
        return _FLOATS[tag]
    return obj


def _no_constants(name: str) -> Any:
    # JSON has no NaN or Infinity; we write them boxed, so a bare one is damage
    raise ValueError(f"{name} is not JSON")


def _json(raw: bytes) -> Any:
    return json.loads(raw.decode("utf-8"), object_hook=_unbox, parse_constant=_no_constants)


def _json_bytes(data: Any) -> bytes:
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:  # an infinity somewhere (a promise's threshold): box the floats
        text = json.dumps(_box(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode()


def digest(body: bytes | memoryview) -> str:
    """The checksum a sealed file carries for ``body``: ``"blake2b-128:<32 hex digits>"``."""
    return f"{CHECKSUM}:{hashlib.blake2b(body, digest_size=16).hexdigest()}"


def encode(data: Any, fmt: str, *, seal: bool = True) -> bytes:
    """Serialise a document as JSON (UTF-8) or msgpack, sealed with a checksum of its body.

    A sealed file is an envelope ``{"format", "version", "checksum", "body"}`` (the document's
    own format and version, :func:`digest` of the body's bytes, the body): in msgpack the body
    is the document's msgpack bytes; in JSON it is the document itself, written after a fixed
    header so that a reader checks the exact bytes. ``seal=False`` writes the bare document.
    """
    head = _header(data) if seal else None
    if fmt == "json":
        body = _json_bytes(data)
    else:
        body = msgpack.packb(data, use_bin_type=True)
    if head is None:
        return body
    check = digest(body)
    if fmt == "json":
        prefix = json.dumps({"format": head[0], "version": head[1], "checksum": check},
                            separators=(",", ":"))
        return b"".join((prefix[:-1].encode(), b',"body":', body, b"}"))
    return msgpack.packb({"format": head[0], "version": head[1], "checksum": check, "body": body},
                         use_bin_type=True)


def _header(data: Any) -> tuple[str, int]:
    fmt = data.get("format") if isinstance(data, dict) else None
    version = data.get("version") if isinstance(data, dict) else None
    # what the JSON reader's fixed header can find again
    if (type(fmt) is not str or not re.fullmatch("[a-z-]{1,40}", fmt)
            or type(version) is not int or not 0 <= version < 10**9):
        raise InvalidInputError("only a document with a 'format' name and an integer 'version' "
                                "can be sealed")
    return fmt, version


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
    """Decode JSON or msgpack bytes (sniffed); ``where`` names the source in errors.

    A sealed file (see :func:`encode`) is verified against its checksum and its body returned;
    a bare document is returned as it is, except a snapshot from schema 2 on, which must be
    sealed. Every failure is a :class:`SnapshotError`: bad bytes, a checksum that does not
    match, nesting too deep, a map keyed by a list, an integer too long to read.
    """
    if not raw:
        raise SnapshotError(f"empty, not a {expected}", where)
    with collector_paused():  # decoding builds many containers and frees none
        try:
            if raw[:1] in (b"{", b"[", b" ", b"\n"):
                head = _JSON_HEAD.match(raw)
                end = len(raw.rstrip())  # an editor may have added a final newline
                if head is not None and raw[end - 1:end] == b"}":
                    fmt, version, kind, value = head.groups()
                    _check_head(fmt.decode(), int(version), expected, where)
                    body = raw[head.end():end - 1]
                    _verify(kind.decode(), value.decode(), body, expected, where)
                    return _opened(fmt.decode(), int(version), _json(body), expected, where)
                data = _json(raw)
            else:
                found = _sealed_msgpack(raw)
                if found is not None:
                    (head_fmt, version, kind, value), view = found
                    _check_head(head_fmt, version, expected, where)
                    _verify(kind, value, view, expected, where)
                    return _opened(head_fmt, version,
                                   msgpack.unpackb(view, raw=False, strict_map_key=False),
                                   expected, where)
                data = msgpack.unpackb(raw, raw=False, strict_map_key=False)
                if isinstance(data, dict) and ("checksum" in data or "body" in data):
                    head_fmt, version, kind, value = _envelope(data, expected, where)
                    _check_head(head_fmt, version, expected, where)
                    body = data["body"]
                    if type(body) is not bytes:
                        raise SnapshotError(f"corrupt {expected} (the sealed body is not bytes)", where)
                    _verify(kind, value, body, expected, where)
                    return _opened(head_fmt, version,
                                   msgpack.unpackb(body, raw=False, strict_map_key=False),
                                   expected, where)
                return _bare(data, expected, where)
            if isinstance(data, dict) and ("checksum" in data or "body" in data):
                return _open_parsed(data, expected, where)
            return _bare(data, expected, where)
        except SnapshotError:
            raise
        except (ValueError, TypeError, RecursionError, UnicodeDecodeError,
                msgpack.exceptions.ExtraData, msgpack.exceptions.UnpackException) as exc:
            # TypeError: a msgpack map keyed by a list; RecursionError: JSON nested too deeply;
            # ValueError: bad bytes, too-deep msgpack, an integer of thousands of digits
            raise SnapshotError(f"corrupt or truncated {expected} ({exc.__class__.__name__}: {exc})",
                                where) from exc


def _sealed_msgpack(raw: bytes) -> tuple[tuple[str, int, str, str], memoryview] | None:
    """The header and body of a sealed msgpack file in the layout :func:`encode` writes, without
    copying the body (a million-belief snapshot is tens of megabytes); ``None`` for any other
    layout, which the caller then reads the general way."""
    cut = raw.find(b"\xa4body", 0, 512)  # the last key, right before the body's bytes
    if raw[:1] != b"\x84" or cut < 0 or len(raw) < cut + 6:
        return None
    try:
        head = msgpack.unpackb(b"\x83" + raw[1:cut], raw=False)
    except (ValueError, TypeError, msgpack.exceptions.ExtraData, msgpack.exceptions.UnpackException):
        return None
    size = {0xC4: 1, 0xC5: 2, 0xC6: 4}.get(raw[cut + 5], 0)
    start = cut + 6 + size
    if not size or not isinstance(head, dict) or len(head) != 3:
        return None
    if int.from_bytes(raw[cut + 6:start], "big") != len(raw) - start:
        return None
    fmt, version, check = head.get("format"), head.get("version"), head.get("checksum")
    if type(fmt) is not str or type(version) is not int or type(check) is not str:
        return None
    kind, _, value = check.partition(":")
    return (fmt, version, kind, value), memoryview(raw)[start:]


def _envelope(data: dict[Any, Any], expected: str, where: object) -> tuple[str, int, str, str]:
    """The format, version, checksum kind and checksum value of a sealed file's envelope."""
    if set(data) != set(_ENVELOPE):
        raise SnapshotError(f"corrupt {expected} (a damaged checksum envelope: fields "
                            f"{sorted(map(repr, data))})", where)
    fmt, version, check = data["format"], data["version"], data["checksum"]
    if type(fmt) is not str or type(version) is not int or type(check) is not str:
        raise SnapshotError(f"corrupt {expected} (a damaged checksum envelope)", where)
    kind, _, value = check.partition(":")
    return fmt, version, kind, value


def _verify(kind: str, value: str, body: bytes | memoryview, expected: str,
            where: object) -> None:
    if kind != CHECKSUM:
        raise SnapshotError(f"{expected} sealed with an unknown checksum {kind!r} (written by a "
                            "newer corollary?)", where)
    if digest(body) != f"{kind}:{value}":
        raise SnapshotError(f"corrupt {expected}: its checksum does not match its contents "
                            "(the file was damaged after it was written)", where)


def _open_parsed(data: dict[Any, Any], expected: str, where: object) -> Any:
    """A sealed JSON file that no longer has our exact layout (reformatted, or damaged).

    Its checksum is over the canonical encoding of the body, which is what we wrote: encode
    the parsed body again and compare, so reformatting alone does not break a file.
    """
    fmt, version, kind, value = _envelope(data, expected, where)
    _check_head(fmt, version, expected, where)
    try:
        body = _json_bytes(data["body"])
    except (TypeError, ValueError, RecursionError) as exc:
        raise SnapshotError(f"corrupt {expected} (its body cannot be checked: {exc})",
                            where) from exc
    _verify(kind, value, body, expected, where)
    return _opened(fmt, version, data["body"], expected, where)


def _check_head(fmt: str, version: int, expected: str, where: object) -> None:
    """An envelope's header, before its body is read: the document expected, a version we read
    (a newer one may seal its body differently)."""
    wanted = _EXPECTED.get(expected)
    if wanted is not None and fmt != wanted:
        raise SnapshotError(f"not a corollary {expected} (a sealed {fmt!r} file)", where)
    newest = _NEWEST.get(fmt)
    if newest is not None and version > newest:
        raise SnapshotError(f"{expected} format version {version} is newer than this corollary "
                            f"reads ({newest}); upgrade corollary to load it", where)


def _opened(fmt: str, version: int, body: Any, expected: str, where: object) -> Any:
    """The body of a verified envelope, which must agree with the envelope's header."""
    if not isinstance(body, dict) or body.get("format") != fmt or body.get("version") != version:
        raise SnapshotError(f"corrupt {expected} (the sealed body does not match its header)",
                            where)
    return body


def _bare(data: Any, expected: str, where: object) -> Any:
    """A document without a checksum: only from versions that were written that way."""
    if isinstance(data, dict):
        fmt, version = data.get("format"), data.get("version")
        since = _SEALED_SINCE.get(fmt) if isinstance(fmt, str) else None
        newest = _NEWEST.get(fmt) if isinstance(fmt, str) else None
        if (since is not None and type(version) is int and since <= version
                and (newest is None or version <= newest)):
            raise SnapshotError(f"a version {version} {expected} file carries a checksum; this "
                                "one has none (damaged, or not written by corollary)", where)
    return data
