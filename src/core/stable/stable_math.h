/* Alpha-stable laws: density and distribution function of the standard
 * S0 law (Nolan's parameterization; gamma = 1, delta = 0), one GS_HD
 * implementation for the CPU loops and the CUDA kernels. The integrand and
 * its representation are in stable_level.h, the quadrature rules in
 * stable_quadrature.h, the regimes without quadrature in stable_tails.h;
 * here the choice among them. */
#ifndef GS_STABLE_MATH_H
#define GS_STABLE_MATH_H

#include "stable_level.h"
#include "stable_quadrature.h"
#include "stable_small_alpha.h"
#include "stable_tails.h"

/* Each regime below fills *v for the prepared point (x1 >= 0 after the
 * reflection of stable_point_prepare); stable_general swaps the tails back
 * once, where it reflected. */

/* The exponentially thin tail at beta = +-1 where h is bounded below by
 * h0 = exp(s_end) so large that the density and the tail are exp(-h0)
 * times factors that change log h0 by less than its own rounding. */
GS_HD static inline void stable_thin_tail(const stable_point *p, stable_value *v)
{
  double s_end = p->s_end;
  /* (s_const overflows to +inf as |x| nears the largest double) */
  double lt = isinf(s_end) ? -INFINITY : s_end - exp(s_end);
  double lpdf = lt + log(p->form == STABLE_FORM_ALPHA1 ? 0.5 / p->beta
                                                       : p->alpha / (STABLE_PI * fabs(p->eps) * p->x1));
  int thin_lower = p->form == STABLE_FORM_ALPHA1 || p->alpha < 1.0;
  stable_value_set(v, lpdf, thin_lower ? 0.0 : 1.0, thin_lower ? 1.0 : 0.0, thin_lower ? lt : 0.0,
                   thin_lower ? 0.0 : lt);
}

/* The points with a closed form, alpha != 1: beyond the support (alpha < 1,
 * beta = -1, T = 0) and zeta itself. Returns 0 elsewhere. */
GS_HD static inline int stable_closed_form(const stable_point *p, stable_value *v)
{
  double lpdf, cdf, ccdf;
  if (p->T <= 0.0) {
    /* alpha < 1, beta = -1, right of the support */
    lpdf = -INFINITY;
    cdf = 1.0;
    ccdf = 0.0;
  } else if (p->x1 == 0.0 && p->form != STABLE_FORM_ALPHA1) {
    /* at zeta: Gamma(1 + 1/alpha) cos(theta0) / (pi (1 + B^2)^(1/(2 alpha)));
     * 0 where cos(theta0) is (beta = 1, alpha < 1), also where lgamma
     * overflows (alpha below 4e-306) */
    double lc = log(sin(p->c0));
    lpdf = lc == -INFINITY ? lc : lgamma(1.0 + 1.0 / p->alpha) + lc - STABLE_LOG_PI -
                                       0.5 * log1p(p->B * p->B) / p->alpha;
    cdf = p->c0 / STABLE_PI;
    ccdf = p->T / STABLE_PI;
  } else {
    return 0;
  }
  stable_value_set(v, lpdf, cdf, ccdf, log(cdf), log(ccdf));
  return 1;
}

/* alpha = 1 beyond STABLE_ALPHA1_POWER_LAW on a power-law side: the tail
 * (1 +- beta) / (pi |x|) and the density (1 +- beta) / (pi x^2). Returns 0
 * elsewhere. */
GS_HD static inline int stable_alpha1_power_law(const stable_point *p, stable_value *v)
{
  if (!(p->form == STABLE_FORM_ALPHA1 && fabs(p->x1) > STABLE_ALPHA1_POWER_LAW &&
        (p->x1 > 0.0 || p->beta < 1.0)))
    return 0;
  double lc = log(p->x1 > 0.0 ? 1.0 + p->beta : 1.0 - p->beta) - STABLE_LOG_PI;
  double lx = log(fabs(p->x1)), ltail = lc - lx, tail = exp(ltail), lpdf = ltail - lx;
  if (p->x1 < 0.0) stable_value_set(v, lpdf, tail, 1.0 - tail, ltail, log1p(-tail));
  else stable_value_set(v, lpdf, 1.0 - tail, tail, log1p(-tail), ltail);
  return 1;
}

