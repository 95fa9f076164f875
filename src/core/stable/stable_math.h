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
 * Far tails use the series in x1^-alpha (convergent for alpha < 1,
 * asymptotic for alpha > 1), stopped where its terms stop shrinking.
 *
 * Quadrature. Over y, a trapezoid rule after a map centred on the peak
 * that suits its Gumbel shape (the same loop for every point: what a GPU
 * warp wants); where it does not converge within its node budget, and
 * over s, Gauss-Kronrod. A caller that asks for the fast rule
 * only (the GPU's first pass) is told which points need the adaptive one. */
#ifndef GS_STABLE_MATH_H
#define GS_STABLE_MATH_H

#include <math.h>
#include "gs_common.h"

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
  int form;
  int h_zero_at_lower;     /* h -> 0 at u = -theta0 (else at u = pi/2) */
} stable_point;

/* log h at one u, with d log h / dy, and the offsets of u from the ends. */
typedef struct {
  double s, ds_dy, t, v, dp_dy;
} stable_level;

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
  if (p->form == STABLE_FORM_ALPHA1) {
    /* h = exp(-pi x / (2 beta)) (2/pi) (pi/2 + beta u) / cos u
     *     * exp((pi/2 + beta u) tan u / beta),  beta > 0;
     * cos u = sin t = sin v, tan u = -cot t = cot v */
    double beta = p->beta, cu, c;
    int from_t = t <= v;
    double w = from_t ? 0.5 * STABLE_PI * (1.0 - beta) + beta * t
                      : 0.5 * STABLE_PI * (1.0 + beta) - beta * v;
    stable_sincos(from_t ? t : v, &cu, &c);
    double tu = (from_t ? -c : c) / cu, sec2 = 1.0 / (cu * cu);
    L.s = p->s_const + log(w) - log(cu) + w * tu / beta;
    ds_du = beta / w + 2.0 * tu + w * sec2 / beta;
  } else if (p->form == STABLE_FORM_DIRECT) {
    double dq, dsa, lq = stable_log_q(p, t, v, &dq);
    double lsa = stable_log_sin_at(p, t, v, &dsa);
    double dc, cu, su, lc = stable_log_cos_u(p, t, v, &dc, &cu, &su);
    double r = p->alpha / p->eps;
    L.s = p->s_const + lq + r * (lsa - lc / p->alpha);
    ds_du = dq + r * (dsa - dc / p->alpha);
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
  return L;
}


/* Constants of one point; reflects x < zeta to (-x, -beta). Returns 1 when
 * it reflected (the cdf and the upper tail then swap). alpha != 1, 2. */
