"""A premise record is read only through :mod:`corollary.tms.records` (issue 36 item 5).

The record a belief keeps for a premise is a plain tuple (so that the garbage collector stops
tracking it), laid out as only ``corollary/tms/records.py`` knows; every other module reads it
through that module's named accessors (``record_source``, ``record_span``, ``record_valid_at``,
...) or a :class:`~corollary.tms.records.Premise` view. This test reads every other module's
syntax tree and fails on a record being indexed (``record[2]``), measured (``len(record)``) or
unpacked (``source, origin, at, life = record``, in an assignment or a ``for``).

The rule it uses to know an expression is a premise record, per function (a lambda or a
comprehension belongs to the function it is written in):

- ``<x>.evidence`` of anything but ``self`` (a belief's premises as stored: a record or a list
  of records), ``<x>.record`` of a :class:`Premise` view (``p``, ``premise`` or a name bound to
  one: ``Premise.of(...)``, ``x.premise_from(...)``, iterating ``x.premises``), calls to
  ``record_from``, ``records``, ``premise_record`` and ``Premise.of(...).record``;
- a name assigned one of those, a name a ``for`` (or comprehension) binds while iterating one,
  and a parameter annotated :data:`PremiseRecord`;
- a name assigned an item of one of those (``life = record[3]``) is reported at that item.

It is a check of names, not a type checker: a record passed through a name it does not follow
is not seen (that is what the accessors' types are for); what it sees, it reports with file
and line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "corollary"
#: The one module that knows the layout.
OWNER = ROOT / "tms" / "records.py"

_RECORD_CALLS = {"record_from", "premise_record"}
#: Calls that give a list of records (counting or indexing the list is no read of a record).
_LIST_CALLS = {"records"}
_PREMISE_CALLS = {"premise_from"}


def _called(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute):
            return f.attr
        if isinstance(f, ast.Name):
            return f.id
    return None


def _is_premise(node: ast.AST, premises: set[str]) -> bool:
    """Whether ``node`` is a :class:`Premise` view."""
    if isinstance(node, ast.Name):
        return node.id in premises or node.id in {"p", "premise"}
    name = _called(node)
    if name in _PREMISE_CALLS:
        return True
    return (name == "of" and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "Premise")


def _is_record(node: ast.AST, records: set[str], premises: set[str]) -> bool:
    """Whether ``node`` is a premise record, or a belief's stored premises."""
    if isinstance(node, ast.Name):
        return node.id in records
    if isinstance(node, ast.Attribute):
        if node.attr == "evidence":
            return not (isinstance(node.value, ast.Name) and node.value.id == "self")
        if node.attr == "record":
            return _is_premise(node.value, premises)
        return False
    return _called(node) in _RECORD_CALLS


