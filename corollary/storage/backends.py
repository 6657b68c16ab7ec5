"""The table of ledger store backends: what targets each takes, how it opens them, and how it
keeps a ledger's settings.

A backend is one :class:`StoreBackend` registered with :func:`register_backend`. Everything
that opens a ledger or a store (:func:`corollary.open_ledger`, :func:`open_store
<corollary.storage.targets.open_store>`, the CLI, the MCP server) finds the backend of a target
here and nowhere else, so a new backend is one registration, in the file that defines its store.

A target names its backend in one of three ways, tried in this order: a whole name
(``":memory:"``), a URL scheme (``postgresql://…``), or a path suffix (``.db``). Anything else is
refused rather than guessed (a file's contents are not sniffed: a ledger path says what it is).

The settings a ledger keeps in its store are plain values under the names of
:data:`SETTINGS`; a backend keeps those it can and ignores the rest.

>>> resolve("ledger.db")[0].name, resolve("trust.json")[0].name, resolve(":memory:")[0].name
('sqlite', 'json', 'memory')
>>> resolve("postgresql://db.internal/agents")[0].name
'postgres'
>>> sorted(BACKENDS)
['json', 'memory', 'postgres', 'sqlite']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from ..foundations.errors import InvalidInputError, StoreCorruptError
from ..sources.policy import TrustPolicy
from .memory import DEFAULT_HISTORY, MemoryStore

__all__ = ["BACKENDS", "SETTINGS", "StoreBackend", "open_at", "register_backend", "resolve",
           "unregister_backend"]

#: The ledger settings a store may keep: ``prior_weight`` (float), ``memory_half_life``
#: (seconds or ``None``), ``max_history`` (int) and ``policy`` (a :class:`TrustPolicy`).
SETTINGS = ("prior_weight", "memory_half_life", "max_history", "policy")

#: ``open(location, settings, options) -> store``.
Opener = Callable[[Any, Mapping[str, Any], dict[str, Any]], Any]


def _keeps_nothing(store: Any) -> dict[str, Any]:
    return {}


def _writes_nothing(store: Any, settings: Mapping[str, Any]) -> None:
    return None


def _as_given(target: str) -> Any:
    return target


def _texts(value: Iterable[str]) -> tuple[str, ...]:
    if isinstance(value, str):  # one scheme given bare would otherwise become its letters
        return (value,)
    return tuple(value)


@attrs.frozen(slots=True)
class StoreBackend:
    """One kind of ledger store, and the targets that name it.

    Attributes
    ----------
    name : str
        A short name (``"sqlite"``), unique in the table.
    open : callable
        ``open(location, settings, options) -> store``. ``settings`` holds ``max_history`` and,
        when the caller chose one, ``memory_half_life`` (absent: the half-life the store keeps,
        else none); ``options`` are the backend's own keywords. An unknown keyword raises
        ``TypeError``, which :func:`open_at` reports as an unknown option.
    schemes : tuple of str
        URL schemes, lower case (``"postgresql"`` takes ``postgresql://…``).
    suffixes : tuple of str
        Path suffixes, lower case with their dot (``".db"``).
    names : tuple of str
        Whole targets, lower case (``":memory:"``).
    locate : callable
        ``locate(target) -> location`` for a target matched by scheme or name (default: the
        target itself); a target matched by suffix is located at its path.
    read_settings : callable
        ``read_settings(store) -> dict``: the settings the store keeps (names of
        :data:`SETTINGS`); an unreadable one raises
        :class:`~corollary.foundations.errors.StoreCorruptError`.
    write_defaults : callable
        ``write_defaults(store, settings)``: keep the opener's settings where the store keeps
        none yet (the first opener's choice sticks).
    durable : bool
        Whether what the store holds outlives the process (a read of a new one finds nothing).

    Examples
    --------
    >>> from corollary.storage.memory import MemoryStore
    >>> StoreBackend("scratch", lambda location, settings, options: MemoryStore(),
    ...              names=("scratch:",), durable=False).names
    ('scratch:',)
    """

    name: str
    open: Opener
    schemes: tuple[str, ...] = attrs.field(default=(), converter=_texts)
    suffixes: tuple[str, ...] = attrs.field(default=(), converter=_texts)
    names: tuple[str, ...] = attrs.field(default=(), converter=_texts)
    locate: Callable[[str], Any] = _as_given
    read_settings: Callable[[Any], dict[str, Any]] = _keeps_nothing
    write_defaults: Callable[[Any, Mapping[str, Any]], None] = _writes_nothing
    durable: bool = True

    def __repr__(self) -> str:
        return f"<store backend {self.name}>"


#: Every backend, by name, in the order registered.
BACKENDS: dict[str, StoreBackend] = {}


def _claims(backend: StoreBackend) -> set[tuple[str, str]]:
    return ({("scheme", s) for s in backend.schemes} | {("suffix", s) for s in backend.suffixes}
            | {("name", n) for n in backend.names})


def register_backend(backend: StoreBackend) -> StoreBackend:
    """Add ``backend`` to the table; its name, schemes, suffixes and names must be new.

    Raises
    ------
    InvalidInputError
        A name, scheme, suffix or whole name another backend already takes, or one not in
        lower case (targets are matched case-insensitively).
    """
    if not isinstance(backend, StoreBackend):
        raise InvalidInputError(f"register a StoreBackend, not {type(backend).__name__}")
    if not backend.name or backend.name in BACKENDS:
        raise InvalidInputError(f"a store backend needs a new, non-empty name, not "
                                f"{backend.name!r}")
    claims = _claims(backend)
    for what, text in sorted(claims):
        if not isinstance(text, str) or not text or text != text.lower():
            raise InvalidInputError(f"a backend's {what} is a non-empty lower-case string, "
                                    f"not {text!r}")
        if what == "suffix" and not text.startswith("."):
            raise InvalidInputError(f"a path suffix starts with its dot, not {text!r}")
    for other in BACKENDS.values():
        taken = claims & _claims(other)
        if taken:
            what, text = min(taken)
            raise InvalidInputError(f"the {what} {text!r} is already {other.name}'s")
    BACKENDS[backend.name] = backend
    return backend


def unregister_backend(name: str) -> StoreBackend:
    """Take the backend ``name`` out of the table (``KeyError`` if there is none)."""
    return BACKENDS.pop(name)


def _known() -> str:
    parts = [f"a {', '.join(b.suffixes)} path ({b.name})" for b in BACKENDS.values()
             if b.suffixes]
    parts += [f"a {', '.join(s + '://' for s in b.schemes)} URL ({b.name})"
              for b in BACKENDS.values() if b.schemes]
    return "; ".join(parts)


def resolve(target: str) -> tuple[StoreBackend, Any]:
    """``(backend, location)`` of a target given as text (see the module's docs).

    Raises
    ------
    InvalidInputError
        A target no backend takes.
    """
    lowered = target.lower()
    for backend in BACKENDS.values():
        if lowered in backend.names:
            return backend, backend.locate(target)
    if "://" in target:
        scheme = lowered.partition("://")[0]
        for backend in BACKENDS.values():
            if scheme in backend.schemes:
                return backend, backend.locate(target)
        raise InvalidInputError(f"unknown ledger URL scheme in {target!r}: use {_known()}")
    path = Path(target).expanduser()
    suffix = path.suffix.lower()
    for backend in BACKENDS.values():
        if suffix and suffix in backend.suffixes:
            return backend, path
    raise InvalidInputError(f"cannot tell the ledger backend from {target!r}: use {_known()}")


def open_at(backend: StoreBackend, location: Any, settings: Mapping[str, Any],
            options: dict[str, Any]) -> Any:
    """``backend.open(location, settings, options)``, with an unknown keyword in ``options``
    reported as :class:`~corollary.foundations.errors.InvalidInputError`."""
    try:
        return backend.open(location, settings, options)
    except TypeError as exc:
        if "unexpected keyword" in str(exc):
            raise InvalidInputError(f"unknown {backend.name} store option: {exc}") from exc
        raise


# -- the built-in backends ---------------------------------------------------------------------
# Their modules are imported when a store is opened, not here: a process that never opens a
# PostgreSQL ledger never imports its driver.


def _open_memory(location: Any, settings: Mapping[str, Any], options: dict[str, Any]) -> Any:
    return MemoryStore(settings.get("memory_half_life"),
                       settings.get("max_history", DEFAULT_HISTORY), **options)


def _open_json(location: Any, settings: Mapping[str, Any], options: dict[str, Any]) -> Any:
    from .jsonfile import JSONFileStore

    if "memory_half_life" in settings:
        half_life = settings["memory_half_life"]
    else:  # the file's totals were folded with its half-life: open it with that one
        header = JSONFileStore.read_header(location, options.get("max_file_bytes")) or {}
        half_life = header.get("memory_half_life")
    return JSONFileStore(location, half_life, **options)


def _json_settings(store: Any) -> dict[str, Any]:
    header = store.header
    found: dict[str, Any] = {}
    if header.get("prior_weight"):
        found["prior_weight"] = header["prior_weight"]
    if "memory_half_life" in header:
        found["memory_half_life"] = header["memory_half_life"]
    if isinstance(header.get("policy"), dict):
        try:
            found["policy"] = TrustPolicy.from_dict(header["policy"])
        except (TypeError, ValueError) as exc:
            raise StoreCorruptError(f"malformed policy in ledger file: {exc}",
                                    store.location) from exc
    return found


def _json_defaults(store: Any, settings: Mapping[str, Any]) -> None:
    store.keep_settings({"prior_weight": float(settings["prior_weight"]),
                         "max_history": settings["max_history"],
                         "policy": settings["policy"].to_dict()})


def _sqlite_location(target: str) -> Any:
    rest = target[len("sqlite://"):]
    if rest in ("", "/", "/:memory:"):
        return ":memory:"
    if not rest.startswith("/"):
        raise InvalidInputError(f"a SQLite URL is sqlite:///relative or sqlite:////absolute, "
                                f"got {target!r}")
    return Path(rest[1:])


def _open_sql(make: Callable[..., Any]) -> Opener:
    """The opener of a SQL store: the stored half-life applies unless the caller chose one."""

    def open_sql(location: Any, settings: Mapping[str, Any], options: dict[str, Any]) -> Any:
        store = make(location, settings.get("memory_half_life"), **options)
        if "memory_half_life" not in settings:
            try:
                stored = store.get_meta()
                if "memory_half_life" in stored:
                    store.half_life = json.loads(stored["memory_half_life"])  # nothing cached yet
            except BaseException:
                store.close()
                raise
        return store

    return open_sql


def _make_sqlite(location: Any, half_life: float | None, **options: Any) -> Any:
    from .sqlite import SQLiteStore

    return SQLiteStore(location, half_life, **options)


def _make_postgres(location: Any, half_life: float | None, **options: Any) -> Any:
    from .postgres import PostgresStore

    return PostgresStore(str(location), half_life, **options)


def _sql_settings(store: Any) -> dict[str, Any]:
    stored = store.get_meta()
    found = {}
    for name in ("prior_weight", "memory_half_life"):
        if name in stored:
            try:
                found[name] = json.loads(stored[name])
            except ValueError as exc:
                raise StoreCorruptError(f"malformed setting {name} in the ledger: {exc}",
                                        store.location) from exc
    return found


def _sql_defaults(store: Any, settings: Mapping[str, Any]) -> None:
    store.set_meta_defaults({"prior_weight": json.dumps(float(settings["prior_weight"])),
                             "memory_half_life": json.dumps(settings["memory_half_life"])})


MEMORY = register_backend(StoreBackend("memory", _open_memory, names=(":memory:", "memory:"),
                                       durable=False))
SQLITE = register_backend(StoreBackend(
    "sqlite", _open_sql(_make_sqlite), schemes=("sqlite",), suffixes=(".db", ".sqlite", ".sqlite3"),
    locate=_sqlite_location, read_settings=_sql_settings, write_defaults=_sql_defaults))
JSON = register_backend(StoreBackend("json", _open_json, suffixes=(".json",),
                                     read_settings=_json_settings, write_defaults=_json_defaults))
POSTGRES = register_backend(StoreBackend(
    "postgres", _open_sql(_make_postgres), schemes=("postgresql", "postgres"),
    read_settings=_sql_settings, write_defaults=_sql_defaults))
