/* Alpha-stable laws: the quadrature rules over the integrand of
 * stable_level.h (the trapezoid rule over y after a map centred on the
 * peak, the rule over s, adaptive Gauss-Kronrod) and the choice between
 * integrating over y and over s. */
#ifndef GS_STABLE_QUADRATURE_H
#define GS_STABLE_QUADRATURE_H

#include "stable_level.h"

/* Relative tolerance of the adaptive rule on its Gauss-Kronrod error
 * estimate, which overstates the error of a converged rule: results reach
 * 1e-13. */
#define STABLE_RTOL 1e-13

/* What stable_general used: the adaptive rule can be off by far more than
 * its tolerance where it stops at its split budget (on integrands whose
 * rounding noise it cannot resolve), the other rules are smooth in x. */
#define STABLE_BY_FAST_RULE 1
#define STABLE_BY_ADAPTIVE_RULE 2

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

/* The modes of stable_node: mode_s of stable_mode_s (0: over y, 1: over s),
 * and over y with the integrands themselves, not by parts (small alpha,
 * stable_small_alpha.h). */
#define STABLE_MODE_PLAIN 2

/* One integrand node: the integrand values times the node's Jacobian, in
 * the variable of the mode; f[3] (h times the density's, mode Y only) where
 * need asks for it. */
GS_HD static inline void stable_node(const stable_point *p, int mode_s, int need, double z,
                                     stable_guess *g, double scale, double f[4])
{
  stable_level L;
  double eh;
  if (mode_s == STABLE_MODE_PLAIN) {
    /* h e^-h as exp(s - h), which stays 0 where h overflows */
    L = stable_level_at(p, z);
    eh = exp(L.s);
    f[0] = exp(L.s - eh) * L.dp_dy;
    f[1] = exp(-eh) * L.dp_dy;
    f[2] = -expm1(-eh) * L.dp_dy;
    f[3] = 0.0;
  } else if (mode_s) {
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
    /* h, less h0 = -scale where scaled: from log(h / h0), as e^s - h0
     * would carry h0 times the rounding of s */
    double excess = scale == 0.0 ? eh : -scale * expm1(L.r);
    double ds = fabs(L.ds_dy), w = exp(L.s - eh), ws = scale == 0.0 ? w : exp(L.s - excess);
    f[0] = need & STABLE_NEED_PDF ? ws * L.dp_dy : 0.0;
    f[1] = need & STABLE_NEED_J1 ? ws * ds * o0 : 0.0;
    f[2] = need & STABLE_NEED_J2 ? w * ds * oi : 0.0;
    /* (h^2 e^-h, without the h e^-h that overflows with h) */
    f[3] = need & STABLE_NEED_DLOG_PDF ? exp(L.s + L.s - excess) * L.dp_dy : 0.0;
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
 * bounded below by a large h0, h from the direct form, beyond the series of
 * stable_light_tail.h, carries an absolute error of h0 * 1e-16, which no
 * refinement removes); it is added to their tolerance. */
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
 * node budget or the range of y. *used counts the nodes. */
GS_HD static inline int stable_map_walk(const stable_point *p, const stable_map *m, int side,
                                        double S[4], int *used)
{
  double wf[3], prev[3] = {INFINITY, INFINITY, INFINITY};
  for (int k = side; *used < STABLE_TRAPEZOID_BUDGET / 8; k += side) {
    /* the range of y ends before the integrands do (alpha near 0, where
     * log h changes slowly near the end where h -> 0): the adaptive rule
     * adds what lies beyond it (stable_add_cut) */
    if (!stable_map_node(p, m, 0.5 * k, S, wf)) return 0;
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

/* Where h is bounded below by h0 = exp(s_end) with s_end above this, the
 * rule over s, which starts at s = -57.6, would look for levels that h
 * does not reach; below it, what h0 leaves out of the integrals (the end
 * term T (1 - e^-h0) and the weight below s_end) is under 1e-25. */
#define STABLE_S_END_MAX -60.0

/* Whether a point is integrated over s (mode S), where log h is
 * ill-conditioned: within 0.02 of alpha = 1, where the direct form is used
 * (B <= 2 after the reflection; at alpha = 1, |beta| < 0.02), and where
 * |pi x / (2 beta)| is large (above). Not where h0 = exp(s_end) is reached
 * (above): in the thin tails of |beta| = 1 and at |beta| = 1 in the body
 * off alpha = 1, where the small-D form is exact. The direct form's B
 * below -2 and the small-D form next to zeta at |beta| = 1 (where the peak
 * lies at sin(alpha t) / cos u ~ x1 / B, far from 1, and log h is the
 * difference of terms of size log(x1 / B) times 1/eps) each carried 1e-16
 * / eps of noise over y, on which the rules over y stalled and the
 * adaptive one stopped 1e-7 off (alpha = 1.0001, beta = -+1, 1e-3 and 0.5
 * from zeta). Elsewhere near alpha = 1 the small-D form is exact over y,
 * where the integrand is smooth: over s it can have a shoulder that the
 * rules over s do not resolve (most x in [-10, 0.5] at alpha = 0.9975,
 * beta = -0.72). x, beta: the standard S0 argument and skewness (before
 * the reflection), p the prepared point. */
GS_HD static inline int stable_mode_s(const stable_point *p, double x, double beta)
{
  if (!(fabs(p->eps) < 0.02) || p->s_end > STABLE_S_END_MAX) return 0;
  if (p->eps == 0.0 ? fabs(beta) < 0.02 : p->form == STABLE_FORM_DIRECT) return 1;
  return fabs(STABLE_PI_2 * x / beta) > STABLE_NEAR1_FAR;
}

#endif
