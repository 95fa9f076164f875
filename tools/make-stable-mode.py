#!/usr/bin/env python3
"""Modes of alpha-stable laws and S2 reference values, for gpustats' tests.

Writes tests/testthat/fixtures/stable-mode.csv: alpha, beta, mode0 (the mode
of the standard S0 law) and mode1 (that of the standard S1 law, alpha != 1),
and tests/testthat/fixtures/stable-s2.csv: x, alpha, beta, pdf, cdf, ccdf of
the standard S2 law (gamma = 1, delta = 0), all printed with 22 significant
digits.

The mode is the root in x of the derivative of Nolan's density integral,
f'(x) = K / ((alpha - 1) (x - zeta)^2) * int h (1 - alpha h) exp(-h) dtheta,
h = (x - zeta)^(alpha / (alpha - 1)) V(theta) (at alpha = 1,
int h (1 - h) exp(-h) dtheta with h = exp(-pi x / (2 beta)) V(theta)): a
difference of two positive integrals, found to 40 digits by the Illinois
bracketed secant rule; a mode is kept where a second solve with 20 more
digits agrees to 1e-25. The S2 law at x is the S0 law at
z = mode0 + alpha^(1 / alpha) x, its density times alpha^(1 / alpha)
(gamma0 = alpha^(-1 / alpha) gamma2, delta0 = delta2 - gamma0 mode0); the
S0 values come from make-stable-points.py's integrals.

Usage: python3 tools/make-stable-mode.py [--root DIR]
"""

import argparse
import importlib.util
import os
import subprocess
import sys
from multiprocessing import Pool

from mpmath import mp, mpc, mpf

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location("points", os.path.join(HERE, "make-stable-points.py"))
points = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(points)

ALPHAS = [0.3, 0.5, 0.7, 0.99, 1.0, 1.01, 1.5, 1.95]
BETAS = [0.01, 0.4, 1.0]
S2_X = [-30.0, -1.0, 0.0, 0.3, 7.0]
S2_PAIRS = [(0.3, 0.7), (0.7, 1.0), (1.0, 0.7), (1.3, -0.5), (1.7, 1.0)]


def slope_integral(x, a, b):
    """The integral whose sign is that of f'(x), for x > zeta, beta > 0 at
    alpha = 1 (the mode of beta < 0 is minus that of -beta)."""
    if a == 1:
        log_h = points.log_h_alpha1(x, b)
        lo, hi, sign = -mp.pi / 2, mp.pi / 2, -1  # dh/dx = -pi h / (2 beta)
    else:
        log_h = points.log_g_right(x + b * mp.tan(mp.pi * a / 2), a, b)
        lo, hi, sign = -points.theta0(a, b), mp.pi / 2, 1 if a > 1 else -1
    # split at the peak of h exp(-h) (h = 1; log h is monotone in theta)
    l = points.peak(log_h, lo, hi)

    def f(t):
        if not lo < t < hi:
            return mpf(0)
        lh = log_h(t)
        if lh > 1000:
            return mpf(0)
        h = mp.exp(lh)
        return h * (1 - (a if a != 1 else 1) * h) * mp.exp(-h)
    return sign * mp.quad(f, [lo, l, hi], maxdegree=14)


def mode0(a, b, dps, guess):
    """The S0 mode for beta > 0; guess within 1e-3 of it."""
    mp.dps = dps
    a, b = mpf(a), mpf(b)
    if a > 1:
        # f(x; a, b) = f(-x; a, -b): the mode of (a, b) left of zeta is
        # minus that of (a, -b), right of its zeta
        return -mode_right(a, -b, -guess)
    return mode_right(a, b, guess)


def mode_right(a, b, guess):
    zeta = 0 if a == 1 else -b * mp.tan(mp.pi * a / 2)
    lo, hi = mpf(guess) - mpf(1e-3), mpf(guess) + mpf(1e-3)
    if a != 1:
        lo = max(lo, (zeta + mpf(guess)) / 2)
    if not slope_integral(lo, a, b) > 0 > slope_integral(hi, a, b):
        raise ValueError("no bracket at alpha %s, beta %s" % (a, b))
    return mp.findroot(lambda x: slope_integral(x, a, b), (lo, hi), solver="illinois")


