/* The Matérn covariance of one pair of locations and its derivatives in the
 * four covariance parameters, shared by the CPU loops and the CUDA kernels of
 * the Vecchia approximation and of the exact likelihood's gradient and
 * Fisher information (gp/).
 *
 * C(d) = sigma2 M_nu(d / range) + nugget [d = 0] (matern_math.h), so with
 * z = d / range and M = M_nu(z) > 0:
 *   dC/dsigma2 = M,
 *   dC/drange  = sigma2 M z K_{nu-1}(z) / K_nu(z) / range,
 *   dC/dnu     = sigma2 M (log(z / 2) - psi(nu) + d log K_nu(z) / dnu),
 *   dC/dnugget = [d = 0].
 * The ratio z K_{nu-1} / K_nu is -(nu + z d log K_nu / dz), from the
 * recurrence K_{nu+1} = K_{nu-1} + (2 nu / z) K_nu; both logarithmic
 * derivatives come from bessel_k_deriv_value (closed forms at half-integer
 * orders for the first). */
#ifndef GS_MATERN_DERIV_MATH_H
#define GS_MATERN_DERIV_MATH_H

#include "matern_math.h"

/* The digamma function psi(x) for x > 0: the recurrence psi(x) = psi(x + 1)
 * - 1/x up to x >= 10, then the asymptotic series (its first omitted term is
 * below 1e-16 there). */
GS_HD static inline double matern_digamma(double x)
{
  double r = 0.0;
  while (x < 10.0) {
    r -= 1.0 / x;
    x += 1.0;
  }
  const double f = 1.0 / (x * x);
  double s = 691.0 / 32760.0;
  s = fma(s, -f, 1.0 / 132.0);
  s = fma(s, -f, 1.0 / 240.0);
  s = fma(s, -f, 1.0 / 252.0);
  s = fma(s, -f, 1.0 / 120.0);
  s = fma(s, -f, 1.0 / 12.0);
  return r + log(x) - 0.5 / x - f * s;
}

/* The model of one evaluation, prepared once; derivatives are taken in its
 * parameters (a bit per GS_COV_* in a derivative mask). */
typedef struct {
  matern_model cov;
  double psi; /* psi(smoothness) */
} matern_deriv_model;

GS_HD static inline matern_deriv_model matern_deriv_prepare(const gs_cov_model *c)
{
  const matern_deriv_model v = {.cov = matern_model_prepare(c), .psi = matern_digamma(c->par[GS_COV_SMOOTHNESS])};
  return v;
}

/* z K_{nu-1}(z) / K_nu(z) at z > 0, where M = M_nu(z) > 0. At half-integer
 * orders nu = n - 1/2 it is z^2 / (2 (nu - 1)) M_{nu-1}(z) / M_nu(z) (from
 * M_nu'(z) = -z M_{nu-1}(z) / (2 (nu - 1))) with the closed forms, and z
 * for nu = 1/2; otherwise -(nu + z d log K_nu / dz). */
GS_HD static inline double matern_range_ratio(const matern_deriv_model *v, double z, double m)
{
  const bessel_k_order *o = &v->cov.order.o;
  if (o->mu == -0.5 && o->n <= MATERN_CLOSED_FORM_MAX_N && z < 700.0) {
    if (o->n == 1) return z;
    return z * z / (2.0 * (o->n - 1.5)) * matern_corr_half_integer(o->n - 1, z) / m;
  }
  return -fma(z, bessel_k_deriv_value(z, v->cov.smoothness, BESSEL_K_WRT_X), v->cov.smoothness);
}

/* Off the diagonal (two distinct locations at distance d > 0): the
 * correlation M, and where `deriv` is set dC/drange (*drange) and dC/dnu
 * (*dnu). deriv bit GS_COV_RANGE / GS_COV_SMOOTHNESS asks for each; the
 * smoothness derivative is by far the dearer (an integral per pair). */
GS_HD static inline double matern_deriv_pair(const matern_deriv_model *v, double d, int deriv, double *drange, double *dnu)
{
  const double z = d / v->cov.range, m = matern_corr(&v->cov.order, z);
  *drange = 0.0;
  *dnu = 0.0;
  /* at z = 0 (duplicated locations) M = 1 is flat; beyond the range where M
   * underflows, so do its derivatives */
  if (!(z > 0.0) || !(m > 0.0)) return m;
  if (deriv & (1 << GS_COV_RANGE)) *drange = v->cov.sigma2 * m * matern_range_ratio(v, z, m) / v->cov.range;
  if (deriv & (1 << GS_COV_SMOOTHNESS)) {
    double dlog = log(0.5 * z) - v->psi + bessel_k_deriv_value(z, v->cov.smoothness, BESSEL_K_WRT_NU);
    *dnu = v->cov.sigma2 * m * dlog;
  }
  return m;
}

#endif
