/* Alpha-stable laws: density and distribution function of the standard
 * S0 law (Nolan's parameterization; gamma = 1, delta = 0), one GS_HD
 * implementation for the CPU loops and the CUDA kernels.
 *
 * The representation. With S1 coordinate x1 = x - zeta >= 0 (zeta =
 * -beta tan(pi alpha / 2); x < zeta is reflected to -x, -beta), the
 * Chambers-Mallows-Stuck construction X = g(U, W), U uniform on
 * (-pi/2, pi/2), W standard exponential, gives for alpha != 1
 *     P(X <= x | U = u) = exp(-h(u))  or  1 - exp(-h(u)),
 * with h monotone on (-theta0, pi/2) (Nolan's V times x1^(alpha/(alpha-1))).
 * Writing s = log h,
 *     pdf  = alpha / (pi |1-alpha| x1) * int exp(s - e^s) |du/ds| ds,
 *     int e^-h du      = int exp(s - e^s) |u(s) - u0| ds,
 *     int (1-e^-h) du  = int exp(s - e^s) |uinf - u(s)| ds,
 * where u0 is the end where h -> 0 and uinf the end where h -> inf (the
 * last two by parts: every integrand has the weight exp(s - e^s), whose
 * Gumbel shape in s the rules are built for; where h is bounded below by
 * h0 > 0 at u0, beta = +-1, the last gains the end term T (1 - e^-h0)).
 * The cdf and the upper tail are each a sum of positive terms, so neither
 * is computed as 1 minus the other.
 *
 * u is carried as two offsets from the ends, t = u + theta0 and
 * v = pi/2 - u, through a logistic variable y (t = T / (1 + e^-y),
 * v = T / (1 + e^y)), so that both are exact near their end and a peak at
 * 1e-300 from an end is resolved.
 *
 * Conditioning near alpha = 1. log h = log Q(u) - (alpha/eps) D(u) with
 * eps = 1 - alpha and D = log(x1 / P(u)). Computed directly, D carries an
 * absolute rounding error of 1e-16 that the factor 1/eps turns into a
 * relative error of 1e-16/eps in h. Two cures, one per case:
 *  - |B| large (B = beta tan(pi alpha / 2), |beta| >> |eps|): D is rewritten
 *    as a sum of terms that are each O(eps) and computed to full relative
 *    accuracy (log1p(x/B), cos(eps u) - 1 + tan(u) sin(eps u) + ...);
 *  - |B| small: the integrals are taken over s itself, solving s(u) = s_k
 *    for u at each node by Newton. Rounding then moves u by 1e-16, which the
 *    smooth integrand in s does not notice (the rounding error in s at a
 *    fixed u is 1e-16/eps, but s is no longer computed, it is chosen).
 * alpha = 1 exactly has its own h (Nolan), with the same two regimes in
 * beta: beta small is the near-Cauchy case and is integrated over s. In
 * both forms the terms grow like pi |x| / (2 beta) far out, and there too
 * the integrals are taken over s (stable_mode_s).
 *
 * In the light tails of beta = +-1 (alpha != 1), where h is bounded below
 * by a large h0 and h0 times the rounding of log h would show, log h near
 * the end where h = h0 is log h0 plus the series of log(h / h0)
 * (stable_light_tail.h).
 *
 * Far tails use the series in x1^-alpha (convergent for alpha < 1,
 * asymptotic for alpha > 1), stopped where its terms stop shrinking.
 *
 * Quadrature. Over y, a trapezoid rule after a map centred on the peak
 * that suits its Gumbel shape (the same loop for every point: what a GPU
 * warp wants); where it does not converge within its node budget, and
 * over s, Gauss-Kronrod. A caller that asks for the fast rule
 * only (the GPU's first pass) is told which points need the adaptive one. */
#ifndef GS_STABLE_LEVEL_H
#define GS_STABLE_LEVEL_H

#include <math.h>
#include "gs_common.h"
#include "stable_light_tail.h"

#define STABLE_PI 3.14159265358979323846
#define STABLE_PI_2 1.57079632679489661923
#define STABLE_LOG_PI 1.14472988584940017414

/* Which integrals a caller needs: the density's, or the two of the
 * probabilities, int e^-h du (J1) and int (1 - e^-h) du (J2); a quantile
 * search needs all, and the slope of the log density, from
 * int h^2 e^-h du (J3), where the rule over y gives it. */
