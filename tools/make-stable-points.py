#!/usr/bin/env python3
"""Alpha-stable reference values at random points, for gpustats' tests.

Writes tests/testthat/fixtures/stable-random.csv (relative to the package
root, or to --root), columns x, alpha, beta, pdf, cdf, ccdf of the standard
S0 law (gamma = 1, delta = 0), printed with 22 significant digits.

The points complement the reference grid: x uniform in [-100, 100],
[-4, 4] and [-0.3, 0.3] in turn, alpha uniform in [0.5, 1.995], every tenth
point within 0.003 to 0.03 of alpha = 1, beta uniform in [-1, 1]. The first
rows are points at which a quadrature stopping rule once lost accuracy
(listed in REGRESSION_POINTS).

With --alpha1 it writes stable-alpha1.csv instead: alpha = 1 exactly,
|x| log-uniform in [10, 1e20] with either sign, beta uniform in [-1, 1]
(every fifth point +-1, on the side of its power-law tail, or +-0.01),
where the integrand's peak sits within
1e-20 of an end of the interval.

With --s1-near-one, stable-s1-near-one.csv: the S1 law (pm = 1; x is the
distance from zeta) for alpha within 1e-2 of 1, in its body (around the S0
origin, x = beta tan(pi alpha / 2)), its tails and next to zeta.

With --near-one, stable-near-one.csv: the S0 law at alpha = 1 +- 1e-1 to
1e-8, beta in {0, 0.5, 1} (the law at -beta is the mirror image), x over
the body and both tails, and x next to zeta where zeta is within 1e3 of
the origin.

Values come from Nolan's integrals over theta in (-theta0, pi/2), split at
the peak of the density's integrand and at geometric distances from it
(near alpha = 1 the peak has width about |1 - alpha|), with mpmath at 40
digits (plus the digits of |x| at alpha = 1, where theta is within 1/|x| of
an end, and twice those of 1 / |1 - alpha| near alpha = 1, where 30
digits kept 17 at 1 - alpha = 1e-12); the S0 distance from zeta,
x + beta tan(pi alpha / 2), is formed at that precision from the double x.
A point is kept only where a second evaluation with 20 more digits agrees
to 1e-25 (1e-20 for the two near-one sets: 30 and 40 digits).

Usage: python3 tools/make-stable-points.py [--root DIR] [--seed N] [--n N]
       [--alpha1 | --s1-near-one | --near-one]
"""

import argparse
import os
import random
from multiprocessing import Pool

from mpmath import mp, mpf

REGRESSION_POINTS = [
    (-3.7424016551777726, 1.2771736121630173, 0.93641100262124599),
    (7.8426876607549758, 1.9637428896798486, 0.29347392418117901),
    (0.32563611554244332, 1.8823624448302958, -0.8872477104362323),
    (0.50148959527792836, 1.6027514441417303, 0.96789912412310919),
    (2.2410772457910131, 0.90373398638504276, -0.97305838669327016),
    (2.9263164074748365, 1.5501663766569302, -0.34800681441463843),
    (-0.13477564004006595, 1.1437050817272185, 0.91335870042134015),
    (2.6538524495177070, 1.9637844289346513, -0.6939955252276683),
]


def theta0(a, b):
    return mp.atan(b * mp.tan(mp.pi * a / 2)) / a


def log_g_right(x1, a, b):
    """Nolan's log g(theta) at distance x1 > 0 beyond zeta (alpha != 1), on
    (-theta0, pi/2); abs() so that a node a rounding beyond an end is harmless."""
    th0 = theta0(a, b)

    def log_g(t):
        return (a / (a - 1) * (mp.log(x1) + mp.log(abs(mp.cos(t))) - mp.log(abs(mp.sin(a * (th0 + t)))))
                + mp.log(abs(mp.cos(a * th0))) / (a - 1) + mp.log(abs(mp.cos(a * th0 + (a - 1) * t))) - mp.log(abs(mp.cos(t))))
    return log_g


