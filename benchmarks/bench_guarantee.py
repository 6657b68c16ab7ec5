"""Benchmark corollary.promises.guarantee / corollary.promises.calibration against MAPIE and scikit-learn.

Synthetic stream with a known truth: scores s ~ U(0, 1), P(wrong | s) = 0.6 (1 - s)^2. A
threshold t then has, on new inputs, answered share 1 - t, risk (answered and wrong, of all)
0.2 (1 - t)^3 and error among the answered 0.2 (1 - t)^2: the "realised" figures below are these
exact population values at the threshold each method chose on its calibration set.

Run:  python benchmarks/bench_guarantee.py            (writes benchmarks/RESULTS_guarantee.md)
Needs the bench extra: pip install 'mapie>=1.4.1' scikit-learn
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from corollary.promises.calibration import Platt
from corollary.promises.guarantee import calibrate

try:
    import mapie
    import sklearn
    from mapie.risk_control import BinaryClassificationController, precision
    from mapie.risk_control.methods import find_best_predict_param, get_r_hat_plus
    from sklearn.calibration import _SigmoidCalibration
except ImportError as exc:  # pragma: no cover - depends on the environment
    sys.exit(f"bench_guarantee needs mapie>=1.4.1 and scikit-learn: {exc}")

E, DELTA, R = 0.05, 0.1, 0.02
GRID = np.linspace(0, 0.99, 100)  # MAPIE's default list_predict_params


def draw(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    s = rng.random(n)
    return s, rng.random(n) >= 0.6 * (1.0 - s) ** 2


def population(t: float | None) -> tuple[float, float, float]:
    """(answered, risk, error among answered) of threshold t on the stream; None / inf: nothing."""
    if t is None or math.isinf(t):
        return 0.0, 0.0, 0.0
    t = max(float(t), 0.0)
    return 1 - t, 0.2 * (1 - t) ** 3, 0.2 * (1 - t) ** 2


def _proba(X: np.ndarray) -> np.ndarray:
    return np.c_[1 - X[:, 0], X[:, 0]]


# -- the contenders: each takes (scores, correct) and returns a threshold (None: nothing) -----------


def ours_ltt(s, right):
    return calibrate(s, right, max_error=E, delta=DELTA).threshold


def ours_crc(s, right):
    return calibrate(s, right, max_risk=R).threshold


def mapie_ltt(fwer):
    def run(s, right):
        c = BinaryClassificationController(
            predict_function=_proba, risk=precision, target_level=1 - E,
            confidence_level=1 - DELTA, fwer_method=fwer,
        )
        c.calibrate(s[:, None], right.astype(int))
        return c.best_predict_param

    return run


def mapie_crc(s, right):
    # MAPIE's conformal risk control (the code behind MultiLabelClassificationController(
    # method="crc")) on our loss: 1 if answered (s >= lambda) and wrong, over its lambda grid.
    loss = ((s[:, None] >= GRID[None, :]) & ~right[:, None]).astype(float)
    _, r_hat_plus = get_r_hat_plus(loss, GRID, "crc", None, None, None)
    lam = float(find_best_predict_param(GRID, r_hat_plus, np.array([R]))[0])
    # find_best_predict_param returns an extreme lambda when nothing is valid
    return lam if r_hat_plus[GRID == lam][0] < R else None


def timed(fn, *args, repeat=1):
    best = math.inf
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t0)
    return out, best


def validity(n_sets: int, n_cal: int, seed: int = 0) -> list[dict]:
    contenders = {
        "corollary ltt (error<=0.05, delta 0.1)": ("error", ours_ltt),
        "MAPIE LTT precision>=0.95, bonferroni_holm": ("error", mapie_ltt("bonferroni_holm")),
        "MAPIE LTT precision>=0.95, fixed_sequence": ("error", mapie_ltt("fixed_sequence")),
        "corollary crc (risk<=0.02)": ("risk", ours_crc),
        "MAPIE CRC (get_r_hat_plus, risk<=0.02)": ("risk", mapie_crc),
    }
    acc = {k: {"risk": [], "error": [], "answered": [], "viol": 0, "none": 0, "time": 0.0} for k in contenders}
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MAPIE warns on every set where nothing is valid
        for _ in range(n_sets):
            s, right = draw(rng, n_cal)
            for name, (kind, fn) in contenders.items():
                t, dt = timed(fn, s, right)
                a, risk, err = population(t)
                d = acc[name]
                d["time"] += dt
                d["answered"].append(a)
                d["risk"].append(risk)
                d["error"].append(err)
                d["none"] += a == 0.0
                d["viol"] += (err > E) if kind == "error" else (risk > R)
    rows = []
    for name, d in acc.items():
        rows.append(
            {
                "method": name,
                "mean risk": float(np.mean(d["risk"])),
                "SE of mean risk": float(np.std(d["risk"]) / math.sqrt(n_sets)),
                "mean error": float(np.mean(d["error"])),
                "P(target broken)": d["viol"] / n_sets,
                "answered": float(np.mean(d["answered"])),
                "sets answering nothing": d["none"] / n_sets,
                "ms/call": 1000 * d["time"] / n_sets,
            }
        )
    return rows


def speed(n: int, seed: int = 1) -> list[dict]:
    s, right = draw(np.random.default_rng(seed), n)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, fn in [
            ("corollary ltt", ours_ltt),
            ("MAPIE LTT bonferroni_holm", mapie_ltt("bonferroni_holm")),
            ("corollary crc", ours_crc),
            ("MAPIE CRC", mapie_crc),
        ]:
            _, dt = timed(fn, s, right, repeat=3)
            rows.append({"n": n, "method": name, "s/call": dt})
    return rows


def million(seed: int = 2) -> list[dict]:
    s, right = draw(np.random.default_rng(seed), 1_000_000)
    rows = []
    for label, kw in [
        ("crc max_risk=0.02", {"max_risk": 0.02}),
        ("ltt max_error=0.05", {"max_error": 0.05}),
        ("ltt max_error=0.15", {"max_error": 0.15}),
        ("empirical max_error=0.05", {"max_error": 0.05, "method": "empirical"}),
    ]:
        p, dt = timed(lambda kw=kw: calibrate(s, right, **kw), repeat=3)
        rows.append({"call": label, "s (best of 3)": dt, "threshold": p.threshold, "answered": p.report["answered"]})
    return rows


def _logit(c):
    c = np.clip(c, 1e-6, 1 - 1e-6)
    return np.log(c) - np.log1p(-c)


def _logloss(p, y):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return float(-np.mean(np.where(y, np.log(p), np.log1p(-p))))


def platt_vs_sklearn(n_fit: int, n_test: int = 200_000, seed: int = 3) -> dict:
    """Over-confident source: says c, is right with probability sigmoid(0.6 logit(c) + 0.4)."""
    rng = np.random.default_rng(seed)

    def draw_conf(n):
        c = rng.uniform(0.01, 0.99, n)
        truth = 1 / (1 + np.exp(-(0.6 * _logit(c) + 0.4)))
        return c, rng.random(n) < truth, truth

    c, y, _ = draw_conf(n_fit)
    ct, yt, truth = draw_conf(n_test)
    ours, t_ours = timed(lambda: Platt().fit(c, y), repeat=5)
    sk, t_sk = timed(lambda: _SigmoidCalibration().fit(_logit(c), y), repeat=5)
    p_ours = ours.predict(ct)
    p_sk = sk.predict(_logit(ct))
    return {
        "n_fit": n_fit,
        "logloss raw": _logloss(ct, yt),
        "logloss corollary Platt": _logloss(p_ours, yt),
        "logloss sklearn sigmoid": _logloss(p_sk, yt),
        "logloss truth": _logloss(truth, yt),
        "max |p_ours - p_sklearn|": float(np.max(np.abs(p_ours - p_sk))),
        "a (ours, sklearn -a)": (ours.a_, -float(sk.a_)),
        "b (ours, sklearn -b)": (ours.b_, -float(sk.b_)),
        "fit ms corollary": 1000 * t_ours,
        "fit ms sklearn": 1000 * t_sk,
    }


def _table(rows: list[dict], fmt: dict | None = None) -> str:
    fmt = fmt or {}
    keys = list(rows[0])
    out = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for r in rows:
        cells = []
        for k in keys:
            v = r[k]
            if isinstance(v, float):
                cells.append(format(v, fmt.get(k, ".4g")))
            elif isinstance(v, tuple):
                cells.append(", ".join(format(x, ".4f") for x in v))
            else:
                cells.append(str(v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=1000, help="calibration sets for the validity table")
    ap.add_argument("--n", type=int, default=1000, help="examples per calibration set")
    ap.add_argument("--out", default=str(Path(__file__).with_name("RESULTS_guarantee.md")))
    args = ap.parse_args()
    t_start = time.perf_counter()

    val = validity(args.sets, args.n)
    by = {r["method"]: r for r in val}
    sp = speed(1000) + speed(100_000)
    sp_by = {(r["n"], r["method"]): r["s/call"] for r in sp}
    big = million()
    pl = [platt_vs_sklearn(2000), platt_vs_sklearn(100_000)]
    total = time.perf_counter() - t_start

    ours_l, hb = by["corollary ltt (error<=0.05, delta 0.1)"], by["MAPIE LTT precision>=0.95, bonferroni_holm"]
    ours_c, mc = by["corollary crc (risk<=0.02)"], by["MAPIE CRC (get_r_hat_plus, risk<=0.02)"]
    ratios = [
        {"ratio (same run)": "answered share, corollary ltt / MAPIE LTT (Holm)", "value": ours_l["answered"] / hb["answered"]},
        {"ratio (same run)": "answered share, corollary crc / MAPIE CRC", "value": ours_c["answered"] / mc["answered"]},
        {"ratio (same run)": "time per call n=1000, MAPIE LTT (Holm) / corollary ltt", "value": sp_by[(1000, "MAPIE LTT bonferroni_holm")] / sp_by[(1000, "corollary ltt")]},
        {"ratio (same run)": "time per call n=100000, MAPIE LTT (Holm) / corollary ltt", "value": sp_by[(100_000, "MAPIE LTT bonferroni_holm")] / sp_by[(100_000, "corollary ltt")]},
        {"ratio (same run)": "time per call n=1000, MAPIE CRC / corollary crc", "value": sp_by[(1000, "MAPIE CRC")] / sp_by[(1000, "corollary crc")]},
        {"ratio (same run)": "time per call n=100000, MAPIE CRC / corollary crc", "value": sp_by[(100_000, "MAPIE CRC")] / sp_by[(100_000, "corollary crc")]},
        {"ratio (same run)": "Platt fit time n=2000, sklearn / corollary", "value": pl[0]["fit ms sklearn"] / pl[0]["fit ms corollary"]},
        {"ratio (same run)": "Platt fit time n=100000, sklearn / corollary", "value": pl[1]["fit ms sklearn"] / pl[1]["fit ms corollary"]},
        {"ratio (same run)": "Platt test log-loss n=2000, corollary / sklearn", "value": pl[0]["logloss corollary Platt"] / pl[0]["logloss sklearn sigmoid"]},
        {"ratio (same run)": "calibrate on 1M (slowest of the four) / 1 s bar", "value": max(r["s (best of 3)"] for r in big)},
    ]

    cmd = "python benchmarks/bench_guarantee.py" + (
        f" --sets {args.sets} --n {args.n}" if (args.sets, args.n) != (1000, 1000) else ""
    )
    env = (
        f"Python {platform.python_version()}, numpy {np.__version__}, mapie {mapie.__version__}, "
        f"scikit-learn {sklearn.__version__}, {platform.machine()}; whole run {total:.0f} s"
    )
    sections = [
        ("Validity: " + f"{args.sets} calibration sets of {args.n}, targets error <= {E} (delta {DELTA}) / risk <= {R}", _table(val)),
        ("Time per call", _table(sp, {"s/call": ".3g"})),
        ("corollary.promises.guarantee.calibrate on 1,000,000 examples (bar: well under 1 s)", _table(big)),
        (
            "Platt scaling vs scikit-learn's sigmoid calibration (same model on the confidence logit)",
            _table(pl, {k: ".5f" for k in pl[0] if k.startswith("logloss")}),
        ),
        ("Ratios", _table(ratios, {"value": ".3g"})),
    ]
    body = "\n\n".join(f"### {h}\n\n{t}" for h, t in sections)
    print(body)
    print(f"\n{env}")
    Path(args.out).write_text(
        RESULTS_HEADER.format(cmd=cmd, env=env) + "\n" + body + "\n\n" + RESULTS_NOTES, encoding="utf-8"
    )
    print(f"\nwrote {args.out}")


RESULTS_HEADER = """# Guarantees and calibration: corollary vs MAPIE and scikit-learn