#define STABLE_NEED_PDF 1
#define STABLE_NEED_J1 2
#define STABLE_NEED_J2 4
#define STABLE_NEED_PROB 6
#define STABLE_NEED_ALL 7
#define STABLE_NEED_DLOG_PDF 8

/* How log h and its derivative are computed (see above). */
enum { STABLE_FORM_DIRECT = 0, STABLE_FORM_SMALL_D = 1, STABLE_FORM_ALPHA1 = 2 };

/* Everything about one (x, alpha, beta) point that does not depend on u. */
typedef struct {
  double alpha, beta, eps; /* eps = 1 - alpha */
  double x1;               /* x - zeta >= 0 (alpha = 1: x) */
  double B;                /* beta tan(pi alpha / 2) */
  double c0;               /* pi/2 - theta0: the cdf at zeta is c0 / pi */
  double T;                /* pi/2 + theta0: length of the u interval */
  double aT;               /* alpha T, accurate near 0 */
  double pa;               /* pi - alpha T, accurate near 0 */
  double theta0;
  double s_const;          /* the part of log h that does not depend on u */
  double s_end, s_end_lo;  /* log h0 (stable_log_h_end), with its low part */
  int form;
  int h_zero_at_lower;     /* h -> 0 at u = -theta0 (else at u = pi/2) */
} stable_point;

/* log h at one u, with d log h / dy, and the offsets of u from the ends;
 * r = log(h / h0) where the integrals are scaled (STABLE_SCALED_S_END). */
typedef struct {
  double s, ds_dy, t, v, dp_dy, r;
} stable_level;

/* Where log h0 is above this (h bounded below by h0 > e^-1 at beta = +-1),
 * the integrals are scaled by e^-h0 and h - h0 is taken from log(h / h0). */
#define STABLE_SCALED_S_END -1.0

/* sin and cos of one angle. The helpers below choose their angle by
 * selects and then take one sincos: a GPU warp whose lanes chose
 * differently in a branch would run the calls of both branches. */
GS_HD static inline void stable_sincos(double a, double *s, double *c)
{
#ifdef __CUDA_ARCH__
  sincos(a, s, c);
#else
  *s = sin(a);
  *c = cos(a);
#endif
}

/* sin and cos of pi alpha / 2, each from the angle that keeps it accurate:
 * through eps = 1 - alpha near alpha = 1 (cos(pi alpha / 2) = sin(pi eps / 2)),
 * through alpha itself below 1/2, where cos(pi eps / 2) would carry an
 * absolute error of 1e-17 into sin(pi alpha / 2) ~ pi alpha / 2 (all of it
 * at alpha = 1e-308). */
GS_HD static inline void stable_half_pi_alpha(double alpha, double *sa, double *ca)
{
  double eps = 1.0 - alpha;
  *sa = alpha < 0.5 ? sin(STABLE_PI_2 * alpha) : cos(STABLE_PI_2 * eps);
  *ca = sin(STABLE_PI_2 * eps);
}

/* B = beta tan(pi alpha / 2), alpha != 1: zeta = -B, and the shift from S0
 * to S1. */
GS_HD static inline double stable_skew(double alpha, double beta)
{
  double sa, ca;
  stable_half_pi_alpha(alpha, &sa, &ca);
  return beta * sa / ca;
}

/* log sin of the angle q = c0 + eps t (Q = sqrt(1 + B^2) sin q) and
 * d/du log sin q. q and pi - q are each formed from the offset that is
 * accurate at this u (c0 + eps t = pa - eps v, pi - q = T - eps t =
 * aT + eps v), and the smaller of the two is used, so that a zero of Q at
 * either end keeps its relative accuracy. */
GS_HD static inline double stable_log_q(const stable_point *p, double t, double v, double *dlog)
{
  int from_t = t <= v;
  double q = from_t ? p->c0 + p->eps * t : p->pa - p->eps * v;
  double r = from_t ? p->T - p->eps * t : p->aT + p->eps * v;
  int use_q = q <= r;
  double s, c;
  stable_sincos(use_q ? q : r, &s, &c);
  *dlog = (use_q ? p->eps : -p->eps) * c / s;
  return log(s);
}