/* The far-tail series (alpha != 1); returns 0 where it declines. */
GS_HD static inline int stable_series_value(const stable_point *p, stable_value *v)
{
  double lpdf, lccdf, dlog;
  if (p->form == STABLE_FORM_ALPHA1 || !stable_tail_series(p, log(p->x1), &lpdf, &lccdf, &dlog))
    return 0;
  double ccdf = exp(lccdf);
  stable_value_set(v, lpdf, 1.0 - ccdf, ccdf, log1p(-ccdf), lccdf);
  v->dlog_pdf = dlog;
  return 1;
}

/* Where the quadrature starts, and what it integrates (see stable_general). */
typedef struct {
  double z[STABLE_S_PANELS + 1]; /* breakpoints of the adaptive rule */
  int nz;
  double scale, floor01, j2_end; /* see stable_integrate_map and stable_integrate */
  double ypk, d;                 /* the map's centre and width (mode Y) */
  int peak_found, computed;      /* the map can start; the integrals computed */
} stable_plan;

/* The plan over s: the adaptive rule's first panels are narrow where
 * exp(s - e^s) turns over and near the right end, where e^s grows fast. */
GS_HD static inline void stable_plan_s(stable_plan *q)
{
  const double zs[STABLE_S_PANELS + 1] = {-45.0, -36.0, -28.0, -22.0, -17.0, -13.0, -10.0, -7.5,
                                          -5.5,  -4.0,  -3.0,  -2.0,  -1.0,  -0.5,  0.0,   0.5,
                                          1.0,   1.5,   2.0,   2.4,   2.8,   3.2,   3.8};
  for (int i = 0; i <= STABLE_S_PANELS; i++) q->z[q->nz++] = zs[i];
}

/* The plan over y, s_end = log h0 <= STABLE_THIN_TAIL: the density's
 * integrand peaks where h = 1, or, where h is bounded below by h0 > 1
 * (beta = +-1 thin tails), where h = h0 + 1. */
GS_HD static inline void stable_plan_y(const stable_point *p, stable_plan *q)
{
  stable_level L;
  double target = 0.0, s_end = p->s_end;
  if (s_end > STABLE_SCALED_S_END) {
    target = s_end + log1p(exp(-s_end));
    /* -h0 with the low part of log h0, which h0 multiplies */
    double h0 = exp(s_end);
    q->scale = -(h0 + h0 * p->s_end_lo);
    q->floor01 = 1e-15 * h0 * fmax(1.0, fabs(s_end));
    /* J2 >= T (1 - e^-h0) > T / 4: T - J1 e^scale is accurate */
    q->computed = STABLE_NEED_PDF | STABLE_NEED_J1;
  }
  q->j2_end = p->T * -expm1(-exp(s_end));
  stable_guess g = {0.0, 0.0, 0.0};
  stable_solve_level(p, target, &g, &L);
  q->ypk = g.y;
  /* the map needs the peak only roughly; a solve that ran out of steps
   * leaves the point to the adaptive rule */
  q->peak_found = fabs(L.s - target) < 0.1;
  double lo = fmin(q->ypk, 0.0) - 40.0, hi = fmax(q->ypk, 0.0) + 40.0;
  q->d = 1.0 / fabs(L.ds_dy);
  if (!(q->d < STABLE_MAP_WIDTH_MAX)) q->d = STABLE_MAP_WIDTH_MAX;
  lo = fmax(lo, -STABLE_Y_MAX);
  hi = fmin(hi, STABLE_Y_MAX);
  const double off[7] = {-16.0, -4.0, -1.0, 0.0, 1.0, 4.0, 16.0};
  q->z[q->nz++] = lo;
  for (int i = 0; i < 7; i++) {
    double y = q->ypk + off[i] * q->d;
    if (y > q->z[q->nz - 1] && y < hi) q->z[q->nz++] = y;
  }
  q->z[q->nz++] = hi;
}

