/* dstable, pstable, qstable, rstable of one element: parameter checks,
 * location and scale, the S0 (pm = 0) and S1 (pm = 1) parameterizations and
 * the closed-form laws (Gauss at alpha = 2, Cauchy at alpha = 1, beta = 0),
 * over the standard law of stable_math.h. */
#ifndef GS_STABLE_DIST_H
#define GS_STABLE_DIST_H

#include <float.h>
#include <stdint.h>

#include "rng_math.h"
#include "stable_math.h"

/* The flag bits of the stable ops: code, the name R knows it by, the bit.
 * Written once: the enum and the table R reads at load (gs_r_tables) are
 * generated from this list.
 *   log    log density, log probability
 *   upper  upper tail: P(X > x)
 *   s1     pm = 1
 *   prob   probability, not density (set by the op, not by R) */
#define STABLE_FLAGS(X)               \
  X(STABLE_FLAG_LOG, "log", 1)        \
  X(STABLE_FLAG_UPPER, "upper", 2)    \
  X(STABLE_FLAG_S1, "s1", 4)          \
  X(STABLE_FLAG_PROB, "prob", 8)

#define STABLE_FLAG_ENUM_ENTRY(code, name, bit) code = bit,
enum { STABLE_FLAGS(STABLE_FLAG_ENUM_ENTRY) };
#undef STABLE_FLAG_ENUM_ENTRY

GS_HD static inline int stable_params_ok(double alpha, double beta, double gamma, double delta)
{
  return alpha > 0.0 && alpha <= 2.0 && beta >= -1.0 && beta <= 1.0 && gamma > 0.0 &&
         !isinf(gamma) && !isinf(delta);
}

/* The standard S0 value at z from the S0 or S1 location-scale family:
 * z = (x - delta) / gamma, moved to S0 for pm = 1. */
GS_HD static inline double stable_standardize(double x, double alpha, double beta, double gamma,
                                              double delta, int flags)
{
  if (!(flags & STABLE_FLAG_S1)) return (x - delta) / gamma;
  if (alpha == 1.0) return (x - delta) / gamma - beta * log(gamma) / STABLE_PI_2;
  return (x - delta) / gamma - stable_skew(alpha, beta);
}

/* Gaussian with variance 2. */
GS_HD static inline stable_value stable_gauss(double z)
{
  stable_value r;
  double w = z * 0.5, lower = 0.5 * erfc(-w), upper = 0.5 * erfc(w);
  r.log_pdf = -w * w - log(2.0 * sqrt(STABLE_PI));
  r.pdf = exp(r.log_pdf);
  r.cdf = lower;
  r.ccdf = upper;
  /* log of a tail below 1e-300 (|w| > 26), from the continued fraction
   * erfc(w) = exp(-w^2) / (sqrt(pi) K), K = w + (1/2)/(w + 1/(w + (3/2)/(w + ...))),
   * which 20 levels take to full accuracy there (the asymptotic series to
   * three terms was off by 3e-9) */
  r.log_cdf = log(lower);
  r.log_ccdf = log(upper);
  if (!(lower > 1e-300 && upper > 1e-300)) {
    double aw = fabs(w), K = aw;
    for (int k = 20; k >= 1; k--) K = aw + 0.5 * k / K;
    double lt = -aw * aw - log(2.0 * sqrt(STABLE_PI) * K);
    if (w < 0.0) r.log_cdf = lt;
    else r.log_ccdf = lt;
  }
  r.dlog_pdf = -w;
  return r;
}

GS_HD static inline stable_value stable_cauchy(double z)
{
  stable_value r;
  double az = fabs(z);
  r.log_pdf = -STABLE_LOG_PI - (az < 1e150 ? log1p(z * z) : 2.0 * log(az));
  r.pdf = exp(r.log_pdf);
  r.cdf = atan2(1.0, -z) / STABLE_PI;
  r.ccdf = atan2(1.0, z) / STABLE_PI;
  r.log_cdf = log(r.cdf);
  r.log_ccdf = log(r.ccdf);
  r.dlog_pdf = -2.0 * z / (1.0 + z * z);
  return r;
}

