#!/usr/bin/env python3
"""High-precision references of the spherical-harmonic grids and functions.

Writes (relative to the package root, or to --root)
tests/testthat/fixtures/poly-sht-grid.csv, the nodes and weights of the
quadrature rules of sht_grid(), columns rule, n, i, x, x_lo, w:

  rule "gauss": the n-point Gauss-Legendre rule, node i (1-based, cosines
      descending); x is the node rounded to double, x_lo the node less x
      rounded to double, w the weight. Every node for the smaller n; at
      n = 100001 the nodes next to the north pole (where the package leaves
      its asymptotic expansion for the recurrence), a few between and the
      equator.
  rule "fejer": Fejer's first rule on theta_i = pi (i - 1/2) / n; x = cos(theta_i),
      x_lo its rounding error, w the weight.

and tests/testthat/fixtures/poly-sht-polar.csv, columns l, m, theta, x, p:
the orthonormal associated Legendre function Pbar_l^m (with the
Condon-Shortley phase, as sht_synthesis() uses it) at the double x nearest
cos(theta), from the pole to the equator, by its three-term recurrence in l.

Nodes come from Newton's method in theta on P_n(cos theta), evaluated by the
three-term recurrence at 50 significant digits (errors near n 1e-50); Fejer's
weights from their defining sum. Values are printed with 25 significant
digits (x and x_lo as the doubles they are).

Usage: python3 tools/make-sht-grid-reference.py [--root DIR]
"""

import argparse
import os

from mpmath import mp, mpf

mp.dps = 50

GAUSS_FULL = [1, 2, 3, 7, 64, 511, 1000]
GAUSS_LARGE = 100001
GAUSS_LARGE_NODES = [1, 2, 3, 5, 8, 9, 10, 12, 16, 20, 21, 40, 1000, 25000, 50000, 50001]
FEJER = [1, 2, 9, 64, 501]
POLAR_L = [2047, 8191]
POLAR_M = [0, 1, 2, 10]
POLAR_THETA = ["1e-5", "3e-5", "1e-4", "3e-4", "1e-3", "1e-2", "0.1", "1", "1.5"]


def legendre_theta(n, theta):
    """P_n(cos theta) and dP_n / dtheta by the recurrence."""
    x, s = mp.cos(theta), mp.sin(theta)
    p, pm1 = x, mpf(1)
    for j in range(2, n + 1):
        p, pm1 = ((2 * j - 1) * x * p - (j - 1) * pm1) / j, p
    return p, n * (x * p - pm1) / s


def gauss_node(n, i):
    """Node i (1-based, from the north pole) and its weight."""
    theta = mp.pi * (4 * i - 1) / (4 * n + 2)
    for _ in range(100):
        p, dp = legendre_theta(n, theta)
        step = p / dp
        theta -= step
        if abs(step) < mpf(10) ** (-45) * theta:
            break
    p, dp = legendre_theta(n, theta)
    return mp.cos(theta), 2 / dp**2


def plm(l, m, x):
    """Pbar_l^m(x): Pbar_m^m = (-1)^m sqrt((2m + 1) / (4 pi) prod_k (2k - 1) / (2k)) sin^m,
    then Pbar_l = A (x Pbar_(l-1) - B Pbar_(l-2)), A = sqrt((4l^2 - 1) / (l^2 - m^2)),
    B = sqrt(((l - 1)^2 - m^2) / (4 (l - 1)^2 - 1))."""
    c = mpf(1) / (4 * mp.pi)
    for k in range(1, m + 1):
        c *= mpf(2 * k - 1) / (2 * k)
    p, pm1 = (-1) ** m * mp.sqrt((2 * m + 1) * c) * mp.sqrt(1 - x * x) ** m, mpf(0)
    for j in range(m + 1, l + 1):
        a = mp.sqrt(mpf(4 * j * j - 1) / ((j - m) * (j + m)))
        b = mp.sqrt(mpf((j - 1 - m) * (j - 1 + m)) / (4 * (j - 1) ** 2 - 1))
        p, pm1 = a * (x * p - b * pm1), p
    return p


def split(v):
    hi = float(v)
    return hi, float(v - mpf(hi))


def row(rule, n, i, x, w):
    hi, lo = split(x)
    return f"{rule},{n},{i},{hi!r},{lo!r},{mp.nstr(w, 25, min_fixed=-4, max_fixed=4)}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    args = ap.parse_args()
    rows = ["rule,n,i,x,x_lo,w"]
    for n in GAUSS_FULL:
        half = [gauss_node(n, i) for i in range(1, (n + 1) // 2 + 1)]
        for i in range(1, n + 1):
            x, w = half[i - 1] if i <= (n + 1) // 2 else half[n - i]
            if i > (n + 1) // 2:
                x = -x
            if n % 2 and i == (n + 1) // 2:
                x = mpf(0)
            rows.append(row("gauss", n, i, x, w))
    for i in GAUSS_LARGE_NODES:
        x, w = gauss_node(GAUSS_LARGE, i)
        if i == (GAUSS_LARGE + 1) // 2:
            x = mpf(0)
        rows.append(row("gauss", GAUSS_LARGE, i, x, w))
    for n in FEJER:
        for i in range(1, n + 1):
            theta = mp.pi * (i - mpf(1) / 2) / n
            s = sum(mp.cos(2 * k * theta) / (4 * k * k - 1) for k in range(1, n // 2 + 1))
            rows.append(row("fejer", n, i, mp.cos(theta), 2 * (1 - 2 * s) / n))
    path = os.path.join(args.root, "tests", "testthat", "fixtures", "poly-sht-grid.csv")
    with open(path, "w") as f:
        f.write("\n".join(rows) + "\n")
    rows = ["l,m,theta,x,p"]
    for l in POLAR_L:
        for m in POLAR_M:
            for theta in POLAR_THETA:
                x = float(mp.cos(mpf(theta)))
                rows.append(f"{l},{m},{theta},{x!r},{mp.nstr(plm(l, m, mpf(x)), 25)}")
    path = os.path.join(args.root, "tests", "testthat", "fixtures", "poly-sht-polar.csv")
    with open(path, "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