/* What the adaptive rule over y leaves out beyond the end y_e of its plan
 * on the side where h -> 0 (h0 = 0), added to J: for J[2] (by parts,
 * exp(s - e^s) times the offset oi from the other end) the boundary term
 * (1 - e^-h) oi at y_e, exact to int (1 - e^-h) du beyond y_e, which is
 * below the offset from the end there (T e^-40 or T e^-700); for J[0],
 * h dp/dy / (1 + |ds/dy|) at y_e, log h being about linear in y beyond. Near that end log h grows
 * like alpha / (1 - alpha) log o0 for alpha < 1: at alpha = 0.03 the
 * weight exp(s - e^s) was still 1e-8 at y = -700, 40 below the peak it was
 * 0.3, and the upper tail came out 37 % low (alpha = 0.03, x = 1). */
GS_HD static inline void stable_add_cut(const stable_point *p, double y_e, double J[3])
{
  stable_level L = stable_level_at(p, y_e);
  double h = exp(L.s), oi = p->h_zero_at_lower ? L.v : L.t;
  J[0] += h * L.dp_dy / (1.0 + fabs(L.ds_dy));
  J[2] += -expm1(-h) * oi;
}

/* The values from the integrals J (see stable_integrals; J[3] the density's
 * h-weighted integral where the rule over y gave it). */
GS_HD static inline void stable_from_integrals(const stable_point *p, const stable_plan *q,
                                               double J[4], int with_dlog, stable_value *v)
{
  double alpha = p->alpha, scale = q->scale, cdf, ccdf, lcdf, dlog = NAN;
  J[2] = q->computed & STABLE_NEED_J2 ? J[2] + q->j2_end : p->T - J[1] * exp(scale);
  double pref = p->form == STABLE_FORM_ALPHA1 ? 0.5 / p->beta
                                              : alpha / (STABLE_PI * fabs(p->eps) * p->x1);
  double lpdf = log(J[0]) + scale + log(pref);
  if (with_dlog) {
    /* d/dx (h e^-h) = (1 - h) h e^-h ds/dx, with ds/dx from s_const, and
     * pref goes like 1 / x1 */
    double ds_dx = p->form == STABLE_FORM_ALPHA1 ? -STABLE_PI_2 / p->beta : -alpha / (p->eps * p->x1);
    dlog = ds_dx * (1.0 - J[3] / J[0]) - (p->form == STABLE_FORM_ALPHA1 ? 0.0 : 1.0 / p->x1);
  }
  /* J[1] = int e^-h du (scaled), J[2] = int (1 - e^-h) du */
  double lo_part = J[1] * exp(scale);
  if (p->form == STABLE_FORM_ALPHA1) {
    cdf = lo_part / STABLE_PI;
    ccdf = J[2] / STABLE_PI;
    lcdf = log(J[1]) + scale - STABLE_LOG_PI;
  } else if (alpha < 1.0) {
    cdf = (p->c0 + lo_part) / STABLE_PI;
    ccdf = J[2] / STABLE_PI;
    lcdf = p->c0 > 0.0 ? log(cdf) : log(J[1]) + scale - STABLE_LOG_PI;
  } else {
    cdf = (p->c0 + J[2]) / STABLE_PI;
    ccdf = lo_part / STABLE_PI;
    lcdf = log(cdf);
  }
  double lccdf = alpha > 1.0 && p->form != STABLE_FORM_ALPHA1 ? log(J[1]) + scale - STABLE_LOG_PI
                                                              : log(ccdf);
  stable_value_set(v, lpdf, cdf, ccdf, lcdf, lccdf);
  v->dlog_pdf = dlog;
}

/* The values by quadrature (over s where stable_mode_s says, else over y),
 * or the thin tail's closed form; returns the rule (STABLE_BY_*), or 0
 * where fast declines the work. x, beta: the standard argument and
 * skewness before the reflection of p. */