/* The standard S0 law at z into *r; 0 where the point needs work that fast
 * (GS_EVAL_*) declines, else the rule used (STABLE_BY_*). z1 (the distance
 * from zeta where known exactly, else NaN) and tol as in stable_general. */
GS_HD static inline int stable_standard(double z, double z1, double alpha, double beta, int need,
                                        int fast, double tol, stable_value *r)
{
  if (isinf(z)) {
    stable_value_set(r, -INFINITY, z > 0.0 ? 1.0 : 0.0, z > 0.0 ? 0.0 : 1.0,
                     z > 0.0 ? 0.0 : -INFINITY, z > 0.0 ? -INFINITY : 0.0);
    return STABLE_BY_FAST_RULE;
  }
  if (alpha == 2.0) {
    *r = stable_gauss(z);
    return STABLE_BY_FAST_RULE;
  }
  if (alpha == 1.0 && beta == 0.0) {
    *r = stable_cauchy(z);
    return STABLE_BY_FAST_RULE;
  }
  return stable_general(z, z1, alpha, beta, need, fast, tol, r);
}

/* The standard S0 law at z = sign exp(log_abs_z), beyond the largest
 * double, from its value there: exact (0, 1, -inf) on a thin side, beyond
 * the support and at alpha = 2; on a power-law side the tail series, or
 * at alpha = 1 (or where the series declines) the power law carried on
 * from the largest double: the tail falls like |z|^-alpha, the density like
 * |z|^-(1 + alpha) (at alpha = 1 exact there to rounding). */
GS_HD static inline int stable_standard_beyond(double sign, double log_abs_z, double alpha,
                                               double beta, int need, int fast, double tol,
                                               stable_value *r)
{
  int rule = stable_standard(sign * DBL_MAX, NAN, alpha, beta, need, fast, tol, r);
  if (!rule || !(r->log_pdf > -INFINITY)) return rule;
  double shift = log_abs_z - log(DBL_MAX), lpdf, ltail, dlog;
  stable_point p;
  stable_point_prepare(&p, sign * DBL_MAX, NAN, alpha, beta);
  if (alpha == 1.0 || !stable_tail_series(&p, log_abs_z, &lpdf, &ltail, &dlog)) {
    lpdf = r->log_pdf - (1.0 + alpha) * shift;
    ltail = (sign > 0.0 ? r->log_ccdf : r->log_cdf) - alpha * shift;
  }
  double tail = exp(ltail);
  if (sign > 0.0) stable_value_set(r, lpdf, 1.0 - tail, tail, log1p(-tail), ltail);
  else stable_value_set(r, lpdf, tail, 1.0 - tail, ltail, log1p(-tail));
  return rule;
}

/* The density, or with STABLE_FLAG_PROB the probability, of the family at
 * x into *out: NaN for NA/NaN input or invalid parameters. Returns 0 where
 * the point needs work that fast (GS_EVAL_*) declines. */
GS_HD static inline int stable_family_value(double x, double alpha, double beta, double gamma,
                                            double delta, int flags, int fast, double *out)
{
  double s = x + alpha + beta + gamma + delta;
  stable_value r;
  if (isnan(s) || !stable_params_ok(alpha, beta, gamma, delta)) {
    *out = isnan(s) ? s : NAN;
    return 1;
  }
  int need = flags & STABLE_FLAG_PROB ? STABLE_NEED_PROB : STABLE_NEED_PDF;
  double z = stable_standardize(x, alpha, beta, gamma, delta, flags);
  /* for pm = 1 the distance from zeta is the S1 argument itself: z + B
   * would lose its digits near zeta (5e-11 at 2e-7 from it, alpha = 0.1) */
  double z1 = flags & STABLE_FLAG_S1 && alpha != 1.0 ? (x - delta) / gamma : NAN;
  /* z overflowed (x, delta and gamma are finite): its log from the halves,
   * the shift of pm = 1 or 2 being far below its last digit */
  int ok = isinf(z) && !isinf(x)
               ? stable_standard_beyond(z > 0.0 ? 1.0 : -1.0,
                                        log(fabs(0.5 * x - 0.5 * delta)) + 0.6931471805599453 -
                                            log(gamma),
                                        alpha, beta, need, fast, STABLE_TRAPEZOID_TOL, &r)
               : stable_standard(z, z1, alpha, beta, need, fast, STABLE_TRAPEZOID_TOL, &r);
  if (!ok) return 0;
  int lg = flags & STABLE_FLAG_LOG;
  if (!(flags & STABLE_FLAG_PROB)) *out = lg ? r.log_pdf - log(gamma) : r.pdf / gamma;
  else if (flags & STABLE_FLAG_UPPER) *out = lg ? r.log_ccdf : r.ccdf;
  else *out = lg ? r.log_cdf : r.cdf;
  return 1;
}

