"""No module reads another object's underscore attributes (issue 36 item 2).

A *private reach* is an attribute access ``x._name`` (one or two leading underscores, not a
dunder such as ``__class__``) whose object ``x`` is not ``self`` or ``cls``, the same by name
(``getattr(x, "_name")``), or an import of another module's private name
(``from .http import _refusal``): code that reads or changes state its owner has not offered.
The owner offers it instead, under a public, named, documented method or attribute
(docs/extending.md, "Private names"), or the code moves to the class that owns the state.
A private *module* (``foundations._deprecated``) is the package's own, imported by name across
it: only the names imported from it are checked.

The exceptions, each narrow and named:

1. ``super()._name``: a class calling the implementation it inherits (it is ``self``).
2. The namedtuple API (:data:`NAMEDTUPLE_API`: ``_replace``, ``_asdict``, ``_fields``,
   ``_make``, ``_field_defaults``): public methods of every namedtuple (``urllib.parse``'s
   ``SplitResult``, LangGraph's operations), spelled with an underscore so as not to clash
   with field names. No class of ours defines these names.
3. The same class: inside the body of class ``C``, ``x._name`` where ``C`` itself defines
   ``_name`` (a method or a class attribute assigned in its body, an entry of its
   ``__slots__``, or ``self._name = ...`` in one of its methods) and ``x`` is known, from the
   method's own text, to be a ``C``: ``C`` itself; a parameter annotated ``C``; the other
   operand of a dunder method (``__eq__(self, other)``); a local made by ``cls(...)``,
   ``C(...)``, ``type(self)(...)`` or ``cls.__new__(cls)``. Privacy is the class's, not the
   instance's (``__eq__`` comparing ``other._key``, a classmethod filling in the instance it
   made). A name the class only annotates (``_x: T`` with no value, or under
   ``if TYPE_CHECKING:``) or inherits is not its own, and an object of unknown class is not
   taken for a ``C`` because ``C`` has a name of that spelling (a sharded store calling its
   shard's ``_search`` from its own ``_search`` is a reach).
4. Third-party private attributes we must reach (:data:`THIRD_PARTY`), by file and name, each
   with the reason and the versions of the package it was checked against.
5. Other lanes' files this session (:data:`OTHER_LANES`): allowed whole, by file and the names
   reached there, until the lane that owns the file removes them; the lead shrinks the list at
   merge. An entry no longer reached fails :func:`test_no_stale_allowance`, so the list
   only shrinks.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOT = REPO / "corollary"

#: The namedtuple methods and attributes, public though spelled with an underscore.
NAMEDTUPLE_API = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})

#: file -> {private name of a third-party object: why we reach it}. The versions: pyproject's
#: range for the ``mcp`` extra is ``>=1.24,<3``; 2.3.0 is the one installed and tested here.
THIRD_PARTY: dict[str, dict[str, str]] = {
    "corollary/mcp/sdk.py": {
        "_mcp_server": "mcp 1.x (pyproject allows >=1.24), FastMCP's low-level server: the "
                       "server version clients read (mcp 1 takes none) and the resource "
                       "subscription handlers (no public way to register them on FastMCP)",
        "_subscriptions": "mcp 2.x (checked with 2.3.0), MCPServer's subscription bus: no "
                          "public way to publish a resource update outside a request",
        "_lowlevel_server": "mcp 2.x (2.3.0), MCPServer's low-level server, to reach its "
                            "request handlers",
        "_request_handlers": "mcp 2.x (2.3.0), the low-level server's handler table: the "
                             "subscriptions/listen handler is wrapped to count listeners "
                             "(no public way to wrap one)",
    },
    "corollary/mcp/server.py": {
        "_tool_manager": "mcp 1.x and 2.x (2.3.0), the server's tools: each tool's argument "
                         "model is made strict (the SDK validates in pydantic's lax mode, "
                         "with no switch)",
    },
}

#: file -> (the lane that removes them, the private names reached there today).
OTHER_LANES: dict[str, tuple[str, frozenset[str]]] = {
}


@dataclass(frozen=True)
class Reach:
    """One private reach: where, the name reached, and the expression."""

    path: str
    line: int
    name: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


def is_private(name: str) -> bool:
    """``_x`` or ``__x``, not a dunder ``__x__``."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def own_names(cls: ast.ClassDef) -> frozenset[str]:
    """The names class ``cls`` defines itself (exception 3 of the module docstring)."""
    names: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
                    if target.id == "__slots__":
                        names.update(_strings(stmt.value))
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            if isinstance(stmt.target, ast.Name):
                names.add(stmt.target.id)
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(stmt):
                if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                        and isinstance(node.value, ast.Name)
                        and node.value.id in ("self", "cls")):
                    names.add(node.attr)
    return frozenset(names)