def log_h_alpha1(x, b):
    """Nolan's log h(theta) at alpha = 1, beta > 0, on (-pi/2, pi/2)."""
    def log_h(t):
        w = mp.pi / 2 + b * t
        return -mp.pi * x / (2 * b) + mp.log(2 / mp.pi) + mp.log(abs(w)) - mp.log(abs(mp.cos(t))) + w * mp.tan(t) / b
    return log_h


def peak(log_g, lo, hi):
    """Where the monotone log_g crosses 0 on (lo, hi), by bisection: the peak
    of the integrands g exp(-g)."""
    tiny = mpf(10) ** (-mp.dps + 5)
    lo, hi = lo + tiny, hi - tiny
    up = log_g(hi) > log_g(lo)
    for _ in range(3 * mp.dps):
        m = (lo + hi) / 2
        if (log_g(m) > 0) == up:
            hi = m
        else:
            lo = m
    return lo


def nolan_right(x1, a, b):
    """pdf, cdf, ccdf at distance x1 > 0 beyond zeta (alpha != 1)."""
    th0 = theta0(a, b)
    log_g = log_g_right(x1, a, b)
    lo = peak(log_g, -th0, mp.pi / 2)
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


def nolan_s1(x1, a, b):
    """pdf, cdf, ccdf at S1 distance x1 from zeta (alpha != 1)."""
    if x1 < 0:
        pdf, cdf, ccdf = nolan_right(-x1, a, -b)
        return pdf, ccdf, cdf
    return nolan_right(x1, a, b)


def nolan_alpha1(x, b):
    """pdf, cdf, ccdf at alpha = 1, beta > 0."""
    log_h = log_h_alpha1(x, b)
    lo = peak(log_h, -mp.pi / 2, mp.pi / 2)
    # the peak is narrow (width d) and may sit at 1/|x| from an end: split
    # at geometric distances from it so that each piece is smooth
    d = 1 / abs(mp.diff(log_h, lo))
    pts = [-mp.pi / 2, mp.pi / 2]
    pts += [lo + k * d for k in [0] + [s * 3 ** j for j in range(40) for s in (-1, 1)] if abs(lo + k * d) < mp.pi / 2]
    pts = sorted(pts)

    def f(t, which):
        # beyond log h = 1000, h e^-h and e^-h vanish and 1 - e^-h is 1
        # (computing e^-h there would cost mpmath a huge exponent)
        if not -mp.pi / 2 < t < mp.pi / 2:
            return [0, 1 if t < 0 else 0, 0 if t < 0 else 1][which]
        lh = log_h(t)
        if lh > 1000:
            return [0, 0, 1][which]
        h = mp.exp(lh)
        return [h * mp.exp(-h), mp.exp(-h), -mp.expm1(-h)][which]

    pdf = mp.quad(lambda t: f(t, 0), pts) / (2 * b)
    cdf = mp.quad(lambda t: f(t, 1), pts) / mp.pi
    ccdf = mp.quad(lambda t: f(t, 2), pts) / mp.pi
    return pdf, cdf, ccdf


def nolan(x, a, b, dps, s1=False):
    """pdf, cdf, ccdf of the S0 law at x, or with s1 of the S1 law."""
    mp.dps = dps
    x, a, b = mpf(x), mpf(a), mpf(b)
    if a == 1:
        mp.dps = dps + int(mp.log10(1 + abs(x)))
        if b < 0:
            pdf, cdf, ccdf = nolan_alpha1(-x, -b)
            return pdf, ccdf, cdf
        return nolan_alpha1(x, b)
    mp.dps = dps + max(0, 2 * int(-mp.log10(abs(1 - a))) - 4)
    return nolan_s1(x if s1 else x + b * mp.tan(mp.pi * a / 2), a, b)