/* The quantile search is Newton's method on G(z) = L(tail(z)) - L(q),
 * L(t) = log(t / (1 - t)) the log-odds, for the tail q is in (q <= 1/2).
 * L is nearly linear in z at the centre and is log t in the tails; near
 * the root (t <= 1/2) an error e in G is a relative error of at most e in
 * the tail.
 *
 * Newton leaves |G| ~ kappa G^2, kappa = |G''| / (2 G'^2): O(1) at the
 * centre, about 1 / (2 alpha) in a Pareto tail, below 1 in a thin one.
 * So an evaluation need only be accurate against G^2 of the one before it:
 * while far from the root the trapezoid rule stops at a change of G^2
 * (between these bounds), which costs 60 to 110 nodes where full accuracy
 * costs 270; its change overstates its error (at 1e-5: 2e-10 at the 99th
 * percentile of 40,000 random points, at 1e-2: 2e-5). */
#define STABLE_QUANTILE_TOL_MIN 1e-5
#define STABLE_QUANTILE_TOL_MAX 1e-2
/* The rough evaluations end where |G| is under this: the Newton step from
 * there leaves |G| ~ 1e-10, about their own error, and one full evaluation
 * then ends the search (1.01 full evaluations per quantile on random
 * inputs, the fallback of stable_quantile_std included). */
#define STABLE_QUANTILE_ROUGH_END 1e-5
/* A full evaluation with |G| under this ends the search with its Newton
 * step, which leaves |G| ~ kappa G^2 < 1e-15 without another evaluation. */
#define STABLE_QUANTILE_LAST 1e-8
/* Where an evaluation gives the slope of the log density as well (the rule
 * over y, the tail series, the closed forms), G'' is known and the step
 * within |G| < STABLE_QUANTILE_HALLEY is Halley's, which leaves |G| of
 * order G^3: the rough evaluations end at |G| < 0.1 instead of 1e-5, and a
 * full one at |G| < 3e-5 ends the search (1.07 full evaluations per
 * quantile). On 5,000 random quantiles like the benchmark's (alpha in
 * [0.5, 2], beta in [-1, 1], p in (0, 1); CPU count) the search took 227
 * level evaluations instead of 318, and pstable at the answer matched p to
 * 1.2e-14 relative at worst (1.7e-14 on 3,000 with p log-uniform in both
 * tails down to 1e-10). */
#define STABLE_QUANTILE_HALLEY 1.0
#define STABLE_QUANTILE_HALLEY_ROUGH_END 0.1
#define STABLE_QUANTILE_HALLEY_LAST 3e-5
/* The largest step of the search in v = asinh z: a factor of e^3 in |z|. */
#define STABLE_QUANTILE_DV_MAX 3.0

/* Where the search starts: the quantile of the Pareto law that the tail
 * follows, P(Z > z) ~ Gamma(alpha) sin(pi alpha / 2) (1 + beta) z^-alpha / pi
 * (the lower tail with 1 - beta), taken as (1/q - 2) z^alpha = constant so
 * that the median starts at 0; or, where larger, about that of the
 * Gaussian of variance 2 (the law at alpha = 2), whose tail the law follows
 * near alpha = 2 until the Pareto tail takes over far out. It is narrowed
 * on the light side of a skewed law (1 + beta or 1 - beta small).
 * sin(pi alpha / 2) is taken as sin(pi (2 - alpha) / 2), exactly 0 at
 * alpha = 2, which has no Pareto tail: the rounding of sin(pi) once started
 * qstable(1e-50, 2, 0) at -6e16, where the log tail (-1e33) is too large
 * for the search to find its slope. */