GS_HD static inline int stable_point_prepare(stable_point *p, double x, double alpha, double beta)
{
  int reflected = 0;
  p->alpha = alpha;
  p->eps = 1.0 - alpha;
  if (alpha == 1.0) {
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
  /* sin and cos of pi alpha / 2 through eps, exact near alpha = 1 */
  double sa = cos(STABLE_PI_2 * p->eps), ca = sin(STABLE_PI_2 * p->eps);
  double B = beta * sa / ca;
  if (x + B < 0.0) {
    x = -x;
    beta = -beta;
    B = -B;
    reflected = 1;
  }
  double sg = p->eps > 0.0 ? 1.0 : -1.0, aca = fabs(ca);
  p->beta = beta;
  p->B = B;
  p->x1 = x + B;
  p->c0 = atan2((1.0 - beta) * sa * aca, sg * (ca * ca + beta * sa * sa)) / alpha;
  p->aT = atan2((1.0 + beta) * sa * aca, sg * (ca * ca - beta * sa * sa));
  p->pa = atan2((1.0 + beta) * sa * aca, sg * (beta * sa * sa - ca * ca));
  p->T = p->aT / alpha;
  p->theta0 = p->T - STABLE_PI_2;
  p->h_zero_at_lower = alpha < 1.0;
  if (B > 2.0) {
    p->form = STABLE_FORM_SMALL_D;
    /* the last term is the constant factor sqrt(1 + 1/B^2) of 1 + rho */
    p->s_const = 0.5 * log1p(B * B) +
                 (alpha / p->eps) * (0.5 * log1p(1.0 / (B * B)) - log1p(x / B));
  } else {
    p->form = STABLE_FORM_DIRECT;
    p->s_const = 0.5 * log1p(B * B) / p->eps - (alpha / p->eps) * log(p->x1);
  }
  return reflected;
}

/* log h0, h0 the limit of h at u0, the end where h is smallest: positive
 * only at beta = +-1 on the side where the terms of log h that diverge
 * there cancel (sin q, sin(alpha t) and cos u all vanish like the offset;
 * at alpha = 1, w tan u / beta -> -1), else -inf. In closed form: the
 * terms evaluated at an end carry their size (about 700 at y = -+700)
 * times the rounding, 5e-13 in log h0 at alpha = 1.32. */
GS_HD static inline double stable_log_h_end(const stable_point *p)
{
  if (p->form == STABLE_FORM_ALPHA1) return p->beta == 1.0 ? p->s_const - 1.0 : -INFINITY;
  if (!(p->alpha < 1.0 ? p->beta == 1.0 : p->beta == -1.0)) return -INFINITY;
  return p->s_const + log(fabs(p->eps)) + (p->alpha / p->eps) * log1p(-p->eps);
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


/* Relative tolerance of the adaptive rule on its Gauss-Kronrod error
 * estimate, which overstates the error of a converged rule: results reach
 * 1e-13. */
#define STABLE_RTOL 1e-13

/* The integrals, over y ("mode Y": nodes in y, s computed) or over s itself
 * ("mode S": nodes in s, y solved): J[0] = int h e^-h du (the density),
 * J[1] = int e^-h du, J[2] = int (1 - e^-h) du, the last two by parts
 * (above; J[2] without its end term). J[0] and J[1] are scaled by
 * exp(-scale) (nonzero where h is bounded away from 0, as in the
 * exponentially thin tails at beta = +-1). */
typedef struct {
  double J[3];
  double scale;
} stable_integrals;

/* One integrand node: the integrand values times the node's Jacobian, in
 * the variable of the mode; f[3] (h times the density's, mode Y only) where
 * need asks for it. */
GS_HD static inline void stable_node(const stable_point *p, int mode_s, int need, double z,
                                     stable_guess *g, double scale, double f[4])
{
  stable_level L;
  double eh;
  if (mode_s) {
    stable_solve_level(p, z, g, &L);
    double w = exp(z - exp(z));
    double o0 = p->h_zero_at_lower ? L.t : L.v, oi = p->h_zero_at_lower ? L.v : L.t;
    f[0] = w * L.dp_dy / fabs(L.ds_dy);
    f[1] = w * o0;
    f[2] = w * oi;
    f[3] = 0.0;
  } else {
    L = stable_level_at(p, z);
    eh = exp(L.s);
    double o0 = p->h_zero_at_lower ? L.t : L.v, oi = p->h_zero_at_lower ? L.v : L.t;
    double ds = fabs(L.ds_dy), w = exp(L.s - eh);
    double ws = scale == 0.0 ? w : exp(L.s - eh - scale);
    f[0] = need & STABLE_NEED_PDF ? ws * L.dp_dy : 0.0;
    f[1] = need & STABLE_NEED_J1 ? ws * ds * o0 : 0.0;
    f[2] = need & STABLE_NEED_J2 ? w * ds * oi : 0.0;
    /* (h^2 e^-h, without the h e^-h that overflows with h) */
    f[3] = need & STABLE_NEED_DLOG_PDF ? exp(L.s + L.s - eh - scale) * L.dp_dy : 0.0;
  }
}

#define STABLE_GK_N 8
#define STABLE_S_PANELS 22
#define STABLE_STACK 48
#define STABLE_MAX_SPLITS 400

GS_HD static inline void stable_gk15(const stable_point *p, int mode_s, double a, double b,
                                     stable_guess *g, double scale, double K[3], double err[3])
{
  const double xk[STABLE_GK_N] = {0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
                                  0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
                                  0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
                                  0.207784955007898467600689403773245, 0.0};
  const double wk[STABLE_GK_N] = {0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
                                  0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
                                  0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
                                  0.204432940075298892414161999234649, 0.209482141084727828012999174891714};
  const double wg[4] = {0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
                        0.381830050505118944950369775488975, 0.417959183673469387755102040816327};
  double c = 0.5 * (a + b), hw = 0.5 * (b - a), G[3] = {0, 0, 0}, f[4], fr[4];
  for (int j = 0; j < 3; j++) K[j] = 0.0;
  /* left to right, so that mode S warm-starts each Newton solve */
  for (int i = 0; i < STABLE_GK_N; i++) {
    stable_node(p, mode_s, STABLE_NEED_ALL, c - hw * xk[i], g, scale, f);
    for (int j = 0; j < 3; j++) {
      K[j] += wk[i] * f[j];
      if (i & 1) G[j] += wg[i >> 1] * f[j];
    }
  }
  for (int i = STABLE_GK_N - 2; i >= 0; i--) {
    stable_node(p, mode_s, STABLE_NEED_ALL, c + hw * xk[i], g, scale, fr);
    for (int j = 0; j < 3; j++) {
      K[j] += wk[i] * fr[j];
      if (i & 1) G[j] += wg[i >> 1] * fr[j];
    }
  }
  for (int j = 0; j < 3; j++) {
    K[j] *= hw;
    err[j] = fabs(K[j] - G[j] * hw);
  }
}


/* Over s, the trapezoid rule in tau after the map s = tau + 1 - e^-tau
 * (that of the rule over y below, centred on the peak s = 0 of
 * exp(s - e^s)), on tau in [STABLE_S_TAU_LO, STABLE_S_TAU_HI], s from
 * -57.6 to 3.95, where that weight is below 1e-20. Each integrand is the
 * weight exp(s - e^s), which falls double-exponentially in tau on both
 * sides, times a factor smooth in s (|du/ds| or an offset of u), so the
 * rule converges fast and at about the same rate for every point: on
 * 12,000 random points near alpha = 1 (and at alpha = 1 out to |x| =
 * 1e17) the three integrals were within 1.2e-7 of their limit at step 1/2
 * and 6.2e-15 at step 1/4 (1.8e-14 far out at alpha = 1, the rounding of
 * the values there). At step 1/8 a node takes 4.3 level evaluations
 * (Newton, warm-started at the node to the left), a point 246 on random
 * inputs like the benchmark's; the Gauss-Kronrod panels it replaces took
 * 1,168.
 *
 * One pass at the given step, left to right; the sum over every other node
 * is the rule at twice the step, and their difference must be below rtol
 * (relative) for each integral, else it returns 0. */
#define STABLE_S_TAU_LO -4.0
#define STABLE_S_TAU_HI 3.0
GS_HD static inline int stable_integrate_s(const stable_point *p, double step, double rtol,
                                           double J[3])
{
  stable_guess g = {0.0, 0.0, 0.0};
  double all[3] = {0, 0, 0}, even[3] = {0, 0, 0}, f[4];
  int n = (int)((STABLE_S_TAU_HI - STABLE_S_TAU_LO) / step + 0.5), met = 1;
  for (int k = 0; k <= n; k++) {
    double tau = STABLE_S_TAU_LO + k * step, em = exp(-tau);
    stable_node(p, 1, STABLE_NEED_ALL, tau + 1.0 - em, &g, 0.0, f);
    for (int j = 0; j < 3; j++) {
      all[j] += (1.0 + em) * f[j];
      if (!(k & 1)) even[j] += (1.0 + em) * f[j];
    }
  }
  for (int j = 0; j < 3; j++) {
    J[j] = step * all[j];
    if (!(fabs(J[j] - 2.0 * step * even[j]) <= rtol * fabs(J[j]))) met = 0;
  }
  return met;
}

/* Adaptive Gauss-Kronrod over the breakpoints z[0] < ... < z[nz-1]: an
 * interval is split until, for each integral in mask, its error estimate is
 * below rtol times the current estimate of the whole integral. floor01 is
 * the relative rounding noise of the first two integrands (where h is
 * bounded below by a large h0, h carries an absolute error of h0 * 1e-16,
 * which no refinement removes); it is added to their tolerance. */
GS_HD static inline void stable_integrate(const stable_point *p, int mode_s, const double *z,
                                          int nz, double scale, int mask, double rtol,
                                          double floor01, double J[3])
{
  double sa[STABLE_STACK], sb[STABLE_STACK], sK[STABLE_STACK][3], sE[STABLE_STACK][3];
  stable_guess g = {0.0, 0.0, 0.0};
  double est[3] = {0, 0, 0};
  int top = 0, splits = 0;
  for (int j = 0; j < 3; j++) J[j] = 0.0;
  for (int i = nz - 2; i >= 0; i--) {
    sa[top] = z[i];
    sb[top] = z[i + 1];
    stable_gk15(p, mode_s, z[i], z[i + 1], &g, scale, sK[top], sE[top]);
    for (int j = 0; j < 3; j++) est[j] += sK[top][j];
    top++;
  }
  while (top > 0) {
    top--;
    double a = sa[top], b = sb[top], K[3], E[3];
    /* the stack depth and the split budget bound the work of a point whose
     * integrand the rule cannot resolve (it then returns its best estimate) */
    int done = top + 2 >= STABLE_STACK || splits >= STABLE_MAX_SPLITS;
    for (int j = 0; j < 3; j++) {
      K[j] = sK[top][j];
      E[j] = sE[top][j];
    }
    if (!done) {
      done = 1;
      for (int j = 0; j < 3; j++)
        if ((mask >> j & 1) && E[j] > (rtol + (j < 2 ? floor01 : 0.0)) * fabs(est[j])) done = 0;
    }
    if (done) {
      for (int j = 0; j < 3; j++) J[j] += K[j];
      continue;
    }
    double m = 0.5 * (a + b);
    splits++;
    /* right half below left half, so that the left is refined first */
    sa[top] = m;
    sb[top] = b;
    stable_gk15(p, mode_s, m, b, &g, scale, sK[top], sE[top]);
    sa[top + 1] = a;
    sb[top + 1] = m;
    stable_gk15(p, mode_s, a, m, &g, scale, sK[top + 1], sE[top + 1]);
    for (int j = 0; j < 3; j++) est[j] += sK[top][j] + sK[top + 1][j] - K[j];
    top += 2;
  }
}

/* The trapezoid rule over y after the map
 *     y = c + sd g(tau),  g(tau) = tau + 1 - e^-tau,
 * centred on the density's peak c, with sd = +-d oriented so that h grows
 * with tau. Near its peak the density's integrand has the Gumbel shape
 * exp(z - e^z) in z = (y - c) / sd. Where h grows it falls
 * double-exponentially by itself, and there the map is linear
 * (g ~ tau + 1): the integrand stays analytic and bounded in a strip of
 * half-width about pi/2 around the real tau axis, where the trapezoid
 * rule's error falls like exp(-pi^2 / step). (A sinh map narrows that
 * strip on both sides: it mostly stopped at step 1/32, this map at 1/8 or
 * 1/16.) Where h -> 0 the integrands fall only exponentially and the map
 * stretches them (g ~ -e^-tau). The probabilities' integrands, by parts,
 * have the density's shape and take the same nodes.
 *
 * The first pass, at step 1/2, walks out from the peak until the
 * integrands are negligible; each later pass halves the step. The rule
 * stops when each needed integral changed by less than tol (plus floor01
 * for the first two, see stable_integrate) relative, and returns 0 if its
 * node budget runs out first. Full accuracy takes tol =
 * STABLE_TRAPEZOID_TOL, at step 1/8 or finer: the change is not the square
 * root of the accuracy wanted, as where the integrand has a shoulder
 * (alpha near 2) the error can stall for a step before it collapses (a
 * change of 4.7e-14 once left 1.4e-13 in a probability near alpha = 1).
 * Against the rule's limit at step 1/256 on 4,000 to 6,000 random points
 * per setting (x in [-100, 100] and [-5, 5], alpha in [0.5, 2], [1.8, 2]
 * and [0.95, 1.05]) it left at most 1.6e-14 (density) and 2.8e-14
 * (probabilities), with 150 to 300 level evaluations per density and 160
 * to 350 per pair of probabilities, the search for the peak included (the
 * integrands 1 - e^-h and e^-h before they were taken by parts: 370 to
 * 1,200). Stopping at a change of 1e-11 left 1.1e-12 at a point near
 * alpha = 2.
 *
 * A rough value (a larger tol, for the early steps of a search) may stop
 * at step 1/4: a stalled error there costs the search a step, not its
 * accuracy. */
#define STABLE_TRAPEZOID_TOL 1e-13
#define STABLE_TRAPEZOID_BUDGET 2000
/* The map's width d at most: where log h changes slowly at the peak, the
 * integrands' shape is set by dp/dy, of width 1. */
#define STABLE_MAP_WIDTH_MAX 1.0
/* A node whose weighted integrands are all below this fraction of their
 * sums, and falling, ends the walk on its side. */
#define STABLE_WALK_NEGLIGIBLE 1e-18

typedef struct {
  double c, sd, scale;
  int need;
} stable_map;

/* Adds the weighted integrands at tau to S (and into wf); 0 where the node
 * lies beyond the range of y that the level can represent. */
GS_HD static inline int stable_map_node(const stable_point *p, const stable_map *m, double tau,
                                        double S[4], double wf[3])
{
  double em = exp(-tau), y = m->c + m->sd * (tau + 1.0 - em), w = fabs(m->sd) * (1.0 + em), f[4];
  if (!(fabs(y) <= STABLE_Y_MAX)) return 0;
  stable_guess g = {0.0, 0.0, 0.0};
  stable_node(p, 0, m->need, y, &g, m->scale, f);
  for (int j = 0; j < 3; j++) {
    wf[j] = w * f[j];
    S[j] += wf[j];
  }
  if (m->need & STABLE_NEED_DLOG_PDF) S[3] += w * f[3];
  return 1;
}

/* Walks from the peak in direction side (+-1) at step 1/2 until the
 * integrands are negligible (J3, which only steers a quantile search, is
 * not watched); returns the last node's index, or 0 past the
 * node budget. *used counts the nodes. */
GS_HD static inline int stable_map_walk(const stable_point *p, const stable_map *m, int side,
                                        double S[4], int *used)
{
  double wf[3], prev[3] = {INFINITY, INFINITY, INFINITY};
  for (int k = side; *used < STABLE_TRAPEZOID_BUDGET / 8; k += side) {
    if (!stable_map_node(p, m, 0.5 * k, S, wf)) return k - side;
    ++*used;
    int negligible = 1;
    for (int j = 0; j < 3; j++) {
      if ((m->need >> j & 1) && !(wf[j] <= STABLE_WALK_NEGLIGIBLE * fabs(S[j]) && wf[j] <= prev[j]))
        negligible = 0;
      prev[j] = wf[j];
    }
    if (negligible) return k;
  }
  return 0;
}

GS_HD static inline int stable_integrate_map(const stable_point *p, int need, double c, double d,
                                             double scale, double floor01, double tol, double J[4])
{
  stable_map m = {c, p->h_zero_at_lower ? d : -d, scale, need};
  double S[4] = {0, 0, 0, 0}, wf[3], step = 0.5, prev[3];
  int used = 1;
  stable_map_node(p, &m, 0.0, S, wf);
  int klo = stable_map_walk(p, &m, -1, S, &used), khi = stable_map_walk(p, &m, 1, S, &used);
  if (klo == 0 || khi == 0) return 0;
  for (int j = 0; j < 4; j++) J[j] = S[j] * step;
  /* tau = klo / 2 + i step, i = 0 .. n */
  int n = khi - klo;
  for (int level = 1; used + n <= STABLE_TRAPEZOID_BUDGET; level++) {
    step *= 0.5;
    n *= 2;
    used += n / 2;
    for (int i = 1; i < n; i += 2) stable_map_node(p, &m, 0.5 * klo + i * step, S, wf);
    int converged = level >= (tol > STABLE_TRAPEZOID_TOL ? 1 : 2);
    for (int j = 0; j < 3; j++) {
      prev[j] = J[j];
      J[j] = S[j] * step;
      double tol_j = tol + (j < 2 ? floor01 : 0.0);
      if ((need >> j & 1) && !(fabs(J[j] - prev[j]) <= tol_j * fabs(J[j]))) converged = 0;
    }
    J[3] = S[3] * step;
    if (converged) return 1;
  }
  return 0;
}

/* Beyond this |pi x / (2 beta)| at or near alpha = 1, log h is the
 * difference of terms of about that size (at alpha = 1 s_const and
 * w tan u / beta; near it, in the small-D form, s_const and
 * (alpha/eps) log(1 + rho)), whose rounding would show in h at the peak:
 * the rules over y then stall short of their tolerance (at alpha = 1 the
 * adaptive rule spent its splits on that noise and left a tail interval
 * unrefined, 18 % off at x = -1e6, beta = 0.5), and near alpha = 1 they
 * lose digits (2.6e-13 at x = -10, beta = -0.0043, alpha = 0.999991). */
#define STABLE_NEAR1_FAR 100.0

/* Whether a point is integrated over s (mode S), where log h is
 * ill-conditioned: within 0.02 of alpha = 1, where the direct form is used
 * (|B| <= 2; at alpha = 1, |beta| < 0.02), and where |pi x / (2 beta)| is
 * large (above). Not at |beta| = 1 off alpha = 1, whose end h is finite
 * and where the small-D form is exact, nor in the thin tail of |beta| = 1
 * at alpha = 1, where h is bounded below by more than the rule over s
 * reaches. Elsewhere near alpha = 1 the small-D form is exact over y, where
 * the integrand is smooth: over s it can have a shoulder that the rules
 * over s do not resolve (most x in [-10, 0.5] at alpha = 0.9975,
 * beta = -0.72). x is the standard S0 argument. */
GS_HD static inline int stable_mode_s(double x, double alpha, double beta)
{
  double eps = 1.0 - alpha;
  if (!(fabs(eps) < 0.02) || (eps != 0.0 && fabs(beta) == 1.0)) return 0;
  double far = STABLE_PI_2 * x / beta;
  int direct = eps == 0.0 ? fabs(beta) < 0.02
                          : !(fabs(beta * cos(STABLE_PI_2 * eps) / sin(STABLE_PI_2 * eps)) > 2.0);
  return direct || far > STABLE_NEAR1_FAR || (far < -STABLE_NEAR1_FAR && fabs(beta) < 1.0);
}

/* Values of the standard S0 law at one x; dlog_pdf, d log pdf / dx, is NaN
 * unless STABLE_NEED_DLOG_PDF asked for it and the rule used gives it. */
typedef struct {
  double pdf, log_pdf, cdf, ccdf, log_cdf, log_ccdf, dlog_pdf;
} stable_value;

GS_HD static inline void stable_value_set(stable_value *r, double log_pdf, double cdf, double ccdf,
                                          double log_cdf, double log_ccdf)
{
  r->dlog_pdf = NAN;
  r->log_pdf = log_pdf;
  r->pdf = exp(log_pdf);
  r->cdf = cdf;
  r->ccdf = ccdf;
  r->log_cdf = log_cdf;
  r->log_ccdf = log_ccdf;
}

/* The bound on the rounding of the tail series that it must stay below,
 * relative to each sum. The bound adds the worst case of every term, so it
 * is pessimistic: on 20,000 random points (x in [-100, 100], alpha in
 * [0.5, 2], beta in [-1, 1]) the 85 % that the series took at this bound
 * agreed with the integrals to 1.4e-14 (at 1e-15 it took 5 %). */
#define STABLE_SERIES_RTOL 1e-13

/* The far-tail series in z = sqrt(1 + B^2) x1^-alpha:
 *   pdf  = 1/(pi x1) sum_k (-1)^(k+1) Gamma(alpha k + 1)/k! sin(k alpha T) z^k,
 *   ccdf = 1/pi      sum_k (-1)^(k+1) Gamma(alpha k)/k!     sin(k alpha T) z^k,
 * and d log pdf / dx1 (term k of pdf goes like x1^-(1 + alpha k)) into
 * *dlog_pdf. Returns 0 where it does not reach full accuracy (terms stop
 * shrinking, or cancel). */
GS_HD static inline int stable_tail_series(const stable_point *p, double *log_pdf,
                                           double *ccdf, double *dlog_pdf)
{
  double lz = 0.5 * log1p(p->B * p->B) - p->alpha * log(p->x1);
  if (lz > -1.0) return 0;
  /* err bounds the rounding in the sum, mostly from sin(k alpha T) near
   * its zeros (beta = -1 for alpha > 1, where the tail is not a power law) */
  double sp = 0.0, sc = 0.0, sd = 0.0, prev = INFINITY, err = 0.0, log_factorial = 0.0;
  for (int k = 1; k <= 60; k++) {
    log_factorial += log((double)k);
    double lm = lgamma(p->alpha * k + 1.0) - log_factorial + k * lz;
    double m = exp(lm), sn = sin(k * p->aT);
    if (m > prev) return 0;
    prev = m;
    double term = (k & 1 ? 1.0 : -1.0) * m * sn;
    sp += term;
    sc += term / (p->alpha * k);
    sd += term * (1.0 + p->alpha * k);
    err += m * (fabs(sn) + k * p->aT) * 4e-16;
    if (m < 1e-17 * fabs(sp) && m < 1e-17 * fabs(sc) * p->alpha * k) {
      if (!(sp > 0.0) || !(sc > 0.0) || err > STABLE_SERIES_RTOL * sc ||
          err > STABLE_SERIES_RTOL * sp)
        return 0;
      *log_pdf = log(sp) - STABLE_LOG_PI - log(p->x1);
      *ccdf = sc / STABLE_PI;
      *dlog_pdf = -sd / (sp * p->x1);
      return 1;
    }
  }
  return 0;
}

/* Beyond this |x| at alpha = 1 the law is its power-law tail to rounding:
 * the next term is smaller by (4/pi) |beta| log|x| / |x| for the density
 * (half that for the tail; measured against the integrals from |x| = 1e3
 * to 1e17), 1e-16 here. The integrals reach further, but their rounding
 * grows with log h's terms (2e-13 at |x| = 1e100) and the density
 * underflows their scale from |x| = 1e154. */
#define STABLE_ALPHA1_POWER_LAW 1e18

/* Beyond this log h0 (h bounded below by h0 > 1e15 at beta = +-1), the
 * density and the thin tail are exp(-h0) times factors that change log h0
 * by less than its own rounding: no quadrature. */
#define STABLE_THIN_TAIL 35.0

/* What stable_general used: the adaptive rule can be off by far more than
 * its tolerance where it stops at its split budget (on integrands whose
 * rounding noise it cannot resolve), the other rules are smooth in x. */
#define STABLE_BY_FAST_RULE 1
#define STABLE_BY_ADAPTIVE_RULE 2

/* Density and both tails of the standard S0 law with alpha != 1, 2 or
 * alpha = 1 with beta != 0, into *out; only the values that need
 * (STABLE_NEED_*) asks for are accurate. tol is where the trapezoid rule
 * stops (STABLE_TRAPEZOID_TOL: full accuracy), and above that the relative
 * tolerance of the rule over s; the adaptive rule always works to full
 * accuracy. fast (GS_EVAL_*) = GS_EVAL_FIRST returns 0 (and leaves *r
 * unset) where the point needs the adaptive rule, GS_EVAL_CHEAP where it
 * needs any quadrature; else it returns STABLE_BY_*. */
GS_HD static inline int stable_general(double x, double alpha, double beta, int need, int fast,
                                       double tol, stable_value *out)
{
  stable_point p;
  int refl = stable_point_prepare(&p, x, alpha, beta);
  double lpdf, cdf, ccdf, lcdf, lccdf, dlog = NAN;
  if (p.T <= 0.0) {
    /* alpha < 1, beta = -1, right of the support */
    lpdf = -INFINITY;
    cdf = 1.0;
    ccdf = 0.0;
  } else if (p.x1 == 0.0 && p.form != STABLE_FORM_ALPHA1) {
    /* at zeta: Gamma(1 + 1/alpha) cos(theta0) / (pi (1 + B^2)^(1/(2 alpha))) */
    lpdf = lgamma(1.0 + 1.0 / alpha) + log(sin(p.c0)) - STABLE_LOG_PI -
           0.5 * log1p(p.B * p.B) / alpha;
    cdf = p.c0 / STABLE_PI;
    ccdf = p.T / STABLE_PI;
  } else if (p.form == STABLE_FORM_ALPHA1 && fabs(p.x1) > STABLE_ALPHA1_POWER_LAW &&
             (p.x1 > 0.0 || p.beta < 1.0)) {
    /* the tail (1 +- beta) / (pi |x|) and the density (1 +- beta) / (pi x^2) */
    double lc = log(p.x1 > 0.0 ? 1.0 + p.beta : 1.0 - p.beta) - STABLE_LOG_PI;
    double lx = log(fabs(p.x1)), ltail = lc - lx, tail = exp(ltail);
    lpdf = ltail - lx;
    if (p.x1 < 0.0) refl = !refl;
    if (refl) stable_value_set(out, lpdf, tail, 1.0 - tail, ltail, log1p(-tail));
    else stable_value_set(out, lpdf, 1.0 - tail, tail, log1p(-tail), ltail);
    return STABLE_BY_FAST_RULE;
  } else if (p.form != STABLE_FORM_ALPHA1 && stable_tail_series(&p, &lpdf, &ccdf, &dlog)) {
    cdf = 1.0 - ccdf;
  } else {
    int mode_s = stable_mode_s(x, alpha, beta);
    if (fast == GS_EVAL_CHEAP && (mode_s || !(stable_log_h_end(&p) > STABLE_THIN_TAIL))) return 0;
    double z[STABLE_S_PANELS + 1], J[4], scale = 0.0, floor01 = 0.0, ypk = 0.0, d = 1.0;
    double j2_end = 0.0;
    int nz = 0, peak_found = 0, computed = STABLE_NEED_ALL;
    if (mode_s) {
      /* the adaptive rule's first panels: narrow where exp(s - e^s) turns
       * over and near the right end, where e^s grows fast */
      const double zs[STABLE_S_PANELS + 1] = {-45.0, -36.0, -28.0, -22.0, -17.0, -13.0, -10.0, -7.5,
                                              -5.5,  -4.0,  -3.0,  -2.0,  -1.0,  -0.5,  0.0,   0.5,
                                              1.0,   1.5,   2.0,   2.4,   2.8,   3.2,   3.8};
      for (int i = 0; i <= STABLE_S_PANELS; i++) z[nz++] = zs[i];
    } else {
      stable_level L;
      double s_end = stable_log_h_end(&p);
      /* the density's integrand peaks where h = 1, or, where h is bounded
       * below by h0 > 1 (beta = +-1 thin tails), where h = h0 + 1 */
      double target = 0.0;
      if (s_end > STABLE_THIN_TAIL) {
        /* (s_const overflows to +inf as |x| nears the largest double) */
        double lt = isinf(s_end) ? -INFINITY : s_end - exp(s_end);
        lpdf = lt + log(p.form == STABLE_FORM_ALPHA1 ? 0.5 / p.beta
                                                      : alpha / (STABLE_PI * fabs(p.eps) * p.x1));
        int thin_lower = p.form == STABLE_FORM_ALPHA1 || alpha < 1.0;
        cdf = thin_lower ? 0.0 : 1.0;
        ccdf = thin_lower ? 1.0 : 0.0;
        lcdf = thin_lower ? lt : 0.0;
        lccdf = thin_lower ? 0.0 : lt;
        if (refl) stable_value_set(out, lpdf, ccdf, cdf, lccdf, lcdf);
        else stable_value_set(out, lpdf, cdf, ccdf, lcdf, lccdf);
        return STABLE_BY_FAST_RULE;
      }
      if (s_end > -1.0) {
        target = s_end + log1p(exp(-s_end));
        scale = -exp(s_end);
        floor01 = 1e-15 * exp(s_end) * fmax(1.0, fabs(s_end));
        /* J2 >= T (1 - e^-h0) > T / 4: T - J1 e^scale is accurate */
        computed = STABLE_NEED_PDF | STABLE_NEED_J1;
      }
      j2_end = p.T * -expm1(-exp(s_end));
      stable_guess g = {0.0, 0.0, 0.0};
      stable_solve_level(&p, target, &g, &L);
      ypk = g.y;
      /* the map needs the peak only roughly; a solve that ran out of steps
       * leaves the point to the adaptive rule */
      peak_found = fabs(L.s - target) < 0.1;
      double lo = fmin(ypk, 0.0) - 40.0, hi = fmax(ypk, 0.0) + 40.0;
      d = 1.0 / fabs(L.ds_dy);
      if (!(d < STABLE_MAP_WIDTH_MAX)) d = STABLE_MAP_WIDTH_MAX;
      lo = fmax(lo, -STABLE_Y_MAX);
      hi = fmin(hi, STABLE_Y_MAX);
      const double off[7] = {-16.0, -4.0, -1.0, 0.0, 1.0, 4.0, 16.0};
      z[nz++] = lo;
      for (int i = 0; i < 7; i++) {
        double q = ypk + off[i] * d;
        if (q > z[nz - 1] && q < hi) z[nz++] = q;
      }
      z[nz++] = hi;
    }
    /* Over s, full accuracy takes step 1/8, checked against step 1/4 to
     * 1e-13; a rough value (tol above that of the rule over y) takes step
     * 1/4 against 1/2. The adaptive rule tests every integral computed:
     * its error estimates for the probabilities alone are not reliable
     * near alpha = 1. */
    int rule = STABLE_BY_FAST_RULE, rough = tol > STABLE_TRAPEZOID_TOL;
    if (mode_s ? !stable_integrate_s(&p, rough ? 0.25 : 0.125, rough ? tol : STABLE_RTOL, J)
               : !peak_found ||
                     !stable_integrate_map(&p, need & (computed | STABLE_NEED_DLOG_PDF), ypk, d,
                                           scale, floor01, tol, J)) {
      if (fast) return 0;
      stable_integrate(&p, mode_s, z, nz, scale, computed, STABLE_RTOL, floor01, J);
      rule = STABLE_BY_ADAPTIVE_RULE;
    }
    J[2] = computed & STABLE_NEED_J2 ? J[2] + j2_end : p.T - J[1] * exp(scale);
    double pref = p.form == STABLE_FORM_ALPHA1 ? 0.5 / p.beta
                                               : alpha / (STABLE_PI * fabs(p.eps) * p.x1);
    lpdf = log(J[0]) + scale + log(pref);
    if ((need & STABLE_NEED_DLOG_PDF) && !mode_s && rule == STABLE_BY_FAST_RULE) {
      /* d/dx (h e^-h) = (1 - h) h e^-h ds/dx, with ds/dx from s_const, and
       * pref goes like 1 / x1 */
      double ds_dx = p.form == STABLE_FORM_ALPHA1 ? -STABLE_PI_2 / p.beta : -alpha / (p.eps * p.x1);
      dlog = ds_dx * (1.0 - J[3] / J[0]) - (p.form == STABLE_FORM_ALPHA1 ? 0.0 : 1.0 / p.x1);
    }
    /* J[1] = int e^-h du (scaled), J[2] = int (1 - e^-h) du */
    double lo_part = J[1] * exp(scale);
    if (p.form == STABLE_FORM_ALPHA1) {
      cdf = lo_part / STABLE_PI;
      ccdf = J[2] / STABLE_PI;
      lcdf = log(J[1]) + scale - STABLE_LOG_PI;
    } else if (alpha < 1.0) {
      cdf = (p.c0 + lo_part) / STABLE_PI;
      ccdf = J[2] / STABLE_PI;
      lcdf = p.c0 > 0.0 ? log(cdf) : log(J[1]) + scale - STABLE_LOG_PI;
    } else {
      cdf = (p.c0 + J[2]) / STABLE_PI;
      ccdf = lo_part / STABLE_PI;
      lcdf = log(cdf);
    }
    lccdf = alpha > 1.0 && p.form != STABLE_FORM_ALPHA1 ? log(J[1]) + scale - STABLE_LOG_PI
                                                        : log(ccdf);
    if (refl) stable_value_set(out, lpdf, ccdf, cdf, lccdf, lcdf);
    else stable_value_set(out, lpdf, cdf, ccdf, lcdf, lccdf);
    out->dlog_pdf = refl ? -dlog : dlog;
    return rule;
  }
  lcdf = log(cdf);
  lccdf = log(ccdf);
  if (refl) stable_value_set(out, lpdf, ccdf, cdf, lccdf, lcdf);
  else stable_value_set(out, lpdf, cdf, ccdf, lcdf, lccdf);
  out->dlog_pdf = refl ? -dlog : dlog;
  return STABLE_BY_FAST_RULE;
}

#endif