/* log sin(alpha t) and d/dt, using pi - alpha t = pa + alpha v beyond pi/2. */
GS_HD static inline double stable_log_sin_at(const stable_point *p, double t, double v,
                                             double *dlog)
{
  double a = p->alpha * t;
  int from_t = a <= STABLE_PI_2;
  double s, c;
  stable_sincos(from_t ? a : p->pa + p->alpha * v, &s, &c);
  *dlog = (from_t ? p->alpha : -p->alpha) * c / s;
  return log(s);
}

/* log cos u and its derivative in u, with cos u and sin u, from whichever
 * offset is accurate (cos u = sin v = sin(t + c0), sin u = cos v =
 * -cos(t + c0)). */
GS_HD static inline double stable_log_cos_u(const stable_point *p, double t, double v, double *dlog,
                                            double *cos_u, double *sin_u)
{
  int from_v = v <= STABLE_PI_2;
  double s, c;
  stable_sincos(from_v ? v : t + p->c0, &s, &c);
  *cos_u = s;
  *sin_u = from_v ? c : -c;
  *dlog = -*sin_u / s;
  return log(s);
}

GS_HD static inline stable_level stable_level_at(const stable_point *p, double y)
{
  stable_level L;
  /* t = T / (1 + e^-y), v = T / (1 + e^y), each from e = e^-|y| <= 1 */
  double T = p->T, e = exp(-fabs(y)), inv = 1.0 / (1.0 + e), big = T * inv, small = e * big;
  L.t = y < 0.0 ? small : big;
  L.v = y < 0.0 ? big : small;
  L.dp_dy = small * inv;
  double t = L.t, v = L.v, ds_du;
  /* near the end where h = h0 > 0: log(h / h0) by its series */
  if (p->s_end > STABLE_SCALED_S_END && p->form != STABLE_FORM_ALPHA1) {
    double w = p->h_zero_at_lower ? t : v, dr_dw;
    if (w * fmax(p->alpha, 1.0) <= STABLE_LIGHT_SERIES_W) {
      L.r = stable_light_log_ratio(p->alpha, p->eps, w, &dr_dw);
      L.s = p->s_end + L.r;
      L.ds_dy = (p->h_zero_at_lower ? dr_dw : -dr_dw) * L.dp_dy;
      return L;
    }
  }
  if (p->form == STABLE_FORM_ALPHA1) {
    /* h = exp(-pi x / (2 beta)) (2/pi) (pi/2 + beta u) / cos u
     *     * exp((pi/2 + beta u) tan u / beta),  beta > 0;
     * cos u = sin t = sin v, tan u = -cot t = cot v */
    double beta = p->beta, cu, c;
    int from_t = t <= v;
    double w = from_t ? 0.5 * STABLE_PI * (1.0 - beta) + beta * t
                      : 0.5 * STABLE_PI * (1.0 + beta) - beta * v;
    stable_sincos(from_t ? t : v, &cu, &c);
    double tu = (from_t ? -c : c) / cu;
    L.s = p->s_const + log(w) - log(cu) + w * tu / beta;
    /* w / cos^2 u as (w / cos u) / cos u: cos u^2 underflows within 1e-154
     * of an end, where w / cos u stays near 1 at beta = 1 */
    ds_du = beta / w + 2.0 * tu + (w / cu) / (cu * beta);
  } else if (p->form == STABLE_FORM_DIRECT) {
    double dq, dsa, lq = stable_log_q(p, t, v, &dq);
    double lsa = stable_log_sin_at(p, t, v, &dsa);
    double dc, cu, su, lc = stable_log_cos_u(p, t, v, &dc, &cu, &su);
    /* (alpha / eps) (log sin(alpha t) - log cos(u) / alpha), without the
     * quotient by alpha, which overflows for alpha below 1e-305 */
    double r = p->alpha / p->eps;
    L.s = p->s_const + lq + r * lsa - lc / p->eps;
    ds_du = dq + r * dsa - dc / p->eps;
  } else {
    /* small-D form: s = log sin q + const - log cos u + (alpha/eps) log(1+rho),
     * 1 + rho = (B cos(alpha u) + sin(alpha u)) / (B cos u)
     *         = sqrt(1 + 1/B^2) R,  R = sin(alpha t) / cos u.
     * With cos u = sin(t + c0),
     *   R - 1 = -2 cos(t + (c0 - eps t)/2) sin(q/2) / cos u,  q = c0 + eps t,
     * a product of accurate factors that is O(eps) near alpha = 1 (c0 is
     * O(eps) there), also at a finite end (beta = +-1) where sin(alpha t)
     * and cos u vanish together. Where R is small, log R directly. */
    double dq, lq = stable_log_q(p, t, v, &dq);
    double dc, cu, su, lc = stable_log_cos_u(p, t, v, &dc, &cu, &su);
    double eps = p->eps, alpha = p->alpha;
    double q = t <= v ? p->c0 + eps * t : p->pa - eps * v;
    double ph = t + 0.5 * (p->c0 - eps * t), C, Sph, S, Cq;
    stable_sincos(ph, &Sph, &C);
    stable_sincos(0.5 * q, &S, &Cq);
    double Rm1 = -2.0 * C * S / cu;
    double dRm1 = -2.0 * (-Sph * (1.0 - 0.5 * eps) * S + 0.5 * eps * C * Cq + C * S * su / cu) / cu;
    double l1r, dl1r;
    if (Rm1 > -0.5) {
      l1r = log1p(Rm1);
      dl1r = dRm1 / (1.0 + Rm1);
    } else {
      /* R small (near the end where h -> 0 or inf): log R directly */
      double dsa, lsa = stable_log_sin_at(p, t, v, &dsa);
      l1r = lsa - lc;
      dl1r = dsa - dc;
    }
    L.s = p->s_const + lq - lc + (alpha / eps) * l1r;
    ds_du = dq - dc + (alpha / eps) * dl1r;
  }
  L.ds_dy = ds_du * L.dp_dy;
  L.r = L.s - p->s_end;
  return L;
}