GS_HD static inline double stable_quantile_start(double log_q, int upper, double alpha,
                                                 double beta)
{
  double side = upper ? 1.0 : -1.0, weight = 1.0 + side * beta;
  double log_z = (lgamma(alpha) + log(weight) + log(sin(STABLE_PI_2 * (2.0 - alpha))) - STABLE_LOG_PI +
                  log(-expm1(log_q + 0.6931471805599453)) - log_q) / alpha;
  double gauss = 1.5 * fmin(1.0, weight) * sqrt(fmax(0.0, -log_q - 0.6931471805599453));
  return side * fmax(exp(fmin(log_z, 690.0)), gauss);
}

/* The next point of the search from z, where G = g, dG/dz = slope and
 * G''/G' = curv (NaN where unknown), inside the bracket (lo, hi). Near the
 * root, Halley's step in z where curv is known; else Newton in v = asinh z,
 * in which G is nearly linear far out (about -+alpha log |z|), so that a
 * step from far away lands close. Where the bracket is closed, bisection in
 * v if the step leaves it or does not halve the previous step (*dv_prev);
 * where it is open, a step of STABLE_QUANTILE_DV_MAX towards the open side
 * if it leaves it. z itself where the step cannot move it by an ulp (the
 * values allow no better). */
GS_HD static inline double stable_quantile_step(double z, double g, double slope, double curv,
                                                double lo, double hi, double *dv_prev)
{
  double w = hypot(1.0, z), dz = g / slope, halley = 1.0 - 0.5 * dz * curv, dv, zn;
  if (fabs(g) < STABLE_QUANTILE_HALLEY && halley >= 0.5 && halley <= 2.0) {
    zn = z - dz / halley;
    dv = (zn - z) / w;
  } else {
    dv = -dz / w;
    if (fabs(dv) > STABLE_QUANTILE_DV_MAX) dv = copysign(STABLE_QUANTILE_DV_MAX, dv);
    /* sinh(v + dv) - z, accurate for small dv */
    double s = sinh(0.5 * dv);
    zn = z + (2.0 * z * s * s + w * sinh(dv));
  }
  if (fabs(zn - z) <= 2.3e-16 * fabs(z)) return z;
  int inside = zn > lo && zn < hi;
  if (lo > -INFINITY && hi < INFINITY) {
    if (!inside || !(fabs(dv) <= 0.5 * *dv_prev)) zn = sinh(0.5 * (asinh(lo) + asinh(hi)));
  } else if (!inside) {
    zn = sinh(asinh(z) + (hi < INFINITY ? -STABLE_QUANTILE_DV_MAX : STABLE_QUANTILE_DV_MAX));
  }
  *dv_prev = fabs(asinh(zn) - asinh(z));
  return zn;
}

/* One step of the plain search (the fallback of stable_quantile_std):
 * Newton in z on log tail(z) - log q, where G = g and dG/dz = slope,
 * safeguarded by the bracket (*lo, *hi), with steps capped so that a
 * bracket is found by growing |z| geometrically. Returns 0 where z cannot
 * move by an ulp, with *out the answer. */
GS_HD static inline int stable_quantile_plain_step(double *z, double g, double slope, double *lo,
                                                   double *hi, double dir, double *out)
{
  double zc = *z;
  /* g * dir > 0: z is beyond the quantile */
  if (g * dir > 0.0) *hi = zc; else *lo = zc;
  double zn = zc - g / slope, cap = 4.0 * fmax(1.0, fabs(zc));
  if (!(zn > *lo && zn < *hi) || fabs(zn - zc) > cap) {
    if (*lo > -INFINITY && *hi < INFINITY) zn = 0.5 * (*lo + *hi);
    else zn = zc + (*hi < INFINITY ? -cap : cap);
    if (!(zn > *lo && zn < *hi)) zn = 0.5 * (*lo + *hi);
  }
  if (!(*hi - *lo > 2.3e-16 * fabs(zc))) return 0;
  *out = zn;
  if (fabs(zn - zc) <= 2.3e-16 * fabs(zc)) return 0;
  *z = zn;
  return 1;
}

