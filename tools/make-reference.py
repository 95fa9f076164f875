#!/usr/bin/env python3
"""High-precision reference values for the Bessel/Matern parts of gpustats.

Writes (relative to the package root, or to --root):

  tests/testthat/fixtures/matern.csv   columns z, nu, corr
      corr = 2^(1-nu) / Gamma(nu) * z^nu * K_nu(z), corr(0) = 1,
      printed with 25 significant digits.
  inst/extdata/besselk_grid.csv        columns nu, x, log_K
      60 orders (0.05 .. 20, uniform) x 60 arguments (1e-3 .. 140,
      log-uniform), log K_nu(x) printed with 22 significant digits.

Every input is a double; its exact binary value is what the reference is
computed for, and it is printed so that it reads back to the same double.
Values are computed with mpmath at 40 significant digits and checked
against a second evaluation at 60 digits.

Usage: python3 tools/make-reference.py [--root DIR] [--seed N]
"""

import argparse
import math
import os
import random
import sys

import mpmath
from mpmath import mp, mpf

WORK_DPS = 40
CHECK_DPS = 60
CORR_DIGITS = 25
LOGK_DIGITS = 22
MIN_CORR = mpf("1e-300")

FIXED_NU = [0.5, 1.5, 2.5, 0.25, 1.0, 2.0, 5.0, 10.0, 20.0]


def fmt_double(v):
    """Shortest decimal string that reads back to the same double."""
    s = repr(float(v))
    return s


def fmt_mp(v, digits):
    return mpmath.nstr(v, digits, strip_zeros=False,
                       min_fixed=-5, max_fixed=6)


def matern_corr(z, nu, dps):
    """2^(1-nu)/Gamma(nu) z^nu K_nu(z) at dps digits; exact inputs."""
    with mp.workdps(dps):
        z = mpf(z)
        nu = mpf(nu)
        if z == 0:
            return mpf(1)
        # log form avoids overflow of z^nu and K_nu(z) separately
        lk = mpmath.log(mpmath.besselk(nu, z))
        lc = (1 - nu) * mpmath.log(2) - mpmath.loggamma(nu) + \
            nu * mpmath.log(z) + lk
        return mpmath.exp(lc)


def log_besselk(nu, x, dps):
    with mp.workdps(dps):
        return mpmath.log(mpmath.besselk(mpf(nu), mpf(x)))


def rel_diff(a, b):
    with mp.workdps(CHECK_DPS):
        if b == 0:
            return abs(a)
        return abs((a - b) / b)


def z_values(rng, n_tiny, n_main, with_zero=True):
    zs = [0.0] if with_zero else []
    # tiny: log-uniform in [1e-12, 1e-3)
    for _ in range(n_tiny):
        zs.append(10.0 ** rng.uniform(-12.0, -3.0))
    # main: log-uniform in [1e-3, 200]
    lo, hi = math.log10(1e-3), math.log10(200.0)
    for _ in range(n_main):
        zs.append(10.0 ** rng.uniform(lo, hi))
    return zs


def make_matern(rng):
    rows = []
    # fixed orders: exact values, denser in z
    for nu in FIXED_NU:
        for z in z_values(rng, 6, 39):
            rows.append((z, nu))
        # the ends of the range exactly
        rows.append((1e-12, nu))
        rows.append((1e-3, nu))
        rows.append((200.0, nu))
    # random orders in (0, 20]
    n_random_nu = 100
    for _ in range(n_random_nu):
        nu = 20.0 * (1.0 - rng.random())  # (0, 20]
        for z in z_values(rng, 2, 8):
            rows.append((z, nu))
    out = []
    worst = mpf(0)
    for z, nu in rows:
        c = matern_corr(z, nu, WORK_DPS)
        if c < MIN_CORR:
            continue
        c2 = matern_corr(z, nu, CHECK_DPS)
        worst = max(worst, rel_diff(c, c2))
        out.append((z, nu, c))
    return out, worst


def make_grid():
    nus = [round(0.05 + i * (20.0 - 0.05) / 59.0, 6) for i in range(60)]
    lo, hi = math.log10(1e-3), math.log10(140.0)
    xs = [float("%.6g" % (10.0 ** (lo + j * (hi - lo) / 59.0)))
          for j in range(60)]
    xs[0], xs[-1] = 1e-3, 140.0
    nus[0], nus[-1] = 0.05, 20.0
    out = []
    worst = mpf(0)
    for nu in nus:
        for x in xs:
            v = log_besselk(nu, x, WORK_DPS)
            v2 = log_besselk(nu, x, CHECK_DPS)
            # absolute check on log K (it can be near zero)
            with mp.workdps(CHECK_DPS):
                worst = max(worst, abs(v - v2))
            out.append((nu, x, v))
    return out, worst


def write_csv(path, header, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="\n") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(r) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), os.pardir))
    ap.add_argument("--seed", type=int, default=20240611)
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    mp.dps = WORK_DPS
    rng = random.Random(args.seed)

    matern, worst_m = make_matern(rng)
    write_csv(os.path.join(root, "tests", "testthat", "fixtures",
                           "matern.csv"),
              ["z", "nu", "corr"],
              [(fmt_double(z), fmt_double(nu), fmt_mp(c, CORR_DIGITS))
               for z, nu, c in matern])
    print("matern.csv: %d rows, 40 vs 60 digit max rel. diff %s" %
          (len(matern), mpmath.nstr(worst_m, 3)))

    grid, worst_g = make_grid()
    write_csv(os.path.join(root, "inst", "extdata", "besselk_grid.csv"),
              ["nu", "x", "log_K"],
              [(fmt_double(nu), fmt_double(x), fmt_mp(v, LOGK_DIGITS))
               for nu, x, v in grid])
    print("besselk_grid.csv: %d rows, 40 vs 60 digit max abs. diff %s" %
          (len(grid), mpmath.nstr(worst_g, 3)))

    if worst_m > mpf("1e-30") or worst_g > mpf("1e-28"):
        sys.stderr.write("reference values not stable to 30 digits\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