def stabledist_modes(pairs):
    """stabledist's stableMode(), within 1e-4 of the modes: the brackets."""
    expr = "library(stabledist); cat(sprintf('%%.17g', c(%s)), sep = '\\n')" % ", ".join(
        "stableMode(%r, %r)" % (a, abs(b)) for a, b in pairs)
    out = subprocess.run(["Rscript", "-e", expr], capture_output=True, text=True, check=True).stdout
    return dict(zip(pairs, map(float, out.split())))


def mode_row(p):
    a, b, guess = p
    m30 = mode0(a, b, 30, guess)
    m45 = mode0(a, b, 45, guess)
    if abs(m30 - m45) > mpf(10) ** -22:
        return None
    mp.dps = 30
    m1 = "NA" if a == 1 else mp.nstr(m30 + mpf(b) * mp.tan(mp.pi * mpf(a) / 2), 20)
    return "%r,%r,%s,%s" % (a, b, mp.nstr(m30, 20), m1)


def real(v):
    """v, whose imaginary part, where a node next to an end of the interval
    took a logarithm of a negative rounding, is far below its digits."""
    if isinstance(v, mpc):
        assert abs(v.imag) <= mpf(10) ** -25 * abs(v.real)
        return v.real
    return v


def s2_rows(p):
    """The rows of one (alpha, beta) pair, its mode found once per precision."""
    a, b, guess = p
    vals = {}
    for dps in (30, 45):
        sign = 1 if b >= 0 else -1
        m = sign * mode0(a, abs(b), dps, guess)
        mp.dps = dps
        s = mpf(a) ** (1 / mpf(a))
        zeta = -mpf(b) * mp.tan(mp.pi * mpf(a) / 2)
        for x in S2_X:
            z = m + s * mpf(x)
            if a < 1 and abs(b) == 1 and (z - zeta) * b <= 0:
                continue  # beyond the support
            try:
                pdf, cdf, ccdf = points.nolan(z, a, b, dps)
            except ZeroDivisionError:
                continue  # a quadrature node on the end of the interval: no row
            mp.dps = dps
            vals.setdefault(x, []).append(tuple(real(v) for v in (pdf * s, cdf, ccdf)))
    rows = []
    mp.dps = 30
    for x, v in vals.items():
        if len(v) < 2:
            continue
        v30, v45 = v
        if all(abs(u - w) <= mpf(10) ** -22 * abs(w) for u, w in zip(v30, v45)):
            rows.append("%r,%r,%r,%s" % (x, a, b, ",".join(mp.nstr(v, 20) for v in v30)))
    return rows


def task(t):
    kind, pair = t
    try:
        return kind, (s2_rows(pair) if kind == "s2" else [mode_row(pair)])
    except (ValueError, TypeError, ZeroDivisionError) as e:
        # a bracket without a change of sign, or a complex logarithm from a
        # node beyond an end: no rows, said on stderr
        print("no %s rows for %r: %s" % (kind, pair, e), file=sys.stderr)
        return kind, []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    args = ap.parse_args()
    fix = os.path.join(args.root, "tests", "testthat", "fixtures")
    # the S2 pairs, the longest tasks, first
    pairs = [(a, b) for a in ALPHAS for b in BETAS]
    guess = stabledist_modes(pairs + S2_PAIRS)
    tasks = ([("s2", (a, b, guess[(a, b)])) for a, b in S2_PAIRS]
             + [("mode", (a, b, guess[(a, b)])) for a, b in pairs])
    rows = {"s2": [], "mode": []}
    with Pool() as pool:
        for kind, r in pool.imap(task, tasks):
            rows[kind] += [x for x in r if x]
    for name, head, kind in (("stable-mode.csv", "alpha,beta,mode0,mode1", "mode"),
                             ("stable-s2.csv", "x,alpha,beta,pdf,cdf,ccdf", "s2")):
        with open(os.path.join(fix, name), "w") as f:
            f.write(head + "\n" + "\n".join(rows[kind]) + "\n")
        print("%d rows to %s" % (len(rows[kind]), name))


if __name__ == "__main__":
    main()
