#!/usr/bin/env python3
"""High-precision reference values for the Bessel/Matern parts of gpustats.

Writes (relative to the package root, or to --root):

  tests/testthat/fixtures/matern.csv   columns z, nu, corr
      corr = 2^(1-nu) / Gamma(nu) * z^nu * K_nu(z), corr(0) = 1,
      printed with 25 significant digits.
  inst/extdata/besselk_grid.csv        columns nu, x, log_K
      60 orders (0.05 .. 20, uniform) x 60 arguments (1e-3 .. 140,
      log-uniform), log K_nu(x) printed with 22 significant digits.
  tests/testthat/fixtures/besselk-extreme.csv
                                       columns x, nu, log_K, log_K_scaled, K,
      K_scaled, dlogK_dnu, dlogK_dx, region: subnormal and tiny x, x up to
      the largest double, orders from 1000 (Debye's expansion) up to 1e8.
  tests/testthat/fixtures/matern-extreme.csv   columns z, nu, corr
      the correlation next to z = 0 for large orders and far in the tail.

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


def logk_quad(nu, x, dps):
    """log(exp(x) K_nu(x)) and the derivatives of log K in nu and x, by
    quadrature of exp(-x (cosh t - 1)) cosh(nu t) around its peak. Works for
    every order and for x up to the largest double (where besselk's series
    fail or do not converge)."""
    with mp.workdps(dps):
        nu, x = mpf(nu), mpf(x)
        tp = mpmath.asinh(nu / x)
        # cosh t - 1 = 2 sinh(t/2)^2: no cancellation at huge x
        cm1 = lambda t: 2 * mpmath.sinh(t / 2) ** 2
        f0 = -x * cm1(tp) + nu * tp
        w = 1 / mpmath.sqrt(x * mpmath.cosh(tp))
        pts = sorted(set([mpf(0)] + [tp + k * w for k in (-30, -10, -3, 0, 3, 10, 30, 60)
                                     if tp + k * w > 0]))
        base = lambda t: mpmath.exp(-x * cm1(t) + nu * t - f0) / 2
        i0 = mpmath.quad(lambda t: base(t) * (1 + mpmath.exp(-2 * nu * t)), pts)
        i_nu = mpmath.quad(lambda t: t * base(t) * (1 - mpmath.exp(-2 * nu * t)), pts)
        i_x = mpmath.quad(lambda t: cm1(t) * base(t) * (1 + mpmath.exp(-2 * nu * t)), pts)
        return mpmath.log(i0) + f0, i_nu / i0, -1 - i_x / i0


def logk_series(nu, x, dps):
    """The same three quantities from mpmath's besselk (small and moderate
    x, orders below 500); the order derivative by a central difference at
    twice the working precision."""
    with mp.workdps(2 * dps):
        nu, x = mpf(nu), mpf(x)
        lk = lambda v: mpmath.log(mpmath.besselk(v, x))
        h = mpf(10) ** (-dps // 2 - 5)
        dnu = (lk(nu + h) - lk(nu - h)) / (2 * h)
        k = mpmath.besselk(nu, x)
        dx = -(mpmath.besselk(nu - 1, x) + mpmath.besselk(nu + 1, x)) / (2 * k)
        return mpmath.log(k) + x, dnu, dx


def logk_hankel(nu, x, dps):
    """The same three quantities for x >= 1e17 from Hankel's expansion
    exp(x) K_nu(x) = sqrt(pi / (2x)) (1 + T), T = sum_k a_k / x^k,
    a_k = prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! 8^k), summed to the working
    precision (the terms fall by nu^2 / (2x) < 1e-7 each). Quadrature and
    differences lose the order derivative there, which is about nu / x."""
    with mp.workdps(dps + 10):
        nu, x = mpf(nu), mpf(x)
        t = dt_nu = dt_x = mpf(0)
        p, dp, k = mpf(1), mpf(0), 0  # a_k and d a_k / d nu
        while True:
            k += 1
            f = (4 * nu ** 2 - (2 * k - 1) ** 2) / (8 * k)
            dp, p = dp * f + p * nu / k, p * f
            term = p / x ** k
            t += term
            dt_nu += dp / x ** k
            dt_x -= k * term / x
            if k > 2 and abs(term) < mpf(10) ** (-dps - 10) * abs(1 + t):
                break
        ls = mpmath.log(mpmath.pi / (2 * x)) / 2 + mpmath.log1p(t)
        return ls, dt_nu / (1 + t), -1 - 1 / (2 * x) + dt_x / (1 + t)


def logk_all(nu, x, dps):
    if x >= 1e17:
        return logk_hankel(nu, x, dps)
    if nu < 500 and x < 1e4:
        return logk_series(nu, x, dps)
    return logk_quad(nu, x, dps)


def make_besselk_extreme(rng):
    nus = [0.0, 0.3, 0.5, 0.7, 1.0, 2.0, 2.5, 7.3, 20.0, 99.9, 450.2,
           1000.0, 1500.5, 1e5]
    regions = {
        "subnormal_x": [5e-324, 1e-320, 1e-315, 1e-310, 1e-308],
        "tiny_x": [2.2250738585072014e-308, 1e-300, 1e-200, 1e-150, 2e-121, 1e-100],
        "huge_x": [1e17, 2.0 ** 60, 1e20, 1e100, 1e200, 1e300, 1e308,
                   1.7976931348623157e308],
    }
    rows = [(x, nu, r) for r, xs in regions.items() for x in xs for nu in nus]
    # Debye's region: orders 1000 to 1e6, x from 1e-3 nu to 1e3 nu
    for _ in range(60):
        nu = float("%.15g" % 10.0 ** rng.uniform(3.0, 6.0))
        x = float("%.15g" % (nu * 10.0 ** rng.uniform(-3.0, 3.0)))
        rows.append((x, nu, "debye"))
    for x in [1e-300, 1e-3, 1.0, 1e4, 1e8, 1e12]:
        rows.append((x, 1e8, "huge_nu"))
    out, worst = [], mpf(0)
    for x, nu, region in rows:
        v = logk_all(nu, x, WORK_DPS)
        v2 = logk_all(nu, x, CHECK_DPS)
        with mp.workdps(CHECK_DPS):
            for a, b in zip(v, v2):
                worst = max(worst, abs(a - b) / max(1, abs(b)))
            if nu < 500 and 1 <= x < 1e4:  # the two methods agree
                q = logk_quad(nu, x, WORK_DPS)
                worst = max(worst, abs(q[0] - v2[0]) / max(1, abs(v2[0])))
            if nu < 500 and x >= 1e17:  # Hankel's sum is besselk
                with mp.workdps(WORK_DPS):
                    lb = mpmath.log(mpmath.besselk(mpf(nu), mpf(x)) * mpmath.exp(mpf(x)))
                worst = max(worst, abs(lb - v2[0]) / max(1, abs(v2[0])))
        out.append((x, nu, v, region))
    return out, worst


def extreme_row(x, nu, v, region):
    ls, dnu, dx = v
    with mp.workdps(WORK_DPS):
        lk = ls - mpf(x)
        return (fmt_double(x), fmt_double(nu), mpmath.nstr(lk, LOGK_DIGITS),
                mpmath.nstr(ls, LOGK_DIGITS), mpmath.nstr(mpmath.exp(lk), CORR_DIGITS),
                mpmath.nstr(mpmath.exp(ls), CORR_DIGITS), mpmath.nstr(dnu, LOGK_DIGITS),
                mpmath.nstr(dx, LOGK_DIGITS), region)


def matern_corr_quad(z, nu, dps):
    """The Matérn correlation from logk_quad (any order)."""
    ls = logk_all(nu, z, dps)[0]
    with mp.workdps(dps):
        z, nu = mpf(z), mpf(nu)
        return mpmath.exp((1 - nu) * mpmath.log(2) - mpmath.loggamma(nu) +
                          nu * mpmath.log(z) + ls - z)


def make_matern_extreme():
    rows = []
    for nu in [0.3, 2.0, 20.5, 25.3, 50.0, 99.9, 999.0, 1000.0, 1500.5]:
        for z in [1e-300, 1e-100, 1e-10, 1e-6, 1e-4, 1e-3, 700.0, 1e3, 5e3, 1e4]:
            rows.append((z, nu))
    out, worst = [], mpf(0)
    for z, nu in rows:
        c = matern_corr_quad(z, nu, WORK_DPS)
        c2 = matern_corr_quad(z, nu, CHECK_DPS)
        worst = max(worst, rel_diff(c, c2))
        out.append((fmt_double(z), fmt_double(nu), mpmath.nstr(c, CORR_DIGITS)))
    return out, worst


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

    # its own stream, so that the extreme tables can be remade alone
    extreme, worst_e = make_besselk_extreme(random.Random(args.seed + 1))
    write_csv(os.path.join(root, "tests", "testthat", "fixtures", "besselk-extreme.csv"),
              ["x", "nu", "log_K", "log_K_scaled", "K", "K_scaled", "dlogK_dnu",
               "dlogK_dx", "region"],
              [extreme_row(*r) for r in extreme])
    print("besselk-extreme.csv: %d rows, max rel. diff (40 vs 60 digits, "
          "quadrature vs series) %s" % (len(extreme), mpmath.nstr(worst_e, 3)))

    mext, worst_me = make_matern_extreme()
    write_csv(os.path.join(root, "tests", "testthat", "fixtures", "matern-extreme.csv"),
              ["z", "nu", "corr"], mext)
    print("matern-extreme.csv: %d rows, 40 vs 60 digit max rel. diff %s" %
          (len(mext), mpmath.nstr(worst_me, 3)))

    if worst_m > mpf("1e-30") or worst_g > mpf("1e-28") or worst_e > mpf("1e-28") \
            or worst_me > mpf("1e-28"):
        sys.stderr.write("reference values not stable to 30 digits\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
