#!/usr/bin/env python3
"""Alpha-stable reference values in the light tail of the totally skewed
laws, for gpustats' tests.

Writes tests/testthat/fixtures/stable-light-tail.csv (relative to the
package root, or to --root), columns x, alpha, beta, pdf, tail, log_pdf of
the standard S0 law (gamma = 1, delta = 0); with --s1, stable-light-tail-s1.csv,
the same columns of the standard S1 law (pm = 1), x its argument, the
signed distance from zeta, which a double gives exactly where the S0
x - zeta would not.
Points: beta = +-1, alpha uniform in
[0.8, 1.95] (every fifth point within 0.003 to 0.03 of 1), x on the short
side, where the law falls faster than exponentially (x -> -inf for
alpha > 1, beta = 1; x -> zeta from above for alpha < 1, beta = 1; the
mirror image for beta = -1), placed so that log10 of the density is about
uniform in [-300, -30] ([-300, -1] with --s1, so that the shallow part
of the tail is covered too). tail is the probability of that side: the lower
tail for beta = 1, the upper for beta = -1.

There h is bounded below by a large h0 at one end of Nolan's interval, and
the integrands h e^-h and e^-h are about e^-h0 (down to 1e-300).
mpmath's quadrature stops on an absolute error, which such integrands meet
at once: each is taken as e^-href times the integral of h e^-(h - href)
(and e^-(h - href)), href the value of h next to that end, integrands of
size 1 there, on pieces graded geometrically towards it. Next to that end
the terms of log h cancel (each diverges there), so the last piece, within
10^(-2 dps / 3) of it, is taken as its width times the integrand at its
inner end. Values at 40
digits (plus twice the digits of 1 / |1 - alpha| near alpha = 1); a point is
kept only where a second evaluation with 20 more digits agrees to 1e-25.

Usage: python3 tools/make-stable-light-tail.py [--root DIR] [--seed N] [--n N] [--s1]
"""

import argparse
import os
import random
from multiprocessing import Pool

from mpmath import mp, mpf


def log_g_s1(x1, a, b):
    """Nolan's log g(theta) at S1 distance x1 > 0 beyond zeta (alpha != 1),
    on (-theta0, pi/2)."""
    th0 = mp.atan(b * mp.tan(mp.pi * a / 2)) / a

    def log_g(t):
        return (a / (a - 1) * (mp.log(x1) + mp.log(abs(mp.cos(t))) - mp.log(abs(mp.sin(a * (th0 + t)))))
                + mp.log(abs(mp.cos(a * th0))) / (a - 1) + mp.log(abs(mp.cos(a * th0 + (a - 1) * t)))
                - mp.log(abs(mp.cos(t))))
    return log_g, -th0, mp.pi / 2