Command (from the repository root): `{cmd}`

{env}. Seeded: the numbers repeat run to run except the timings.

Data: scores s ~ U(0, 1), P(wrong | s) = 0.6 (1 - s)^2 (base error 0.2). For a threshold t the
population answered share is 1 - t, the risk (answered and wrong, of all) 0.2 (1 - t)^3 and the
error among the answered 0.2 (1 - t)^2; "mean risk", "mean error" and "P(target broken)" are
these exact values at each chosen threshold (no test-set noise), averaged over the sets.
A set that answers nothing counts as risk 0, error 0 (the promise is kept by escalating).
"P(target broken)" is the share of sets whose threshold breaks the target on new inputs: the
promise of LTT is that this is at most delta; the promise of CRC is about the *mean* risk (at
most r), so for CRC rows a share near one half is expected and is not a failure.
"""

RESULTS_NOTES = """### What is compared, and what is not equivalent

* **LTT (error among the answered <= e with probability >= 1 - delta).** MAPIE's
  `BinaryClassificationController(risk=precision, target_level=1 - e, confidence_level=1 - delta)`
  with `predict_function` returning `[1 - s, s]` answers exactly when `s >= lambda`, and its
  precision is 1 - (error among the answered): the same promise. Its p-value (binary
  Hoeffding-Bentkus: the minimum of the Hoeffding bound and the exact binomial tail) is at least
  as small as ours (the exact binomial tail alone). The differences are the candidate
  thresholds (MAPIE: a fixed grid of 100 values in [0, 0.99]; corollary: every distinct score)
  and the multiple-testing correction (MAPIE's default Bonferroni-Holm over the 100 grid values;
  corollary: fixed-sequence testing from high thresholds down, which pays no multiplicity price).
  MAPIE's `fwer_method="fixed_sequence"` starts at the highest grid value, where a handful of
  examples are answered and nothing can be rejected, so it stops at once and answers nothing in
  most sets; corollary starts at the highest threshold that answers enough examples to reject
  (max(min_support, ceil(ln delta / ln(1 - e)))).
