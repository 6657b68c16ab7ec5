"""The checks of what the promises are given: flat sequences, right/wrong labels, scores and
confidences, each refused with a typed error naming the argument (shared by calibration,
guarantees, the promise book and its bindings)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import NDArray

from corollary.foundations.errors import InvalidInputError, InvalidTypeError

__all__ = ["as_1d", "check_confidences", "check_correct", "check_numbers"]


def as_1d(values: Any, name: str) -> np.ndarray:
    """``values`` as a one-dimensional array (any dtype), or a typed error naming ``name``.

    >>> as_1d([1, 2], "scores").shape
    (2,)
    >>> as_1d([[1], [2]], "scores")
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidInputError: scores must be one-dimensional, got shape (2, 1)
    """
    if values is None or isinstance(values, (str, bytes)):
        raise InvalidTypeError(f"{name} must be a sequence or array, not {type(values).__name__}")
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError) as exc:  # ragged nesting, objects numpy cannot hold
        raise InvalidInputError(f"{name} must be a flat sequence of numbers ({exc})") from None
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def check_correct(correct: Any, name: str = "correct") -> NDArray[np.bool_]:
    """Return ``correct`` as a boolean array, accepting only booleans and the integers 0 / 1.

    Floats (even ``1.0``), strings and ``None`` are refused: a correctness label that is not
    plainly yes or no is more likely a bug (a probability passed by mistake) than a label.

    >>> check_correct([True, 0, 1]).tolist()
    [True, False, True]
    >>> check_correct([1.0])
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidTypeError: correct must hold booleans or 0 / 1, got dtype float64 (e.g. np.float64(1.0))
    """
    arr = as_1d(correct, name)
    if arr.dtype == np.bool_:
        return arr
    if arr.size == 0:  # [] has dtype float64; emptiness is judged by the caller
        return np.zeros(0, dtype=bool)
    if np.issubdtype(arr.dtype, np.integer):
        bad = ~np.isin(arr, (0, 1))
        if bad.any():
            raise InvalidInputError(f"{name} must hold booleans or 0 / 1, found {arr[bad][0]!r}")
        return arr.astype(bool)
    if arr.dtype == object:
        out = np.empty(arr.size, dtype=bool)
        for i, v in enumerate(arr):
            if isinstance(v, (bool, np.bool_)):
                out[i] = bool(v)
            elif isinstance(v, (numbers.Integral, np.integer)):
                if v not in (0, 1):
                    raise InvalidInputError(f"{name} must hold booleans or 0 / 1, found {v!r}")
                out[i] = bool(v)
            else:
                raise InvalidTypeError(
                    f"{name} must hold booleans or 0 / 1, found {type(v).__name__} {v!r}"
                )
        return out
    raise InvalidTypeError(
        f"{name} must hold booleans or 0 / 1, got dtype {arr.dtype} (e.g. {arr.flat[0]!r})"
    )


def check_numbers(values: Any, name: str) -> NDArray[np.float64]:
    """Return ``values`` as a float array; refuse booleans, strings, objects and NaN.

    >>> check_numbers([1, 2.5], "scores").tolist()
    [1.0, 2.5]
    """
    arr = as_1d(values, name)
    if arr.dtype == np.bool_ or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise InvalidTypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if np.isnan(arr).any():
        raise InvalidInputError(f"{name} holds NaN at index {int(np.flatnonzero(np.isnan(arr))[0])}")
    return arr


def check_confidences(values: Any, name: str = "confidences") -> NDArray[np.float64]:
    """Return ``values`` as a float array of numbers in ``[0, 1]`` (see :func:`check_numbers`).

    >>> check_confidences([0.2, 1.0]).tolist()
    [0.2, 1.0]
    """
    arr = check_numbers(values, name)
    if arr.size and (arr.min() < 0.0 or arr.max() > 1.0):
        raise InvalidInputError(f"{name} must lie in [0, 1], found {arr[(arr < 0) | (arr > 1)][0]!r}")
    return arr
