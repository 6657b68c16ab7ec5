"""How a base applies a promise: the signal it reads, its groups, and the examples' shapes.

A promise from :mod:`corollary.promises.guarantee` is a threshold on a number. Inside a base that number
is read for the key being answered, and a :class:`Binding` says how:

``signal``
    the belief's confidence (``"confidence"``, the default); a *key* whose held value is a
    number computed for the same subject (``"margin:{key}"`` reads ``margin:hq`` when ``hq`` is
    answered; a key without ``{key}`` is read as it is); or a *function* ``fn(kb, key) ->
    float`` that receives the base itself.
``groups``
    none; ``"answer"`` (one threshold per answered value); a key whose held value is the
    group label; or a function ``fn(kb, key) -> label``.
``judge``
    the name of the function ``(given, expected) -> bool`` that decided which calibration
    examples were right, carried into every verdict.
``calibrator``
    with ``folds=``, the Platt map fitted on the calibration examples: the promise's threshold
    is on the mapped signal.

A binding is saved with its promise in snapshots: a key is saved as it is; a function by its
qualified name (``module.qualname``), re-bound on load from the ``functions=`` passed to
:meth:`corollary.BeliefBase.load` (a promise whose function is not passed is refused with a
:class:`~corollary.foundations.errors.SnapshotError`). A judge is only called while calibrating, so its name
is kept and nothing needs re-binding for it.

:func:`read_examples` reads calibration examples in the shapes a binding needs (see the table
in ``docs/guarantees.md``).
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..foundations.errors import InvalidInputError, InvalidTypeError, UnknownBeliefError
from ..foundations.values import canon, check_key, plain

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import NDArray

    from ..tms import Belief

__all__ = ["CONFIDENCE", "DEFAULT", "KEY_FIELD", "SIGNAL", "Binding", "Examples", "Reader",
           "check_label", "group_reader", "qualified_name", "read_examples", "same_value",
           "signal_reader"]

#: The signal a promise is on unless told otherwise: the belief's (raw) confidence.
SIGNAL = "confidence"
#: What ``{key}`` in a signal or group key stands for: the key being answered.
KEY_FIELD = "{key}"

HeldOf = Callable[[str], "list[Belief]"]


def qualified_name(fn: Callable[..., Any], what: str) -> str:
    """``module.qualname`` of ``fn``: the name a snapshot saves it by.

    A lambda has no name to re-bind it by and is refused.

    >>> qualified_name(qualified_name, "a signal")
    'corollary.promises.bindings.qualified_name'
    """
    if not callable(fn):
        raise InvalidTypeError(f"{what} must be callable, not {type(fn).__name__}")
    qual = getattr(fn, "__qualname__", None)
    module = getattr(fn, "__module__", None)
    if not isinstance(qual, str) or not isinstance(module, str):
        raise InvalidTypeError(f"{what} needs a __module__ and __qualname__ to be saved by name: "
                               f"{fn!r}")
    if "<lambda>" in qual:
        raise InvalidInputError(f"{what} is saved by its qualified name and re-bound on load: "
                                "define it with def, not lambda")
    return f"{module}.{qual}"


def check_label(value: Any, what: str) -> Any:
    """A group label or one-sided answer: a string, a finite number or a bool."""
    if type(value) is str:
        return value
    if isinstance(value, (bool, str)) or (isinstance(value, numbers.Real)
                                          and math.isfinite(float(value))):
        return plain(value.item() if hasattr(value, "item") else value)
    raise InvalidTypeError(f"{what} must be a string, a finite number or a bool, not {value!r:.80}")


@attrs.frozen
class Reader:
    """Where a number (a signal) or a label (a group) for an answered key comes from.

    Attributes
    ----------
    kind : {"confidence", "answer", "key", "function"}
    name : str
        ``"confidence"``, ``"answer"``, the key (``{key}`` stands for the answered key) or the
        function's qualified name.
    fn : callable or None
        The function (``kind="function"``), ``fn(kb, key)``.

    Examples
    --------
    >>> Reader("key", "margin:{key}").key_for("hq")
    'margin:hq'
    """

    kind: str
    name: str
    fn: Callable[[Any, str], Any] | None = attrs.field(default=None, eq=False, repr=False)

    def key_for(self, key: str) -> str:
        """The key this reader reads when ``key`` is answered."""
        return self.name.replace(KEY_FIELD, key)

    def label(self, key: str) -> str:
        """How a verdict names what was read for ``key``."""
        if self.kind == "key":
            return f"key:{self.key_for(key)}"
        if self.kind == "function":
            return f"function:{self.name}"
        return self.kind

    def to_dict(self) -> dict[str, str]:
        """Plain data: the kind and the name (a function is saved by name)."""
        return {"kind": self.kind, "name": self.name}

    def read(self, key: str, held: list[Belief], held_of: HeldOf, base: Any
             ) -> tuple[Any, str, str | None]:
        """The raw value for ``key``, where it came from, and why there is none (if not)."""
        if self.kind == "confidence":
            return (float(held[0].conf), "the confidence", None) if len(held) == 1 else (
                None, "the confidence", "no single value is held")
        if self.kind == "answer":
            return (held[0].value, "the answer", None) if len(held) == 1 else (
                None, "the answer", "no single value is held")
        if self.kind == "key":
            other = self.key_for(key)
            where = f"key {other!r}"
            try:
                found = held_of(other)
            except UnknownBeliefError:
                return None, where, f"{where} was never asserted"
            if len(found) != 1:
                return None, where, f"{where} {'holds nothing' if not found else 'is in an open conflict'}"
            return found[0].value, where, None
        assert self.fn is not None, "a function reader without its function"
        where = f"{self.name}(kb, {key!r})"
        raw = self.fn(base, key)
        return raw, where, (f"{where} returned None" if raw is None else None)


#: The default signal reader.
CONFIDENCE = Reader("confidence", SIGNAL)


def _key_or_function(value: Any, what: str, named: str, gives: str) -> Reader:
    """A reader of a key (``{key}`` stands for the answered key) or of a function."""
    if isinstance(value, str):
        check_key(value.replace(KEY_FIELD, "k"))
        return Reader("key", str(value))
    if callable(value):
        return Reader("function", qualified_name(value, f"a {what} function"), value)
    raise InvalidTypeError(f"{what} must be {named}, a key or a function (kb, key) -> {gives}, "
                           f"not {type(value).__name__}")


def signal_reader(signal: Any) -> Reader:
    """A :class:`Reader` for ``signal=``: None / "confidence", a key, or a function."""
    if signal is None or (type(signal) is str and signal == SIGNAL):
        return CONFIDENCE
    return _key_or_function(signal, "signal", '"confidence"', "float")


def group_reader(groups: Any) -> Reader | None:
    """A :class:`Reader` for ``groups=``: None, "answer", a key, or a function (each
    calibration example carries its own group)."""
    if groups is None:
        return None
    if type(groups) is str and groups == "answer":
        return Reader("answer", "answer")
    return _key_or_function(groups, "group", '"answer"', "label")


@attrs.frozen
class Binding:
    """How a base applies one promise (see the module docstring).

    Attributes
    ----------
    signal : Reader
        What the threshold is on.
    groups : Reader or None
        How the group of an answered key is found (``None``: one threshold, or a group passed
        to :meth:`corollary.BeliefBase.answer` for a grouped promise attached by hand).
    judge : str or None
        The qualified name of the judge the examples were judged by.
    calibrator : dict or None
        ``Platt.to_dict()`` of the map the signal goes through (``folds=``).

    Examples
    --------
    >>> Binding().signal_name("hq"), Binding().is_default
    ('confidence', True)
    >>> b = Binding(signal=Reader("key", "margin:{key}"))
    >>> b.signal_name("hq"), b.spec == Binding.from_dict(b.to_dict(), {}).spec
    ('key:margin:hq', True)
    """

    signal: Reader = CONFIDENCE
    groups: Reader | None = None
    judge: str | None = None
    calibrator: dict[str, Any] | None = None

    @property
    def is_default(self) -> bool:
        """Whether this is the binding every promise had before signals: the confidence alone."""
        return self.spec == _DEFAULT_SPEC

    def signal_name(self, key: str) -> str:
        """How a verdict on ``key`` names its signal."""
        name = self.signal.label(key)
        return f"platt:{name}" if self.calibrator is not None else name

    @property
    def grouping(self) -> str | None:
        """How groups are found, in words for a verdict (``None`` without a rule)."""
        return None if self.groups is None else self.groups.label("{key}")

    def to_dict(self) -> dict[str, Any]:
        """Plain data (functions by name)."""
        return {
            "signal": self.signal.to_dict(),
            "groups": None if self.groups is None else self.groups.to_dict(),
            "judge": self.judge,
            "calibrator": None if self.calibrator is None else dict(self.calibrator),
        }

    @property
    def spec(self) -> str:
        """SHA-256 of :meth:`to_dict`: a verdict keeps it, and replay compares it."""
        blob = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]]
                  ) -> Binding:
        """Rebuild from :meth:`to_dict`, re-binding functions by name from ``functions``.

        Raises
        ------
        InvalidInputError
            A signal or group function that ``functions`` lacks (the message says what to
            pass), or a kind this corollary does not know.
        """
        def reader(r: Mapping[str, Any], what: str, kinds: tuple[str, ...]) -> Reader:
            kind, name = r["kind"], r["name"]
            if kind not in kinds:
                raise InvalidInputError(f"unknown {what} kind {kind!r}")
            if kind != "function":
                return Reader(kind, name)
            fn = functions.get(name)
            if fn is None:
                raise InvalidInputError(
                    f"its {what} is the function {name!r}, which is not defined here: pass "
                    f"functions=[{name.rsplit('.', 1)[-1]}] to load it")
            return Reader(kind, name, fn)

        signal = reader(d["signal"], "signal", ("confidence", "key", "function"))
        groups = (None if d["groups"] is None
                  else reader(d["groups"], "group", ("answer", "key", "function")))
        return cls(signal, groups, d["judge"],
                   None if d["calibrator"] is None else dict(d["calibrator"]))

    # -- at answer time ------------------------------------------------------------------
    def read_signal(self, key: str, held: list[Belief], held_of: HeldOf, base: Any
                    ) -> tuple[float | None, str | None]:
        """The signal for ``key`` (one value held), or ``None`` and why it cannot be read."""
        raw, where, missing = self.signal.read(key, held, held_of, base)
        if missing is not None:
            return None, f"the signal cannot be read: {missing}"
        if isinstance(raw, (bool, str)) or not isinstance(raw, numbers.Real) or not math.isfinite(
                float(raw)):
            return None, f"the signal is not a finite number: {where} gave {raw!r:.80}"
        value = float(raw)
        if self.calibrator is not None:
            from .calibration import Platt

            if not 0.0 <= value <= 1.0:
                return None, (f"the signal {value:.4g} from {where} lies outside [0, 1], where "
                              "the promise's calibrator maps it")
            value = float(Platt.from_dict(self.calibrator).predict(value))
        return value, None

    def read_group(self, key: str, held: list[Belief], held_of: HeldOf, base: Any
                   ) -> tuple[Any, str | None]:
        """The group of ``key``, or ``None`` and why it cannot be found."""
        assert self.groups is not None
        raw, where, missing = self.groups.read(key, held, held_of, base)
        if missing is not None:
            return None, f"the group cannot be found: {missing}"
        try:
            return check_label(raw, "a group label"), None
        except InvalidTypeError:
            return None, f"the group from {where} is not a label (a string, number or bool): {raw!r:.80}"


#: The binding of a promise on the confidence alone.
DEFAULT = Binding()
_DEFAULT_SPEC = DEFAULT.spec


# ---------------------------------------------------------------------------------------------
# Calibration examples
# ---------------------------------------------------------------------------------------------


@attrs.frozen
class Examples:
    """Calibration examples, read: one signal, answer, group and correctness per example."""

    signals: NDArray[np.float64]
    correct: NDArray[np.bool_]
    answers: list[Any] | None = None
    groups: list[Any] | None = None


def _shape(signal: Reader, groups: Reader | None, one_sided: bool, judged: bool
           ) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    """The fields of a tuple example, and the shorter form also accepted (or ``None``)."""
    sig = "confidence" if signal.kind == "confidence" else "signal"
    outcome = ("answer", "expected") if judged else ("answer", "correct")
    if groups is not None and groups.kind in ("key", "function"):
        return ((sig, "group", *outcome) if judged else (sig, "group", "correct")), None
    if judged or (groups is not None and groups.kind == "answer"):
        return (sig, *outcome), None
    if one_sided:
        return (sig, "answer", "correct"), (sig, "correct")
    return (sig, "correct"), None


def _words(fields: tuple[str, ...]) -> str:
    return "(" + ", ".join(fields) + ")"


def read_examples(examples: Iterable[Any], *, signal: Reader, groups: Reader | None,
                  answer: Any, judge: Callable[[Any, Any], Any] | None,
                  unit: bool) -> Examples:
    """Read calibration examples in the shape the binding needs.

    Tuples, by the binding (a confidence signal writes ``confidence`` for ``signal``):

    ==============================================  =====================================
    binding                                         example
    ==============================================  =====================================
    plain                                           ``(signal, correct)``
    ``answer=`` (one-sided)                         ``(signal, correct)`` or
                                                    ``(signal, answer, correct)``
    ``groups="answer"``                             ``(signal, answer, correct)``
    ``correct=judge``, no groups or by answer       ``(signal, answer, expected)``
    ``groups=`` a key or a function                 ``(signal, group, correct)``
    the same with ``correct=judge``                 ``(signal, group, answer, expected)``
    ==============================================  =====================================

    A mapping with those field names is read the same way. ``correct`` is a bool (or 0 / 1);
    with a judge, ``judge(answer, expected)`` must return one.

    Parameters
    ----------
    unit : bool
        Whether signals must lie in [0, 1] (a confidence, or a signal a calibrator maps).

    Examples
    --------
    >>> ex = read_examples([(0.9, "yes", True), (0.2, "no", False)], signal=CONFIDENCE,
    ...                    groups=Reader("answer", "answer"), answer=None, judge=None, unit=True)
    >>> ex.signals.tolist(), ex.answers, ex.correct.tolist()
    ([0.9, 0.2], ['yes', 'no'], [True, False])
    """
    from .checks import check_correct

    judged = judge is not None
    form = _Form.of(signal, groups, answer is not None, judged)
    if isinstance(examples, (str, bytes, Mapping)) or not isinstance(examples, Iterable):
        raise InvalidTypeError(f"examples must be {_words(form.fields)} tuples, not "
                               f"{type(examples).__name__}")
    by_answer = groups is not None and groups.kind == "answer"
    signals: list[float] = []
    labels: list[Any] = []
    answers: list[Any] = []
    groups_of: list[Any] = []
    for i, ex in enumerate(examples):
        item = form.item(ex, i)
        s = item["signal"]
        if type(s) is not float and (isinstance(s, (bool, str)) or not isinstance(s, numbers.Real)):
            raise InvalidTypeError(f"example {i}: a {form.sig} is a number, not {s!r:.80}")
        signals.append(float(s))
        labels.append(_verdict(judge, item, i) if judged else item["correct"])
        if "answer" in item:
            given = item["answer"]
            answers.append(check_label(given, f"example {i}'s answer") if by_answer else given)
        if "group" in item:
            groups_of.append(check_label(item["group"], f"example {i}'s group"))
    if not signals:
        raise InvalidInputError("examples is empty")
    arr = _signal_array(signals, unit, form.sig)
    right = check_correct(labels)
    have_answers = len(answers) == len(signals)
    if answers and not have_answers:
        raise InvalidInputError("give every example in the same form: some carry an answer, "
                                "some do not")
    return Examples(arr, right, answers if have_answers else None, groups_of or None)


@attrs.frozen
class _Form:
    """The fields of a tuple example (``signal`` standing for the signal's own name, ``sig``)
    and the shorter form also accepted (``None``: none)."""

    fields: tuple[str, ...]
    short: tuple[str, ...] | None
    sig: str
    names: tuple[str, ...]
    short_names: tuple[str, ...] | None

    @classmethod
    def of(cls, signal: Reader, groups: Reader | None, one_sided: bool, judged: bool) -> _Form:
        fields, short = _shape(signal, groups, one_sided, judged)
        sig = fields[0]

        def named(fs: tuple[str, ...]) -> tuple[str, ...]:
            return tuple("signal" if f == sig else f for f in fs)

        return cls(fields, short, sig, named(fields), None if short is None else named(short))

    def item(self, ex: Any, i: int) -> dict[str, Any]:
        """Example ``i`` (a mapping or a tuple) as its fields, checked against the form."""
        if isinstance(ex, Mapping):
            row = dict(ex)
            if self.sig == "confidence" and "confidence" in row and "signal" not in row:
                row["signal"] = row.pop("confidence")
            optional = {"answer"} if self.short else set()
            missing = [f for f in self.names if f not in row and f not in optional]
            unknown = sorted(map(str, set(row) - set(self.names)))
            if missing or unknown:
                raise InvalidInputError(
                    f"example {i} must have the fields {list(self.names)}"
                    + (f" ({', '.join(sorted(optional))} optional)" if optional else "")
                    + (f"; it lacks {missing}" if missing else "")
                    + (f"; it has unknown fields {unknown}" if unknown else ""))
            return {f: row[f] for f in self.names if f in row}
        size = len(ex) if hasattr(ex, "__len__") and not isinstance(ex, (str, bytes)) else -1
        if size == len(self.names):
            return dict(zip(self.names, ex, strict=True))
        if self.short_names is not None and size == len(self.short_names):
            return dict(zip(self.short_names, ex, strict=True))
        form = _words(self.fields) + (f" or {_words(self.short)}" if self.short else "")
        raise InvalidInputError(f"example {i} is not a {form} "
                                f"{'pair' if len(self.fields) == 2 else 'tuple'}: {ex!r:.120}")


def _verdict(judge: Callable[[Any, Any], Any] | None, item: dict[str, Any], i: int) -> bool:
    """The judge's verdict on example ``i``, which must be a bool."""
    assert judge is not None
    verdict = judge(item["answer"], item["expected"])
    if not isinstance(verdict, bool) and type(verdict).__name__ != "bool_":
        raise InvalidTypeError(f"example {i}: the judge returned {verdict!r:.80}, not a bool")
    return bool(verdict)


def _signal_array(signals: list[float], unit: bool, sig: str) -> NDArray[np.float64]:
    """The signals as an array: in [0, 1] when ``unit``, else finite."""
    import numpy as np

    from .checks import check_confidences

    if unit:
        return check_confidences(signals, "confidences" if sig == "confidence" else "signals")
    arr = np.asarray(signals, dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        raise InvalidInputError(f"signals must be finite, found {arr[bad][0]!r}")
    return arr


def same_value(a: Any, b: Any) -> bool:
    """Whether two values are the same answer, as beliefs compare them (``1 == 1.0``, ``True``
    is not ``1``); anything that is not plain data is the same only as itself.

    >>> same_value(1, 1.0), same_value(True, 1), same_value({"a"}, "a")
    (True, False, False)
    """
    try:
        return bool(canon(plain(a)) == canon(plain(b)))
    except (InvalidInputError, InvalidTypeError, AttributeError):
        return a is b