/* The standard S0 quantile: z with P(Z <= z) = p (lower) or P(Z > z) = p
 * (upper), p given as its log. The search (see above) takes rough
 * evaluations until |G| is small, then full ones; the bracket of the rough
 * ones is dropped then, as their sign is not certain near the root. */
GS_HD static inline int stable_quantile_std(double log_p, int upper, double alpha, double beta,
                                            int fast, double *out)
{
  /* work in the smaller tail */
  double log_q = log_p > -0.6931471805599453 ? log(-expm1(log_p)) : log_p;
  if (log_p > -0.6931471805599453) upper = !upper;
  if (log_q == -INFINITY) {
    /* the support ends at zeta for alpha < 1, beta = -+1 */
    if (alpha < 1.0 && beta == (upper ? -1.0 : 1.0)) {
      *out = -stable_skew(alpha, beta);
    } else {
      *out = upper ? INFINITY : -INFINITY;
    }
    return 1;
  }
  /* G is increasing in z for the lower tail */
  double dir = upper ? -1.0 : 1.0, lo = -INFINITY, hi = INFINITY, dv_prev = INFINITY;
  double target = log_q - log(-expm1(log_q)), tol = STABLE_QUANTILE_TOL_MAX, g_best = INFINITY;
  double z = stable_quantile_start(log_q, upper, alpha, beta);
  int plain = 0;
  for (int it = 0; it < 400; it++) {
    stable_value r;
    int full = tol == STABLE_TRAPEZOID_TOL;
    int rule =
        stable_standard(z, NAN, alpha, beta, STABLE_NEED_ALL | STABLE_NEED_DLOG_PDF, fast, tol, &r);
    if (!rule) return 0;
    double lt = upper ? r.log_ccdf : r.log_cdf;
    if (plain) {
      *out = z;
      if (fabs(lt - log_q) < 1e-15) return 1;
      if (!stable_quantile_plain_step(&z, lt - log_q, dir * exp(r.log_pdf - lt), &lo, &hi, dir,
                                      out))
        return 1;
      continue;
    }
    /* 1 - tail from the tail itself, exact near the root (tail <= 1/2) */
    double lt1 = log(-expm1(lt)), g = lt - lt1 - target;
    double f_lt = exp(r.log_pdf - lt), f_lt1 = exp(r.log_pdf - lt1), slope = dir * (f_lt + f_lt1);
    /* G''/G' = d log f/dz - dir f (1 - 2 t) / (t (1 - t)), t the tail */
    double curv = r.dlog_pdf - dir * (f_lt - f_lt1);
    int halley = !isnan(curv);
    /* Where a full evaluation needs the adaptive rule, whose values need not
     * be smooth in z where it stops at its split budget, an unevaluated
     * Newton step is no answer: the plain search takes over from z, full
     * evaluations only, which ends at a point it evaluated where the log
     * tail matches to 1e-15, as pstable reproduces it. */
    if (full && rule == STABLE_BY_ADAPTIVE_RULE) {
      plain = 1;
      lo = -INFINITY;
      hi = INFINITY;
      continue;
    }
    /* the answer so far: the last point, then the best of the full
     * evaluations (where bisection ends the search, the last need not be) */
    if (!(fabs(g) > fabs(g_best))) {
      *out = z;
      if (full) g_best = g;
    }
    if (full && fabs(g) < (halley ? STABLE_QUANTILE_HALLEY_LAST : STABLE_QUANTILE_LAST)) {
      double step = g / slope;
      if (halley) step /= 1.0 - 0.5 * step * curv;
      if (isfinite(step)) *out = z - step;
      return 1;
    }
    /* g * dir > 0: z is beyond the quantile */
    if (g * dir > 0.0) hi = z; else lo = z;
    double zn = stable_quantile_step(z, g, slope, curv, lo, hi, &dv_prev);
    /* z cannot move by an ulp */
    int stuck = zn == z || !(hi - lo > 2.3e-16 * fabs(z));
    if (full && stuck) return 1;
    double rough_end = halley ? STABLE_QUANTILE_HALLEY_ROUGH_END : STABLE_QUANTILE_ROUGH_END;
    if (!full && (fabs(g) < rough_end || stuck)) {
      tol = STABLE_TRAPEZOID_TOL;
      lo = -INFINITY;
      hi = INFINITY;
      dv_prev = INFINITY;
    } else if (!full) {
      tol = fmin(STABLE_QUANTILE_TOL_MAX, fmax(STABLE_QUANTILE_TOL_MIN, g * g));
    }
    if (!stuck) z = zn;
  }
  return 1;
}

