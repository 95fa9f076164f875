#!/usr/bin/env python3
"""References for the polynomial transforms (mpmath, 40 digits):

  fixtures/poly-dct.csv   DCT types 2, 3 and 4 (FFTW's definitions) of fixed
                          inputs, by the O(n^2) sums
  fixtures/poly-jw.csv    Jones-Worland polynomials W_n^l(r), natural and unit
                          normalisation, including large l near r = 0 where
                          r^l underflows in double precision

Run from the package root: python3 tools/make-poly-reference.py
"""
import csv
from mpmath import mp, mpf, cos, pi, jacobi, gamma, sqrt, sin, nstr

mp.dps = 40


def dct_rows():
    rows = []
    for n in (1, 2, 7, 16, 45, 128):
        # inputs printed to 17 digits, read back exactly by R
        x = [float(nstr(sin(mpf(j) * 1.7 + mpf(n) / 3) * (1 + mpf(j % 5) / 4), 17)) for j in range(n)]
        xm = [mpf(repr(v)) for v in x]
        for k in range(n):
            y2 = 2 * sum(xm[j] * cos(pi * k * (j + mpf(1) / 2) / n) for j in range(n))
            y3 = xm[0] + 2 * sum(xm[j] * cos(pi * j * (k + mpf(1) / 2) / n) for j in range(1, n))
            y4 = 2 * sum(xm[j] * cos(pi * (j + mpf(1) / 2) * (k + mpf(1) / 2) / n) for j in range(n))
            rows.append([n, k, repr(x[k]), nstr(y2, 25), nstr(y3, 25), nstr(y4, 25)])
    return ["n", "k", "x", "y2", "y3", "y4"], rows


def jw_norm(n, l):
    if n == 0 and l == 0:
        return pi / 2
    return gamma(n + mpf(1) / 2) * gamma(n + l + mpf(1) / 2) / (2 * (2 * n + l) * gamma(n + l) * gamma(n + 1))


def jw_rows():
    rows = []
    cases = [(n, l) for n in (0, 1, 2, 5, 17, 40) for l in (0, 1, 2, 7, 30)]
    cases += [(0, 130), (3, 130), (10, 131), (25, 200), (4, 600), (300, 600)]
    radii = ["1", "0.999", "0.75", "0.5", "0.3", "0.25", "0.05", "0.0039269908169872415", "0"]
    for n, l in cases:
        for rs in radii:
            r = mpf(rs)
            nat = r ** l * jacobi(n, -mpf(1) / 2, l - mpf(1) / 2, 2 * r * r - 1)
            unit = nat / sqrt(jw_norm(n, l))
            rows.append([n, l, rs, nstr(nat, 30, min_fixed=-1, max_fixed=-1), nstr(unit, 30, min_fixed=-1, max_fixed=-1)])
    return ["n", "l", "r", "natural", "unit"], rows


def write(name, header, rows):
    with open("tests/testthat/fixtures/" + name, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


if __name__ == "__main__":
    write("poly-dct.csv", *dct_rows())
    write("poly-jw.csv", *jw_rows())