GS_HD static inline int stable_quadrature_value(const stable_point *p, double x, double beta,
                                                int need, int fast, double tol, stable_value *v)
{
  double s_end = p->s_end;
  int mode_s = stable_mode_s(p, x, beta);
  if (fast == GS_EVAL_CHEAP && (mode_s || !(s_end > STABLE_THIN_TAIL))) return 0;
  if (!mode_s && s_end > STABLE_THIN_TAIL) {
    stable_thin_tail(p, v);
    return STABLE_BY_FAST_RULE;
  }
  stable_plan q = {{0.0}, 0, 0.0, 0.0, 0.0, 0.0, 1.0, 0, STABLE_NEED_ALL};
  if (mode_s) stable_plan_s(&q);
  else stable_plan_y(p, &q);
  /* Over s, full accuracy takes step 1/8, checked against step 1/4 to
   * 1e-13; a rough value (tol above that of the rule over y) takes step
   * 1/4 against 1/2. The adaptive rule tests every integral computed:
   * its error estimates for the probabilities alone are not reliable
   * near alpha = 1. */
  double J[4];
  int rule = STABLE_BY_FAST_RULE, rough = tol > STABLE_TRAPEZOID_TOL;
  if (mode_s ? !stable_integrate_s(p, rough ? 0.25 : 0.125, rough ? tol : STABLE_RTOL, J)
             : !q.peak_found ||
                   !stable_integrate_map(p, need & (q.computed | STABLE_NEED_DLOG_PDF), q.ypk, q.d,
                                         q.scale, q.floor01, tol, J)) {
    if (fast) return 0;
    stable_integrate(p, mode_s, q.z, q.nz, q.scale, q.computed, STABLE_RTOL, q.floor01, J);
    if (!mode_s && !(s_end > -INFINITY)) stable_add_cut(p, p->h_zero_at_lower ? q.z[0] : q.z[q.nz - 1], J);
    rule = STABLE_BY_ADAPTIVE_RULE;
  }
  /* h0 above about 1e9: the slope of log h near the end, where the
   * integrands live, cancels to rounding noise, which can leave the scaled
   * integrals at 0; the closed form is then within 1e-8 of the logs */
  int lost = (need & STABLE_NEED_PDF && !(J[0] > 0.0)) || (need & STABLE_NEED_J1 && !(J[1] > 0.0));
  if (q.scale != 0.0 && lost) stable_thin_tail(p, v);
  else
    stable_from_integrals(p, &q, J,
                          (need & STABLE_NEED_DLOG_PDF) && !mode_s && rule == STABLE_BY_FAST_RULE, v);
  return rule;
}

/* Density and both tails of the standard S0 law with alpha != 1, 2 or
 * alpha = 1 with beta != 0, into *out; only the values that need
 * (STABLE_NEED_*) asks for are accurate. tol is where the trapezoid rule
 * stops (STABLE_TRAPEZOID_TOL: full accuracy), and above that the relative
 * tolerance of the rule over s; the adaptive rule always works to full
 * accuracy. fast (GS_EVAL_*) = GS_EVAL_FIRST returns 0 (and leaves *r
 * unset) where the point needs the adaptive rule, GS_EVAL_CHEAP where it
 * needs any quadrature; else it returns STABLE_BY_*. x1: see
 * stable_point_prepare. */
GS_HD static inline int stable_general(double x, double x1, double alpha, double beta, int need,
                                       int fast, double tol, stable_value *out)
{
  stable_point p;
  int refl = stable_point_prepare(&p, x, x1, alpha, beta), rule = STABLE_BY_FAST_RULE;
  stable_small_alpha_point(&p);
  if (!stable_closed_form(&p, out) && !stable_alpha1_power_law(&p, out) &&
      !stable_series_value(&p, out)) {
    rule = alpha < STABLE_SMALL_ALPHA ? stable_small_alpha_value(&p, need, fast, out)
                                      : stable_quadrature_value(&p, x, beta, need, fast, tol, out);
    if (!rule) return 0;
  }
  if (refl) {
    /* the tails of the reflected point swap */
    double c = out->cdf, lc = out->log_cdf;
    out->cdf = out->ccdf;
    out->ccdf = c;
    out->log_cdf = out->log_ccdf;
    out->log_ccdf = lc;
    out->dlog_pdf = -out->dlog_pdf;
  }
  return rule;
}

#endif