def _iterates_premises(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "premises"


def _names(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


class _Function:
    """The record names of one function, found in two passes (bindings, then reads)."""

    def __init__(self, fn: ast.AST) -> None:
        self.fn = fn
        self.records: set[str] = set()
        self.lists: set[str] = set()
        self.premises: set[str] = set()
        args = getattr(fn, "args", None)
        if args is not None:
            for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                annotation = ast.unparse(a.annotation) if a.annotation is not None else ""
                if "PremiseRecord" in annotation:
                    self.records.add(a.arg)
                if annotation.strip("'\"") == "Premise":
                    self.premises.add(a.arg)

    def bind(self) -> None:
        # until nothing new: a name may be bound from another bound later in the text
        while True:
            before = (len(self.records), len(self.lists), len(self.premises))
            for node in _own_nodes(self.fn):
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
                    value = node.value
                    targets = (node.targets if isinstance(node, ast.Assign)
                               else [node.target])
                    if value is None:
                        continue
                    simple = [t.id for t in targets if isinstance(t, ast.Name)]
                    if _is_record(value, self.records, self.premises):
                        self.records.update(simple)
                    elif self._is_list(value):
                        self.lists.update(simple)
                    elif _is_premise(value, self.premises) and not isinstance(value, ast.Name):
                        self.premises.update(simple)
                elif isinstance(node, (ast.For, ast.comprehension)):
                    if self._holds_records(node.iter):
                        self.records.update(_names(node.target))
                    elif _iterates_premises(node.iter):
                        self.premises.update(_names(node.target))
            if (len(self.records), len(self.lists), len(self.premises)) == before:
                return

    def _is_list(self, node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id in self.lists) or (
            _called(node) in _LIST_CALLS)

    def _holds_records(self, node: ast.AST) -> bool:
        """Whether iterating ``node`` gives records: a list of them, or a belief's stored
        premises (``.evidence``, a record or a list of records)."""
        return self._is_list(node) or (isinstance(node, (ast.Attribute, ast.Name))
                                       and _is_record(node, self.records, self.premises))

    def reads(self) -> Iterator[tuple[int, str]]:
        def record(node: ast.AST) -> bool:
            return _is_record(node, self.records, self.premises)

        for node in _own_nodes(self.fn):
            if isinstance(node, ast.Subscript) and record(node.value):
                yield node.lineno, f"indexes {ast.unparse(node)}"
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id == "len" and node.args and record(node.args[0])):
                yield node.lineno, f"measures {ast.unparse(node)}"
            elif (isinstance(node, ast.Assign) and record(node.value)
                  and any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets)):
                yield node.lineno, f"unpacks {ast.unparse(node.value)}"
            elif (isinstance(node, (ast.For, ast.comprehension))
                  and isinstance(node.target, (ast.Tuple, ast.List))
                  and self._holds_records(node.iter)):
                yield getattr(node, "lineno", node.iter.lineno), (
                    f"unpacks each of {ast.unparse(node.iter)}")


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)


def _own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``fn`` not inside a nested function or class (those are scopes of their
    own); lambdas and comprehensions stay with their function."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def record_reads(path: Path) -> list[str]:
    """Every place in ``path`` where a premise record is indexed, measured or unpacked."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, _SCOPES):
            scope = _Function(node)
            scope.bind()
            rel = path.relative_to(ROOT.parent) if path.is_relative_to(ROOT) else path.name
            found += [f"{rel}:{line}: {what}" for line, what in scope.reads()]
    return sorted(set(found))


def test_the_rule_sees_each_way_of_reading_a_record(tmp_path: Path) -> None:
    source = tmp_path / "reader.py"
    source.write_text(
        "def a(b):\n"
        "    ev = b.evidence\n"
        "    life = ev[3]\n"
        "    return len(life)\n"
        "def c(b):\n"
        "    for r in b.records():\n"
        "        print(r[0])\n"
        "def d(record: PremiseRecord):\n"
        "    source, origin, at, life = record\n"
        "def e(kb):\n"
        "    return [p.record[2] for p in kb.premises]\n"
        "def f(b):\n"
        "    return len(b.evidence) + b.record_from('x')[1]\n"
        "def g(b):\n"
        "    return [s for s, o, at, life in b.records()]\n"
        "def h(b):\n"
        "    ev = b.evidence\n"
        "    return max(r[2] for r in ev)\n"
        "def fine(b, self, record):\n"
        "    x = self.evidence\n"
        "    return x[b], len(b.records()) > 1, record['status']\n", encoding="utf-8")
    reads = [line.split(": ", 1)[0].rsplit(":", 1)[1] for line in record_reads(source)]
    # fine(): a trial's own table and a count of a belief's records are no record reads
    assert sorted(map(int, reads)) == [3, 7, 9, 11, 13, 13, 15, 18], record_reads(source)


def test_only_records_py_reads_the_layout() -> None:
    reads = []
    for path in sorted(ROOT.rglob("*.py")):
        if path != OWNER:
            reads += record_reads(path)
    assert reads == [], "read a premise record through corollary.tms.records:\n" + "\n".join(
        reads)