/* The constants of alpha = 1 (Nolan's h); reflects beta < 0 to (-x, -beta).
 * Returns 1 when it reflected. */
GS_HD static inline int stable_point_alpha1(stable_point *p, double x, double beta)
{
  int reflected = 0;
  if (beta < 0.0) {
    x = -x;
    beta = -beta;
    reflected = 1;
  }
  p->beta = beta;
  p->x1 = x;
  p->B = 0.0;
  p->c0 = STABLE_PI_2;
  p->T = STABLE_PI;
  p->aT = STABLE_PI;
  p->pa = 0.0;
  p->theta0 = STABLE_PI_2;
  p->form = STABLE_FORM_ALPHA1;
  p->h_zero_at_lower = 1;
  p->s_const = -STABLE_PI_2 * x / beta + log(2.0 / STABLE_PI);
  return reflected;
}

/* The constants of alpha != 1 (alpha and eps set); reflects x < zeta to
 * (-x, -beta) and returns 1 when it did. *x_formed gets the S0 argument
 * after the reflection where x1 was formed from it, else NaN. */
GS_HD static inline int stable_point_general(stable_point *p, double x, double x1, double beta,
                                             double *x_formed)
{
  int reflected = 0;
  double alpha = p->alpha;
  /* sin and cos of pi alpha / 2 through eps, exact near alpha = 1 */
  double sa, ca;
  stable_half_pi_alpha(alpha, &sa, &ca);
  double B = beta * sa / ca;
  int formed = isnan(x1);
  if (formed) x1 = x + B;
  if (x1 < 0.0) {
    x = -x;
    x1 = -x1;
    beta = -beta;
    B = -B;
    reflected = 1;
  }
  *x_formed = formed ? x : NAN;
  double sg = p->eps > 0.0 ? 1.0 : -1.0, aca = fabs(ca);
  p->beta = beta;
  p->B = B;
  p->x1 = x1;
  p->c0 = atan2((1.0 - beta) * sa * aca, sg * (ca * ca + beta * sa * sa)) / alpha;
  p->aT = atan2((1.0 + beta) * sa * aca, sg * (ca * ca - beta * sa * sa));
  p->pa = atan2((1.0 + beta) * sa * aca, sg * (beta * sa * sa - ca * ca));
  p->T = p->aT / alpha;
  p->theta0 = p->T - STABLE_PI_2;
  p->h_zero_at_lower = alpha < 1.0;
  if (B > 2.0) {
    p->form = STABLE_FORM_SMALL_D;
    /* the last term is the constant factor sqrt(1 + 1/B^2) of 1 + rho;
     * log(x1 / B), which 1/eps magnifies, from whichever of x and x1 is
     * exact: x1 near zeta (pm = 1 gives it exactly; x + B would carry the
     * rounding of B, 1e-7 at 1e-3 from zeta, alpha = 1.0001), x in the body
     * (where x1 = x + B is exact or x1 / B = 1 + x / B has its digits) */
    double l1 = x1 < 0.5 * B ? log(x1 / B) : log1p(x / B);
    p->s_const = 0.5 * log1p(B * B) + (alpha / p->eps) * (0.5 * log1p(1.0 / (B * B)) - l1);
  } else {
    p->form = STABLE_FORM_DIRECT;
    p->s_const = 0.5 * log1p(B * B) / p->eps - (alpha / p->eps) * log(p->x1);
  }
  return reflected;
}

