# Reference values of the alpha-stable laws at small alpha (S0, gamma = 1,
# delta = 0) for tests/testthat/fixtures/stable-small-alpha.csv, from
# Nolan's integral representation with mpmath at 40 digits: the integrals
# are taken directly over the angle (no integration by parts), on pieces
# graded geometrically towards both ends, each scaled by exp(h) at its
# smaller end because mpmath's quadrature stops on an absolute error.
#
#   python3 tools/make-stable-small-alpha.py > tests/testthat/fixtures/stable-small-alpha.csv
#   python3 tools/make-stable-small-alpha.py tiny > tests/testthat/fixtures/stable-tiny-alpha.csv
#   python3 tools/make-stable-small-alpha.py newton ALPHA BETA P W
#
# The last prints one Newton step towards the S1 quantile (pm = 1) of the
# lower tail P from W, with the cdf and density at W (a reference for a
# quantile within 1e-29 of zeta).
#
# The second set (alpha from 1e-3 down to 1e-300) has a column pm: with
# pm = 1, x is the S1 argument, the distance from zeta itself, so that a
# point within 1e-300 of zeta is resolved. There |X|^-alpha is nearly
# exponential (the limit law): h is near x^-alpha over all but a layer of
# width about alpha at the end where it grows, which the pieces graded
# towards that end resolve down to alpha = 1e-30 (the layer is below
# alpha in relative weight further down).
import sys
import mpmath as mp
def nolan(alpha, beta, x, dps=50, depth=400, deg=None, pm=0):
    mp.mp.dps = dps
    a = mp.mpf(alpha); b = mp.mpf(beta); x = mp.mpf(x)
    zeta = -b*mp.tan(mp.pi*a/2)
    x_s1 = x if pm == 1 else x - zeta  # the distance from zeta, signed
    if pm == 1:
        x = x + zeta
    if x_s1 < 0:  # reflect
        x, b, zeta = -x, -b, -zeta
        refl = True
    else:
        refl = False
    th0 = mp.atan(b*mp.tan(mp.pi*a/2))/a
    xz = abs(x_s1)
    lo, hi = -th0, mp.pi/2
    w = hi - lo
    def V(t):
        # a node within rounding of an end: its angle is not resolved there
        if t - lo < w * mp.mpf(10)**(15 - dps) or hi - t < w * mp.mpf(10)**(15 - dps):
            raise ZeroDivisionError
        c1, s1, c2 = mp.cos(t), mp.sin(a*(th0+t)), mp.cos(a*th0+(a-1)*t)
        if c1 <= 0 or s1 <= 0 or c2 <= 0:
            raise ZeroDivisionError  # within rounding of an end
        return (mp.cos(a*th0))**(1/(a-1)) * (c1/s1)**(a/(a-1)) * c2/c1
    c = xz**(a/(a-1))
    depth = min(depth, int(dps*3.3) - 20)
    pts = [lo + w*mp.mpf(2)**(-k) for k in range(depth, 0, -1)] + [hi - w*mp.mpf(2)**(-k) for k in range(2, depth+1)]
    pts = [lo] + pts + [hi]
    def h(t):
        try:
            return c*V(t)
        except ZeroDivisionError:
            return mp.inf
    # mpmath's quadrature stops on an absolute error: each piece's
    # integrands are scaled by exp(hm), hm the smaller h at its ends (V is
    # monotone in theta), so that they peak near 1 there
    pdfI = expI = 0
    hp = [h(p) for p in pts]
    hp = [h((p0 + p1) / 2) if v == mp.inf else v for v, p0, p1 in zip(hp, pts, pts[1:] + pts[-1:])]
    hglob = min(hp)
    for k, (p0, p1) in enumerate(zip(pts[:-1], pts[1:])):
        hm = min(hp[k], hp[k + 1])
        # a piece whose integrands are below e^-(dps + 30) of the largest
        if hm == mp.inf or hm - hglob > 2.31 * (dps + 30):
            continue
        def ihe(t):
            v = h(t)
            return 0 if v == mp.inf else v*mp.exp(-(v - hm))
        pdfI += mp.quad(ihe, [p0, p1]) * mp.exp(-hm)
        expI += mp.quad(lambda t: 0 if h(t) == mp.inf else mp.exp(-(h(t) - hm)), [p0, p1]) * mp.exp(-hm)
    pdf = a / (mp.pi*abs(a-1)*xz) * pdfI  # note: a/(pi|a-1| xz) * int h e^-h
    # tails: alpha>1: ccdf (x>zeta) = expI/pi ; alpha<1: cdf = c1 + expI/pi with c1=(pi/2-th0)/pi
    if a > 1:
        ccdf = expI/mp.pi; cdf = 1 - ccdf
    else:
        cdf = (mp.pi/2 - th0)/mp.pi + expI/mp.pi; ccdf = 1 - cdf
        lower_small = expI/mp.pi
    if refl: cdf, ccdf = ccdf, cdf
    return pdf, cdf, ccdf
def tiny(alphas):
    print("alpha,beta,x,pm,pdf,cdf,ccdf")
    for a in alphas:
        for b, x, pm in (("0.3", "1", 0), ("0.3", "-1", 0), ("-0.3", "1e5", 0), ("0", "1e-300", 0),
                         ("1", "1e300", 0), ("-1", "-1e-300", 1), ("0.3", "-1e300", 0)):
            p, c, cc = nolan(a, b, x, 40, 120, pm=pm)
            print(",".join([a, b, x, str(pm)] + [mp.nstr(v, 22) for v in (p, c, cc)]), flush=True)
def newton(alpha, beta, p, w):
    pdf, cdf, ccdf = nolan(alpha, beta, w, 40, 120, pm=1)
    step = mp.mpf(w) + (mp.mpf(p) - cdf) / pdf
    print("cdf", mp.nstr(cdf, 25), "pdf", mp.nstr(pdf, 25), "newton", mp.nstr(step, 25))
if __name__ == "__main__" and sys.argv[1:2] == ["newton"]:
    newton(*sys.argv[2:6])
elif __name__ == "__main__" and sys.argv[1:2] == ["tiny"]:
    tiny(sys.argv[2:] or ("5e-3", "2e-3", "1e-3", "1e-4", "1e-6", "1e-8", "1e-12", "1e-20", "1e-300"))
elif __name__ == "__main__":
    print("alpha,beta,x,pdf,cdf,ccdf")
    for a in ("0.04", "0.03", "0.01"):
        for b in ("0", "0.3"):
            for x in ("-1", "1", "1e5"):
                p, c, cc = nolan(a, b, x, 40, 120)
                print(",".join([a, b, x] + [mp.nstr(v, 22) for v in (p, c, cc)]))