def light_side(x1, a, b):
    """pdf and the light-side probability at S1 distance x1 > 0 from zeta,
    where h is bounded below at one end (alpha < 1, beta = 1 or alpha > 1,
    beta = -1)."""
    log_g, lo, hi = log_g_s1(x1, a, b)
    w = hi - lo
    near = w * mpf(10) ** (-mp.dps // 3)
    # the end where h is smallest, and h next to it
    at_lo = log_g(lo + near) < log_g(hi - near)
    end, sign = (lo, 1) if at_lo else (hi, -1)
    log_ref = log_g(end + sign * near)
    ref = mp.exp(log_ref)
    # within cut of that end the terms of log g cancel to rounding noise: the
    # integrals there are their value at end + sign cut times cut
    cut = w * mpf(10) ** (-2 * mp.dps // 3)
    start = end + sign * cut
    pts = [start] + [end + sign * w * mpf(2) ** -k for k in range(1, 3 * mp.dps) if w * mpf(2) ** -k > cut]
    pts = sorted(pts + [hi if at_lo else lo])

    def f(t, density):
        lg = log_g(t)
        if lg > log_ref + 10:
            # beyond e^-(h - href) < exp(-e^10)
            return mpf(0)
        g = mp.exp(lg)
        return (g if density else 1) * mp.exp(ref - g)

    def integral(density):
        return mp.quad(lambda t: f(t, density), pts) + cut * f(start, density)

    scale = mp.exp(-ref)
    pdf = a / (mp.pi * abs(a - 1) * x1) * scale * integral(True)
    tail = scale * integral(False) / mp.pi
    return pdf, tail


def set_dps(a, dps):
    """dps digits, plus twice the digits of 1 / |1 - alpha| near alpha = 1."""
    mp.dps = dps + max(0, 2 * int(-mp.log10(abs(1 - mpf(a)))) - 4)


def light_tail_s1(x1, a, b, dps):
    """pdf and light-side probability of the S1 law at x1 (the signed
    distance from zeta), beta = +-1."""
    set_dps(a, dps)
    x1, a, b = mpf(x1), mpf(a), mpf(b)
    # the mirror image x -> -x, beta -> -beta puts the light side at x1 > 0
    return light_side(abs(x1), a, b if x1 > 0 else -b)


def light_tail(x, a, b, dps):
    """pdf and light-side probability of the S0 law at x, beta = +-1."""
    set_dps(a, dps)
    return light_tail_s1(mpf(x) + b * mp.tan(mp.pi * mpf(a) / 2), a, b, dps)


def row(p, s1=False):
    law = light_tail_s1 if s1 else light_tail
    v40 = law(*p, 40)
    v60 = law(*p, 60)
    if any(abs(u - w) > mpf(10) ** -25 * abs(w) for u, w in zip(v40, v60)):
        return None
    mp.dps = 40
    pdf, tail = v40
    return "%r,%r,%r,%s,%s,%s" % (p + (mp.nstr(pdf, 22), mp.nstr(tail, 22), mp.nstr(mp.log(pdf), 22)))


def row_s1(p):
    return row(p, True)


def point(a, b, log10_pdf, s1=False):
    """x (a double) on the light side of (a, b) where the density is near
    10^log10_pdf: there log pdf is about -h0, and h0 = x1^(a/(a-1)) V0, V0
    the limit of Nolan's V at the end where h is smallest."""
    mp.dps = 40
    a, b = mpf(a), mpf(b)
    bs = mpf(1) if a < 1 else mpf(-1)  # beta of the side where x1 > 0 is light
    log_g, lo, hi = log_g_s1(mpf(1), a, bs)
    near = (hi - lo) * mpf(10) ** -12
    log_v0 = min(log_g(lo + near), log_g(hi - near))
    log_h0 = mp.log(-log10_pdf * mp.log(10))
    x1 = mp.exp((log_h0 - log_v0) * (a - 1) / a)
    # S0 x (S1: the distance itself) from the S1 distance, mirrored for the
    # side where bs != b
    zeta = 0 if s1 else -b * mp.tan(mp.pi * a / 2)
    return float(zeta + x1 if bs == b else zeta - x1)


def points(n, seed, s1=False):
    rng = random.Random(seed)
    pts = []
    while len(pts) < n:
        a = rng.uniform(0.8, 1.95)
        if len(pts) % 5 == 0:
            a = 1 + rng.choice([-1, 1]) * rng.uniform(0.003, 0.03)
        b = rng.choice([-1.0, 1.0])
        pts.append((point(a, b, rng.uniform(-300, -1 if s1 else -30), s1), a, b))
    return pts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=None, help="rows (120; 40 with --s1)")
    ap.add_argument("--s1", action="store_true")
    args = ap.parse_args()
    if args.s1:
        pts = points(args.n or 40, args.seed, True)
    else:
        pts = [(-19.622746897, 1.5, 1.0)] + points((args.n or 120) - 1, args.seed)
    with Pool() as pool:
        rows = list(pool.imap(row_s1 if args.s1 else row, pts))
    kept = [r for r in rows if r]
    name = "stable-light-tail-s1.csv" if args.s1 else "stable-light-tail.csv"
    path = os.path.join(args.root, "tests", "testthat", "fixtures", name)
    with open(path, "w") as f:
        f.write("x,alpha,beta,pdf,tail,log_pdf\n" + "\n".join(kept) + "\n")
    print("%d of %d rows to %s" % (len(kept), len(rows), path))


if __name__ == "__main__":
    main()