def row(p, dps=(40, 60), agree=25, s1=False):
    v40 = nolan(*p, dps[0], s1)
    v60 = nolan(*p, dps[1], s1)
    if any(abs(u - w) > mpf(10) ** -agree * abs(w) for u, w in zip(v40, v60)):
        return None
    mp.dps = 40
    return "%r,%r,%r,%s" % (p + (",".join(mp.nstr(v, 22) for v in v40),))


def row_near_one(p):
    return row(p, (30, 40), 20)


def row_s1(p):
    return row(p, (30, 40), 20, s1=True)


def points_alpha1(n, seed):
    rng = random.Random(seed)
    pts = []
    while len(pts) < n:
        b = rng.uniform(-1, 1) if len(pts) % 5 else rng.choice([-1, 1, -0.01, 0.01])
        x = rng.choice([-1, 1]) * 10 ** rng.uniform(1, 20)
        if abs(b) == 1 and x * b < 0:
            x = -x  # the thin tail of beta = +-1 is stable-thin-tail.csv's
        pts.append((x, 1.0, b))
    return pts


def points(n, seed):
    rng = random.Random(seed)
    pts = list(REGRESSION_POINTS)
    while len(pts) < n:
        a = rng.uniform(0.5, 1.995)
        if len(pts) % 10 == 0:
            a = 1 + rng.choice([-1, 1]) * rng.uniform(0.003, 0.03)
        b = rng.uniform(-1, 1)
        x = [rng.uniform(-100, 100), rng.uniform(-4, 4), rng.uniform(-0.3, 0.3)][len(pts) % 3]
        pts.append((x, a, b))
    return pts


def points_s1_near_one():
    pts = []
    for a in [0.99, 0.999, 0.9999, 1.0, 1.0001, 1.001, 1.01]:
        for b in [-1.0, -0.5, 0.3, 1.0]:
            B = 0.0 if a == 1.0 else float(b * mp.tan(mp.pi * mpf(a) / 2))
            xs = [B + d for d in [-40.0, -6.0, -2.0, -0.7, 0.0, 0.4, 1.5, 4.0, 25.0]]
            pts += [(x, a, b) for x in xs + ([] if a == 1.0 else [-1e-3, 1e-7, 1e-3, 0.5])]
    return pts


def points_near_one():
    """beta >= 0 only: the law at -beta is the mirror image."""
    pts = []
    for k in [1, 2, 3, 4, 6, 8]:
        for a in [1 - 10.0 ** -k, 1 + 10.0 ** -k]:
            for b in [0.0, 0.5, 1.0]:
                xs = [0.0 if b else 0.1, 0.6, 3.0, 25.0] + ([-0.6, -3.0, -25.0] if b else [])
                zeta = -b * mp.tan(mp.pi * mpf(a) / 2)
                if b and abs(zeta) < 1e3:
                    xs += [float(zeta + d) for d in (-1e-3, 0.5)]
                pts += [(x, a, b) for x in xs]
    return pts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=160)
    ap.add_argument("--alpha1", action="store_true")
    ap.add_argument("--s1-near-one", action="store_true")
    ap.add_argument("--near-one", action="store_true")
    args = ap.parse_args()
    if args.s1_near_one:
        pts, f, name = points_s1_near_one(), row_s1, "stable-s1-near-one.csv"
    elif args.near_one:
        pts, f, name = points_near_one(), row_near_one, "stable-near-one.csv"
    elif args.alpha1:
        pts, f, name = points_alpha1(args.n, args.seed), row, "stable-alpha1.csv"
    else:
        pts, f, name = points(args.n, args.seed), row, "stable-random.csv"
    rows = []
    with Pool() as pool:
        for r in pool.imap(f, pts):
            print(r, flush=True)
            rows.append(r)
    rows = [r for r in rows if r]
    path = os.path.join(args.root, "tests", "testthat", "fixtures", name)
    with open(path, "w") as f:
        f.write("x,alpha,beta,pdf,cdf,ccdf\n" + "\n".join(rows) + "\n")
    print("%d rows to %s" % (len(rows), path))


if __name__ == "__main__":
    main()
