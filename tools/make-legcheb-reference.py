#!/usr/bin/env python3
"""References for the Legendre <-> Chebyshev conversions (mpmath, 40 digits):

  fixtures/poly-legcheb.csv   y = M x for the connection matrix M of each
                              direction, from the closed forms of Alpert and
                              Rokhlin (1991) with Gamma ratios at 40 digits,
                              for sizes n = 10 .. 5000 and two inputs:
                                decay 0: x_j = ((7919 j + 13) mod 1000 - 500) / 512
                                decay 1: the same divided by (j + 1)^2
                              (both exact in double, so R builds the same x).
                              All rows up to n = 200; above, the first and
                              last 40 rows and every 13th.

Columns: n, to_chebyshev (1: Legendre -> Chebyshev), decay, k (row, from
0), y (the reference value). Run from the package root:
python3 tools/make-legcheb-reference.py (about a minute).
"""
import csv
from mpmath import mp, mpf, gamma, sqrt, pi, nstr

mp.dps = 40
SIZES = (10, 50, 200, 1000, 5000)


def inputs(n, decay):
    x = []
    for j in range(n):
        v = (((7919 * j + 13) % 1000) - 500) / 512  # exact in double
        if decay:
            v = v / float((j + 1) ** 2)  # one correctly rounded division, as in R
        x.append(v)
    return x


def lam_table(n):
    """Lambda(i / 2) = Gamma(i/2 + 1/2) / Gamma(i/2 + 1), i = 0 .. 2n + 1."""
    return [gamma(mpf(i) / 2 + mpf(1) / 2) / gamma(mpf(i) / 2 + 1) for i in range(2 * n + 2)]


def leg2cheb_entry(lam, k, j):
    # P_j = sum_k (2 - [k = 0]) / pi Lambda((j - k) / 2) Lambda((j + k) / 2) T_k
    return (1 if k == 0 else 2) / pi * lam[j - k] * lam[j + k]


def cheb2leg_entry(lam, k, j):
    # T_j = sum_k L_kj P_k: L_00 = 1, L_jj = sqrt(pi) / (2 Lambda(j)),
    # L_kj = -j (k + 1/2) / ((j + k + 1) (j - k)) Lambda((j - k - 2) / 2) Lambda((j + k - 1) / 2)
    if k == j:
        return mpf(1) if j == 0 else sqrt(pi) / (2 * lam[2 * j])
    return -mpf(j) * (k + mpf(1) / 2) / ((j + k + 1) * (j - k)) * lam[j - k - 2] * lam[j + k - 1]


def rows_of(n):
    if n <= 200:
        return list(range(n))
    return sorted(set(range(40)) | set(range(n - 40, n)) | set(range(0, n, 13)))


def check_inverse(lam, n):
    """The two closed forms are inverse matrices (a check of the formulas)."""
    for i in range(n):
        for j in range(n):
            s = sum(leg2cheb_entry(lam, i, k) * cheb2leg_entry(lam, k, j)
                    for k in range(i, j + 1) if (k - i) % 2 == 0 and (j - k) % 2 == 0)
            assert abs(s - (1 if i == j else 0)) < mpf(10) ** -35, (i, j, s)


def reference_rows():
    out = []
    lam = lam_table(max(SIZES))
    check_inverse(lam, 12)
    for n in SIZES:
        for to_cheb, entry in ((1, leg2cheb_entry), (0, cheb2leg_entry)):
            for decay in (0, 1):
                x = [mpf(v) for v in inputs(n, decay)]
                for k in rows_of(n):
                    y = sum(entry(lam, k, j) * x[j] for j in range(k, n, 2))
                    out.append([n, to_cheb, decay, k, nstr(y, 22, min_fixed=-1, max_fixed=-1)])
    return out


if __name__ == "__main__":
    with open("tests/testthat/fixtures/poly-legcheb.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["n", "to_chebyshev", "decay", "k", "y"])
        w.writerows(reference_rows())