/* The quantile as the S1 argument w = z + B, the distance from zeta, for
 * alpha < 1/2, where the search above (in z) cannot resolve it: a quantile
 * within |B| of zeta cancels in z + B (qstable(0.3, 0.01, 0.3, pm = 1) was
 * 0, true -1.3e-29), and at small alpha the quantiles spread over every
 * scale, |X1|^-alpha being about exponential. The side s of zeta comes from
 * the tails at zeta, c0 / pi and T / pi (exact), then Newton in l = log |w|
 * on G(l) = log P(s X1 > e^l) - log Q, which is smooth in l on either side
 * (about log(1 - exp(-e^-(alpha l))) at small alpha), bracketed by bisection
 * on [-746, 710], where e^l is 0 and inf. From l0 where it is finite, else
 * from the quantile of the limit law, P(s X1 > r) = w_s (1 - exp(-r^-alpha)),
 * w_s the tail at zeta; below STABLE_LIMIT_ALPHA the limit law's quantile is
 * the answer. Returns 0 where fast declines the evaluations. */
GS_HD static inline int stable_quantile_s1(double log_p, int upper, double alpha, double beta,
                                           double l0, int fast, double *out)
{
  double B = stable_skew(alpha, beta), lo = -746.0, hi = 710.0;
  stable_value v;
  if (!stable_standard(-B, 0.0, alpha, beta, STABLE_NEED_PROB, fast, STABLE_TRAPEZOID_TOL, &v)) return 0;
  /* the tail p asks for, at zeta: is the quantile on its own side? */
  double lt0 = upper ? v.log_ccdf : v.log_cdf, side = upper ? 1.0 : -1.0;
  if (log_p == lt0) {
    *out = 0.0;
    return 1;
  }
  int own = log_p < lt0;
  double s = own ? side : -side, log_Q = own ? log_p : log(-expm1(log_p));
  double lw = s > 0.0 ? v.log_ccdf : v.log_cdf; /* log w_s */
  if (isnan(l0)) l0 = -log(-log1p(-exp(log_Q - lw))) / alpha;
  if (alpha < STABLE_LIMIT_ALPHA || !(fabs(l0) < 800.0 - 2.0 * log(alpha))) {
    /* the limit law, or a quantile so far beyond the double range that its
     * error (of order log alpha in l) cannot bring it back */
    *out = s * exp(l0);
    return 1;
  }
  if (fast) return 0;
  double l = fmin(fmax(l0, lo + 1.0), hi - 1.0), l_best = l, g_best = INFINITY;
  for (int it = 0; it < 100; it++) {
    double r = exp(l);
    stable_standard(s * r - B, s * r, alpha, beta, STABLE_NEED_ALL, GS_EVAL_ALL,
                    STABLE_TRAPEZOID_TOL, &v);
    double lf = s > 0.0 ? v.log_ccdf : v.log_cdf, g = lf - log_Q;
    if (fabs(g) < fabs(g_best)) {
      g_best = g;
      l_best = l;
    }
    /* P(s X1 > e^l) falls with l */
    if (g > 0.0) lo = l; else hi = l;
    double ln = l + g / exp(v.log_pdf + l - lf);
    if (!(ln > lo && ln < hi)) ln = 0.5 * (lo + hi);
    if (fabs(g) < 1e-15 || fabs(ln - l) < 1e-16 * (1.0 + fabs(l)) || hi - lo < 1e-15 * (1.0 + fabs(l)))
      break;
    l = ln;
  }
  *out = s * exp(l_best);
  return 1;
}

/* Whether the quantile is searched as the S1 argument (stable_quantile_s1):
 * at small alpha always; for alpha < 1/2 where the answer of the search in
 * z lies within |B| / 1000 of zeta, so that z + B lost ten bits. */
