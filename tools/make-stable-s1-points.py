"""S1 (pm = 1) reference values near alpha = 1, for gpustats' tests.

Writes tests/testthat/fixtures/stable-s1-near-one.csv: x, alpha, beta, pdf,
cdf, ccdf of the standard S1 law (gamma = 1, delta = 0) for alpha within
1e-2 of 1, in its body (around the S0 origin, x = beta tan(pi alpha / 2)),
its tails and next to zeta (x = 0 in S1). The S0 argument is
x - beta tan(pi alpha / 2) taken in high precision from the double x, then
the integrals of make-stable-points.py; a row is kept only where 30 and 40
digits agree to 20.

Usage: python3 tools/make-stable-s1-points.py [--root DIR]
"""

import argparse
import importlib.util
import os
from multiprocessing import Pool

from mpmath import mp, mpf

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location("points", os.path.join(HERE, "make-stable-points.py"))
points = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(points)

ALPHAS = [0.99, 0.999, 0.9999, 1.0, 1.0001, 1.001, 1.01]
BETAS = [-1.0, -0.5, 0.3, 1.0]
BODY = [-40.0, -6.0, -2.0, -0.7, 0.0, 0.4, 1.5, 4.0, 25.0]
NEAR_ZETA = [-1e-3, 1e-7, 1e-3, 0.5]


def s1_points():
    pts = []
    for a in ALPHAS:
        for b in BETAS:
            B = 0.0 if a == 1.0 else float(b * mp.tan(mp.pi * mpf(a) / 2))
            xs = [B + d for d in BODY] + ([] if a == 1.0 else NEAR_ZETA)
            pts += [(x, a, b) for x in xs]
    return pts


def right(x1, a, b):
    """pdf, cdf, ccdf at S1 distance x1 > 0 from zeta (alpha != 1): the
    integrand of make-stable-points.py, whose peak near alpha = 1 has width
    about |1 - alpha|, split at geometric distances from it."""
    th0 = mp.atan(b * mp.tan(mp.pi * a / 2)) / a

    def log_g(t):
        return (a / (a - 1) * (mp.log(x1) + mp.log(abs(mp.cos(t))) - mp.log(abs(mp.sin(a * (th0 + t)))))
                + mp.log(abs(mp.cos(a * th0))) / (a - 1) + mp.log(abs(mp.cos(a * th0 + (a - 1) * t))) - mp.log(abs(mp.cos(t))))

    tiny = mpf(10) ** (-mp.dps + 5)
    lo, hi = -th0 + tiny, mp.pi / 2 - tiny
    up = log_g(hi) > log_g(lo)
    for _ in range(3 * mp.dps):
        m = (lo + hi) / 2
        if (log_g(m) > 0) == up:
            hi = m
        else:
            lo = m
    d = 1 / abs(mp.diff(log_g, lo))
    ks = [0] + [s * 2 ** j for j in range(60) for s in (-1, 1)]
    pts = sorted([-th0, mp.pi / 2] + [lo + k * d for k in ks if -th0 < lo + k * d < mp.pi / 2])

    def f(t, which):
        if not -th0 < t < mp.pi / 2:
            return mpf(0)
        lg = log_g(t)
        if lg > 1000:
            return mpf(0)
        g = mp.exp(lg)
        return g * mp.exp(-g) if which == 0 else mp.exp(-g)

    pdf = a / (mp.pi * abs(a - 1) * x1) * mp.quad(lambda t: f(t, 0), pts)
    tail = mp.quad(lambda t: f(t, 1), pts) / mp.pi
    if a > 1:
        return pdf, 1 - tail, tail
    c1 = (mp.pi / 2 - th0) / mp.pi
    return pdf, c1 + tail, 1 - c1 - tail


def s1_value(p, dps):
    x, a, b = p
    mp.dps = dps
    if a == 1.0:
        return points.nolan(x, a, b, dps)
    x1, a, b = mpf(x), mpf(a), mpf(b)
    if x1 < 0:
        pdf, cdf, ccdf = right(-x1, a, -b)
        return pdf, ccdf, cdf
    return right(x1, a, b)


def row(p):
    v40 = s1_value(p, 30)
    v60 = s1_value(p, 40)
    if any(abs(u - w) > mpf(10) ** -20 * abs(w) for u, w in zip(v40, v60)):
        return None
    mp.dps = 40
    return "%r,%r,%r,%s" % (p + (",".join(mp.nstr(v, 22) for v in v40),))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(HERE))
    args = ap.parse_args()
    with Pool() as pool:
        rows = [r for r in pool.map(row, s1_points()) if r is not None]
    out = os.path.join(args.root, "tests", "testthat", "fixtures", "stable-s1-near-one.csv")
    with open(out, "w") as f:
        f.write("x,alpha,beta,pdf,cdf,ccdf\n" + "\n".join(rows) + "\n")
    print("%d rows to %s" % (len(rows), out))


if __name__ == "__main__":
    main()