/* log h0, h0 the limit of h at u0, the end where h is smallest: positive
 * only at beta = +-1 on the side where the terms of log h that diverge
 * there cancel (sin q, sin(alpha t) and cos u all vanish like the offset;
 * at alpha = 1, w tan u / beta -> -1), else -inf; its low part into *lo
 * (alpha != 1: stable_light_log_h0, x as there). */
GS_HD static inline double stable_log_h_end(const stable_point *p, double x, double *lo)
{
  *lo = 0.0;
  if (p->form == STABLE_FORM_ALPHA1) return p->beta == 1.0 ? p->s_const - 1.0 : -INFINITY;
  if (!(p->alpha < 1.0 ? p->beta == 1.0 : p->beta == -1.0)) return -INFINITY;
  return stable_light_log_h0(p->alpha, x, p->x1, lo);
}

/* Constants of one point; reflects x < zeta to (-x, -beta). Returns 1 when
 * it reflected (the cdf and the upper tail then swap). alpha != 2. x1, the
 * distance x - zeta where the caller knows it without the cancellation of
 * x + B (the S1 argument itself), else NaN (alpha != 1 only). */
GS_HD static inline int stable_point_prepare(stable_point *p, double x, double x1, double alpha,
                                            double beta)
{
  double x_formed = NAN;
  p->alpha = alpha;
  p->eps = 1.0 - alpha;
  int reflected = alpha == 1.0 ? stable_point_alpha1(p, x, beta)
                               : stable_point_general(p, x, x1, beta, &x_formed);
  p->s_end = stable_log_h_end(p, x_formed, &p->s_end_lo);
  return reflected;
}

#define STABLE_Y_MAX 700.0

/* A Newton step below this (relative to 1 + |y|) is the last one. */
#define STABLE_NEWTON_LAST 1e-8

/* A known level: where the next solve starts (ds_dy = 0: only y is known). */
typedef struct {
  double y, s, ds_dy;
} stable_guess;

/* Solve log h(y) = s for y by safeguarded Newton from *g, which then holds
 * the solution; *L gets the level there. A step from a known level costs no
 * evaluation, so that nodes solved in order take about three each. */
GS_HD static inline void stable_solve_level(const stable_point *p, double s, stable_guess *g,
                                            stable_level *L)
{
  double dir = p->h_zero_at_lower ? 1.0 : -1.0, lo = -STABLE_Y_MAX, hi = STABLE_Y_MAX;
  double y = g->y, r = g->s - s, slope = g->ds_dy, dy_prev = hi - lo;
  int known = slope != 0.0; /* the level at y is the guess's, not in *L */
  for (int it = 0; it < 80; it++) {
    if (!known) {
      *L = stable_level_at(p, y);
      r = L->s - s;
      slope = L->ds_dy;
      if (r == 0.0) break;
    }
    known = 0;
    if (r * dir > 0.0) hi = y; else lo = y;
    /* Newton, unless it leaves the bracket or does not halve the previous
     * step: where s grows like e^|y| (alpha = 1), Newton from far below the
     * root creeps by steps of 1 */
    double yn = y - r / slope;
    int newton = yn > lo && yn < hi && fabs(yn - y) <= 0.5 * fabs(dy_prev);
    if (!newton) yn = 0.5 * (lo + hi);
    double dy = yn - y;
    dy_prev = dy;
    y = yn;
    /* Newton converges quadratically: after a step this small the next
     * would not move y (s itself carries rounding noise, so waiting for a
     * zero step could bisect its noise) */
    if ((newton && fabs(dy) <= STABLE_NEWTON_LAST * (1.0 + fabs(y))) ||
        hi - lo <= 1e-15 * (1.0 + fabs(y))) {
      *L = stable_level_at(p, y);
      break;
    }
  }
  g->y = y;
  g->s = L->s;
  g->ds_dy = L->ds_dy;
}

#endif