#define STABLE_QUANTILE_S1_NEAR 1e-3

/* The quantile of the family into *out; 0 where a step of the search needs
 * work that fast (GS_EVAL_*) declines. */
GS_HD static inline int stable_quantile(double p, double alpha, double beta, double gamma,
                                        double delta, int flags, int fast, double *out)
{
  double s = p + alpha + beta + gamma + delta, z = NAN;
  double log_p = flags & STABLE_FLAG_LOG ? p : log(p);
  if (isnan(s) || !stable_params_ok(alpha, beta, gamma, delta) || !(log_p <= 0.0)) {
    *out = isnan(s) ? s : NAN;
    return 1;
  }
  int upper = flags & STABLE_FLAG_UPPER, s1 = flags & STABLE_FLAG_S1;
  if (alpha < STABLE_SMALL_ALPHA) {
    double w;
    if (!stable_quantile_s1(log_p, upper, alpha, beta, NAN, fast, &w)) return 0;
    z = s1 ? w : w - stable_skew(alpha, beta);
  } else {
    if (!stable_quantile_std(log_p, upper, alpha, beta, fast, &z)) return 0;
    /* back from standard S0 to the family */
    if (s1 && alpha == 1.0) {
      z += beta * log(gamma) / STABLE_PI_2;
    } else if (s1) {
      double B = stable_skew(alpha, beta), w = z + B;
      if (alpha < 0.5 && fabs(w) < STABLE_QUANTILE_S1_NEAR * fabs(B) && log_p > -INFINITY &&
          !stable_quantile_s1(log_p, upper, alpha, beta, w != 0.0 ? log(fabs(w)) : NAN, fast, &w))
        return 0;
      z = w;
    }
  }
  *out = gamma * z + delta;
  return 1;
}

/* v in [lo, hi] to 0 .. 2^bits - 1, monotone (NaN: 0). */
GS_HD static inline unsigned stable_key_bucket(double v, double lo, double hi, int bits)
{
  double q = (v - lo) / (hi - lo) * (double)(1u << bits);
  if (!(q > 0.0)) return 0u;
  return q >= (double)((1u << bits) - 1u) ? (1u << bits) - 1u : (unsigned)q;
}

/* A sort key that groups elements which follow the same path at about the
 * same cost: the integration mode, then alpha, beta, and the standardized
 * argument (or, for a quantile, the log-odds of p). Elements evaluated in
 * key order keep a GPU warp's lanes together. */
GS_HD static inline unsigned stable_sort_key(double a0, double alpha, double beta, double gamma,
                                             double delta, int flags, int quantile)
{
  double u, z = 0.0;
  if (quantile) {
    double lp = flags & STABLE_FLAG_LOG ? a0 : log(a0);
    u = lp - log(-expm1(lp));
  } else {
    z = stable_standardize(a0, alpha, beta, gamma, delta, flags);
    u = asinh(z);
  }
  unsigned cls = 0u;
  if (!(alpha == 2.0 || (alpha == 1.0 && beta == 0.0)) && !isnan(z)) {
    stable_point p;
    stable_point_prepare(&p, z, NAN, alpha, beta);
    cls = stable_mode_s(&p, z, beta) ? 1u : 2u;
  }
  return cls << 30 | stable_key_bucket(alpha, 0.0, 2.0, 7) << 23 |
         stable_key_bucket(beta, -1.0, 1.0, 4) << 19 | stable_key_bucket(u, -50.0, 50.0, 19);
}

/* One draw by the Chambers-Mallows-Stuck construction, written so that it is
 * continuous and well conditioned through alpha = 1 in S0:
 *   X0 = B expm1(L) + sin(alpha U) cos(U)^(-1/alpha) G^(eps/alpha),
 *   G = (cos(eps U) + B sin(eps U)) / W,
 *   L = log1p(cos(eps U) - 1 + tan(U) sin(eps U)) + (eps/alpha)(log G - log cos U),
 * (X0 + B is the S1 variable), where B = beta tan(pi alpha / 2) and
 * eps = 1 - alpha; every term of L is O(eps), so B expm1(L) stays accurate
 * as B grows like 1/eps. U and W come from a counter-based generator: the
 * same (seed, index) gives the same draw on any thread of CPU or GPU. */