* **CRC (answered-and-wrong share of all inputs <= r on average).** MAPIE's public controllers
  do not offer conformal risk control of a binary answer/abstain decision: `BinaryClassificationController`
  controls risks with high probability (LTT), and CRC is only exposed through
  `MultiLabelClassificationController(method="crc")`, whose loss is fixed to 1 - recall of a label
  set. The comparison therefore calls MAPIE's CRC routine itself
  (`mapie.risk_control.methods.get_r_hat_plus(method="crc")` and `find_best_predict_param`)
  on our loss matrix, 1 if s >= lambda and wrong, over the same 100-value grid. The rule is the
  same (n/(n+1) R + 1/(n+1) <= r); MAPIE demands a strict inequality, on a grid, decided in
  floating point, where corollary uses every distinct score and exact integer arithmetic.
  The MAPIE time includes building the n x 100 loss matrix, which its API requires.
  At n = 1000 corollary's call is slower than MAPIE's CRC routine: most of it (about 0.45 ms)
  is the separation test (scipy's Mann-Whitney U) that corollary runs before any threshold and
  MAPIE does not run at all; the threshold search itself is a sort and a cumulative sum.
* **Platt scaling.** scikit-learn's `_SigmoidCalibration` (what `CalibratedClassifierCV(method="sigmoid")`
  fits) on the logit of the confidence is the same model with the same smoothed targets; its sign
  convention is p = 1 / (1 + exp(a f + b)), so its (-a, -b) are compared with our (a, b).
  `CalibratedClassifierCV` itself needs an estimator to wrap and adds cross-validation around the
  same fit, so it is not timed. The test log-loss is measured on 200,000 fresh examples;
  "logloss truth" is the floor (the true probabilities).
"""


if __name__ == "__main__":
    main()