def _strings(node: ast.expr) -> Iterable[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for item in node.elts:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                yield item.value


def _names(node: ast.expr | None) -> set[str]:
    """The class names an annotation mentions (``C``, ``"C"``, ``C | None``)."""
    if node is None:
        return set()
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return set()
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _makes_one(value: ast.expr, cls: str) -> bool:
    """Whether ``value`` makes a new instance of class ``cls`` (within its own body)."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Name):
        return func.id in ("cls", cls)
    if isinstance(func, ast.Call):  # type(self)(...)
        return (isinstance(func.func, ast.Name) and func.func.id == "type"
                and len(func.args) == 1 and isinstance(func.args[0], ast.Name)
                and func.args[0].id == "self")
    if isinstance(func, ast.Attribute) and func.attr == "__new__":  # cls.__new__(cls)
        return bool(value.args) and isinstance(value.args[0], ast.Name) and \
            value.args[0].id in ("cls", cls)
    return False


def same_class_names(func: ast.FunctionDef | ast.AsyncFunctionDef, cls: str) -> set[str]:
    """The names that hold a ``cls`` in method ``func`` of class ``cls`` (exception 3)."""
    args = [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
    known = {cls}
    known |= {a.arg for a in args if cls in _names(a.annotation)}
    if func.name.startswith("__") and func.name.endswith("__"):
        known |= {a.arg for a in args[1:2] if a.annotation is None}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and _makes_one(node.value, cls):
            known |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return known


#: The built-ins that reach an attribute by its name as a string: the same reach.
_BY_NAME = frozenset({"getattr", "setattr", "hasattr", "delattr"})


class _Finder(ast.NodeVisitor):
    def __init__(self, path: str) -> None:
        self.path = path
        self.classes: list[tuple[str, frozenset[str]]] = []  # enclosing classes, own names
        self.known: list[tuple[frozenset[str], set[str]]] = []  # per method: own names, holders
        self.found: list[Reach] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append((node.name, own_names(node)))
        saved, self.known = self.known, []  # a class body starts afresh
        self.generic_visit(node)
        self.known = saved
        self.classes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        method = bool(self.classes) and not self.known  # directly in the class body
        if method:
            name, own = self.classes[-1]
            self.known.append((own, same_class_names(node, name)))
        self.generic_visit(node)
        if method:
            self.known.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.generic_visit(node)
        name = node.attr
        if not is_private(name) or name in NAMEDTUPLE_API:
            return
        obj = node.value
        if isinstance(obj, ast.Name) and obj.id in ("self", "cls"):
            return
        if (isinstance(obj, ast.Call) and isinstance(obj.func, ast.Name)
                and obj.func.id == "super"):
            return
        if isinstance(obj, ast.Name) and self._same_class(obj.id, name):
            return
        self.found.append(Reach(self.path, node.lineno, name, ast.unparse(node)))

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        func, args = node.func, node.args
        if (isinstance(func, ast.Name) and func.id in _BY_NAME and len(args) >= 2
                and isinstance(args[1], ast.Constant) and isinstance(args[1].value, str)
                and is_private(args[1].value)
                and not (isinstance(args[0], ast.Name) and args[0].id in ("self", "cls"))):
            self.found.append(Reach(self.path, node.lineno, args[1].value, ast.unparse(node)))

    def _same_class(self, holder: str, name: str) -> bool:
        if self.known:
            own, holders = self.known[-1]
            return name in own and holder in holders
        if self.classes:  # the class body itself
            cls, own = self.classes[-1]
            return name in own and holder == cls
        return False

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = "." * node.level + (node.module or "")
        for alias in node.names:
            if is_private(alias.name):
                self.found.append(Reach(self.path, node.lineno, alias.name,
                                        f"from {module} import {alias.name}"))


def private_reaches(source: str, path: str = "<source>") -> list[Reach]:
    """Every private reach in one module's source."""
    finder = _Finder(path)
    finder.visit(ast.parse(source))
    return finder.found


def package_reaches() -> list[Reach]:
    """Every private reach in the package."""
    found: list[Reach] = []
    for file in sorted(ROOT.rglob("*.py")):
        path = file.relative_to(REPO).as_posix()
        found.extend(private_reaches(file.read_text(encoding="utf-8"), path))
    return found


def allowances(third_party: Mapping[str, Mapping[str, str]] = THIRD_PARTY,
               lanes: Mapping[str, tuple[str, frozenset[str]]] = OTHER_LANES
               ) -> set[tuple[str, str]]:
    """Every allowed ``(file, name)``."""
    allowed = {(path, name) for path, names in third_party.items() for name in names}
    allowed |= {(path, name) for path, (_, names) in lanes.items() for name in names}
    return allowed


def unlisted(reaches: Iterable[Reach], allowed: set[tuple[str, str]]) -> list[Reach]:
    """The reaches no allowance covers."""
    return [r for r in reaches if (r.path, r.name) not in allowed]


def stale(reaches: Iterable[Reach], allowed: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The allowances no reach uses any more."""
    return allowed - {(r.path, r.name) for r in reaches}


# -- the package -------------------------------------------------------------------------

def test_no_private_reach() -> None:
    found = unlisted(package_reaches(), allowances())
    assert not found, (
        "modules reach other objects' underscore attributes (give the owner a public, named "
        "method or attribute, or move the code to it; docs/extending.md, 'Private names'):\n"
        + "\n".join(map(str, found)))


def test_no_stale_allowance() -> None:
    gone = stale(package_reaches(), allowances())
    assert not gone, f"allowed but no longer reached, remove from the lists: {sorted(gone)}"


def test_every_allowance_names_a_file_of_the_package() -> None:
    missing = {path for path, _ in allowances() if not (REPO / path).is_file()}
    assert not missing


# -- the checker itself --------------------------------------------------------------------

CRAFTED = '''
import typing
from collections import namedtuple

if typing.TYPE_CHECKING:
    pass


from .http import _refusal       # reach 0: another module's private function
from ._version import __version__  # a dunder: allowed


def helper(store, parts):
    store._conn.close()          # reach 1: another object's private attribute
    other = module._cache        # reach 2: a module's private global
    parts._replace(path="/")     # namedtuple API: allowed
    store.a.b._c                 # reach 3: at the end of a chain
    type(store).__name__         # a dunder: allowed
    store.__secret               # reach 4: name-mangled is private too
    getattr(store, "_conn", None)  # reach 4b: the same, by name


class Owner:
    __slots__ = ("_slot",)
    _table = {}

    def __init__(self):
        self._kept = 1

    def __eq__(self, other):
        return (self._kept == other._kept and other._slot == self._slot
                and other._table is self._table and other._method() is None)

    def _method(self):
        return super()._method()   # the inherited implementation: allowed

    @classmethod
    def make(cls, other):
        new = cls()
        new._kept = Owner._table            # a new Owner, and the class itself: allowed
        return cls._table, other._not_ours   # reach 5: Owner does not define _not_ours

    def merge(self, other: "Owner | None", stranger):
        def inner():
            return other._kept              # a parameter annotated Owner: allowed
        return inner(), stranger._kept      # reach 6: a parameter of unknown class


class Mixin:
    if typing.TYPE_CHECKING:
        _state: int
    _engine: object

    def read(self, kb):
        return kb._state, kb._engine    # reaches 7 and 8: declared, not defined, here


class Stranger:
    def peek(self, owner):
        return owner._kept              # reach 9: Owner's name, read from another class


class Sharded:
    def _search(self, op):
        return self._shard(op)._search(op)  # reach 10: a shard is no Sharded, same name or not
'''


def test_the_checker_finds_every_reach_in_a_crafted_module() -> None:
    found = private_reaches(CRAFTED, "crafted.py")
    assert [r.text for r in found] == [
        "from .http import _refusal", "store._conn", "module._cache", "store.a.b._c",
        "store.__secret", "getattr(store, '_conn', None)", "other._not_ours", "stranger._kept", "kb._state", "kb._engine",
        "owner._kept", "self._shard(op)._search"]
    assert [r.name for r in found][:3] == ["_refusal", "_conn", "_cache"]
    assert str(found[1]) == "crafted.py:14: store._conn"


def test_an_unlisted_reach_fails_even_in_an_allowed_file() -> None:
    found = private_reaches(CRAFTED, "crafted.py")
    lanes = {"crafted.py": ("a lane", frozenset({"_refusal", "_conn", "_cache"}))}
    third = {"crafted.py": {"__secret": "why"}}
    left = unlisted(found, allowances(third, lanes))
    assert [r.text for r in left] == [
        "store.a.b._c", "other._not_ours", "stranger._kept", "kb._state", "kb._engine",
        "owner._kept", "self._shard(op)._search"]
    assert unlisted(found, allowances({}, {})) == found


def test_an_allowance_no_reach_uses_is_stale() -> None:
    found = private_reaches(CRAFTED, "crafted.py")
    allowed = allowances({"crafted.py": {"_conn": "why", "_gone": "why"}}, {})
    assert stale(found, allowed) == {("crafted.py", "_gone")}