/* The S1 draw X1 from the same construction in logs (below
 * STABLE_RANDOM_LOG_ALPHA, and where the form below overflows), t = U + theta0:
 *   log |X1| = log |sin(alpha t)| + log(1 + B^2) / (2 alpha) - log cos U
 *              + ((1 - alpha) / alpha) (D - log W),
 *   D = log(cos(U - alpha t) / cos U) = log1p(cos(alpha t) - 1 + tan U sin(alpha t)),
 * so that no term of size 1/alpha cancels another (|X1|^-alpha is about
 * W, and X1 is 0 or infinite beyond the double range, never NaN). */
/* Below this alpha every draw is made in logs: at alpha = 0.01, 21 % of the
 * S1 draws of the form below were 0 (P(X1 > 0) 0.51, true 0.65) and 0.04 %
 * NaN; at 0.05, 2 % of them differed from the draw in logs by more than 1e-6
 * (relative), at 0.1 none (the worst 8e-7). */
#define STABLE_RANDOM_LOG_ALPHA 0.1

GS_HD static inline double stable_random_log(double U, double W, double alpha, double beta)
{
  double B = stable_skew(alpha, beta);
  double th0 = alpha < STABLE_THETA0_LIMIT_ALPHA ? beta * STABLE_PI_2 : atan(B) / alpha;
  double t = U + th0, a = alpha * t, sh = sin(0.5 * a);
  /* sin(a) = a to rounding below 1e-100, where a may be subnormal */
  double lsin = fabs(a) > 1e-100 ? log(fabs(sin(a))) : log(alpha) + log(fabs(t));
  double D = log1p(-2.0 * sh * sh + tan(U) * sin(a));
  double l = lsin + 0.5 * log1p(B * B) / alpha - log(cos(U)) + ((1.0 - alpha) / alpha) * (D - log(W));
  return copysign(exp(l), sin(a));
}

GS_HD static inline double stable_random(uint64_t seed, uint64_t index, double alpha, double beta,
                                         double gamma, double delta, int flags)
{
  double s = alpha + beta + gamma + delta;
  if (isnan(s) || !stable_params_ok(alpha, beta, gamma, delta)) return NAN;
  double U = STABLE_PI * (rng_uniform(seed, 2 * index) - 0.5);
  double W = -log(rng_uniform(seed, 2 * index + 1));
  double z;
  if (alpha == 1.0) {
    double w = STABLE_PI_2 + beta * U;
    z = (w * tan(U) - beta * log(STABLE_PI_2 * W * cos(U) / w)) / STABLE_PI_2;
    if (flags & STABLE_FLAG_S1) z += beta * log(gamma) / STABLE_PI_2;
  } else {
    double eps = 1.0 - alpha;
    double B = stable_skew(alpha, beta);
    double cu = cos(U), seu = sin(eps * U), h = sin(0.5 * eps * U);
    double lG = log((cos(eps * U) + B * seu) / W), lc = log(cu);
    double scale = exp((eps * lG - lc) / alpha); /* cos(U)^(-1/alpha) G^(eps/alpha) */
    if (alpha < STABLE_RANDOM_LOG_ALPHA || !(scale < INFINITY)) {
      /* where scale overflows the sum below was NaN (B inf - inf) for a
       * draw that may be finite; at small alpha, where X1 spreads over
       * every scale, the S1 draw z + B below cancels */
      double x1 = stable_random_log(U, W, alpha, beta);
      z = flags & STABLE_FLAG_S1 ? x1 : x1 - B;
    } else {
      /* cos(alpha U) / cos(U) - 1; for alpha > 1 the ratio can be <= 0, far
       * from alpha = 1, where the plain product is accurate */
      double rm1 = -2.0 * h * h + tan(U) * seu;
      if (rm1 > -0.5) z = B * expm1(log1p(rm1) + (eps / alpha) * (lG - lc));
      else z = B * (cos(alpha * U) * scale - 1.0);
      z += sin(alpha * U) * scale;
      if (flags & STABLE_FLAG_S1) z += B;
    }
  }
  return gamma * z + delta;
}

#endif
