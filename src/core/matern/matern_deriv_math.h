/* The covariance of one pair of locations and its derivatives in the
 * covariance parameters, shared by the CPU loops and the CUDA kernels of
 * the Vecchia approximation and of the exact likelihood's gradient and
 * Fisher information (gp/).
 *
 * C(d) = sigma2 M_nu(d / range) + nugget [d = 0] (matern_math.h), so with
 * z = d / range and M = M_nu(z) > 0:
 *   dC/dsigma2 = M,
 *   dC/drange  = sigma2 M z K_{nu-1}(z) / K_nu(z) / range,
 *   dC/dnu     = sigma2 M (log(z / 2) - psi(nu) + d log K_nu(z) / dnu),
 *   dC/dnugget = [d = 0].
 * The other families' derivatives come from cov_family_math.h.
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
  double psi; /* psi(smoothness), the Matérn's */
} matern_deriv_model;

GS_HD static inline matern_deriv_model matern_deriv_prepare(const gs_cov_model *c)
{
  const matern_deriv_model v = {.cov = matern_model_prepare(c),
                                .psi = c->family == GS_COV_MATERN ? matern_digamma(c->par[GS_COV_SMOOTHNESS]) : 0.0};
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

/* The Matérn's d rho / d range (times range) and d rho / d nu at z > 0
 * where rho = M > 0, into dv[GS_COV_RANGE] and dv[GS_COV_SMOOTHNESS] as
 * `deriv` asks; the smoothness derivative is by far the dearer (an
 * integral per pair). */
GS_HD static inline void matern_deriv_corr(const matern_deriv_model *v, double z, double m, int deriv, double *dv)
{
  if (deriv & GS_COV_BIT(GS_COV_RANGE)) dv[GS_COV_RANGE] = m * matern_range_ratio(v, z, m);
  if (deriv & GS_COV_BIT(GS_COV_SMOOTHNESS))
    dv[GS_COV_SMOOTHNESS] = m * (log(0.5 * z) - v->psi + bessel_k_deriv_value(z, v->cov.smoothness, BESSEL_K_WRT_NU));
}

/* Off the diagonal (two distinct locations at distance d > 0): the
 * correlation rho, and dC/dp into dv[p] for each correlation parameter p
 * (GS_COV_CORR_PARAMS: the range and the shapes) that `deriv` asks for, 0
 * for the others. */
GS_HD static inline double matern_deriv_pair(const matern_deriv_model *v, double d, int deriv, double *dv)
{
  const double z = d / v->cov.range, m = matern_model_corr(&v->cov, z);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int k = 0; k < GS_COV_NPAR; ++k)
    if (GS_COV_CORR_PARAMS & GS_COV_BIT(k)) dv[k] = 0.0;
  /* at z = 0 (duplicated locations) rho = 1 is flat; beyond the range or
   * the support, where rho is 0, so are its derivatives */
  if (!(z > 0.0) || !(m > 0.0)) return m;
  if (v->cov.family == GS_COV_MATERN) {
    matern_deriv_corr(v, z, m, deriv, dv);
    dv[GS_COV_RANGE] /= v->cov.range;
  } else {
    double zdz;
    cov_family_deriv(v->cov.family, &v->cov.shape, z, m, deriv, &zdz, dv);
    dv[GS_COV_RANGE] = (deriv & GS_COV_BIT(GS_COV_RANGE)) ? -zdz / v->cov.range : 0.0;
  }
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int k = 0; k < GS_COV_NPAR; ++k)
    if (GS_COV_CORR_PARAMS & GS_COV_BIT(k)) dv[k] *= v->cov.sigma2;
  return m;
}

#endif
