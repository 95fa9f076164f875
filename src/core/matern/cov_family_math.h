/* The correlations of the covariance families other than the Matérn
 * (gs_matern.h's GS_COV_FAMILIES) and their derivatives, as functions of
 * z = d / range >= 0 and the shape parameters; shared by the CPU loops and
 * the CUDA kernels through matern_math.h and matern_deriv_math.h.
 *
 * Each is written in a form without cancellation where it is close to 1 or
 * to 0: the spherical 1 - 3z/2 + z^3/2 as (1 - z)^2 (1 + z/2), the
 * Wendland derivatives in z as the closed forms below rather than
 * u P' - a P, the Cauchy through log1p. The generalized Wendland
 * (Bevilacqua, Faouzi, Furrer and Porcu 2019, Ann. Statist. 47, 828-856) of
 * kappa = 0, 1, 2 and a = mu + kappa, u = 1 - z, is
 *   u^a,  u^a (1 + a z),  u^a (1 + a z + (a^2 - 1) z^2 / 3)   (z < 1),
 * Askey's truncated power and Wendland's C^2 and C^4 functions. */
#ifndef GS_COV_FAMILY_MATH_H
#define GS_COV_FAMILY_MATH_H

#include <math.h>

#include "gs_matern.h"

/* The shape parameters of a non-Matérn family, as the model gives them. */
typedef struct {
  double power, tail, kappa, mu;
} cov_family_shape;

/* The Wendland polynomial P_kappa(z) at a = mu + kappa. */
GS_HD static inline double cov_wendland_poly(double kappa, double a, double z)
{
  if (kappa == 0.0) return 1.0;
  if (kappa == 1.0) return fma(a, z, 1.0);
  return fma(z, fma((a * a - 1.0) / 3.0, z, a), 1.0);
}

/* rho(z) at z >= 0 (+Inf included) of a non-Matérn family. */
GS_HD static inline double cov_family_corr(int family, const cov_family_shape *s, double z)
{
  switch (family) {
  case GS_COV_GAUSSIAN: return exp(-z * z);
  case GS_COV_SPHERICAL: return z < 1.0 ? (1.0 - z) * (1.0 - z) * fma(0.5, z, 1.0) : 0.0;
  case GS_COV_POWEXP: return exp(-pow(z, s->power));
  case GS_COV_CAUCHY: return exp(-s->tail / s->power * log1p(pow(z, s->power)));
  case GS_COV_WENDLAND: {
    if (!(z < 1.0)) return 0.0;
    const double a = s->mu + s->kappa;
    return pow(1.0 - z, a) * cov_wendland_poly(s->kappa, a, z);
  }
  default: return NAN;
  }
}

/* The derivatives of rho at 0 < z < Inf, where rho = rho(z) > 0, of a
 * non-Matérn family: z rho'(z) into *dz (so that d rho / d range =
 * -z rho'(z) / range), and d rho / d shape into ds[GS_COV_POWER],
 * ds[GS_COV_TAIL], ds[GS_COV_MU] where `deriv` has their bits (the others
 * are left alone; kappa is discrete and has none). */
GS_HD static inline void cov_family_deriv(int family, const cov_family_shape *s, double z, double rho, int deriv,
                                          double *dz, double *ds)
{
  switch (family) {
  case GS_COV_GAUSSIAN: *dz = -2.0 * z * z * rho; return;
  case GS_COV_SPHERICAL: *dz = -1.5 * z * (1.0 - z) * (1.0 + z); return;
  case GS_COV_POWEXP: {
    const double za = pow(z, s->power);
    *dz = -s->power * za * rho;
    if (deriv & GS_COV_BIT(GS_COV_POWER)) ds[GS_COV_POWER] = -za * log(z) * rho;
    return;
  }
  case GS_COV_CAUCHY: {
    /* log rho = -(beta / alpha) log1p(z^alpha); z^a / (1 + z^a) as 1 / (1 + z^-a) so that z^a may overflow */
    const double a = s->power, b = s->tail, frac = 1.0 / (1.0 + pow(z, -a)), l = log1p(pow(z, a));
    *dz = -b * frac * rho;
    if (deriv & GS_COV_BIT(GS_COV_POWER)) ds[GS_COV_POWER] = -b * rho * (frac * log(z) - l / a) / a;
    if (deriv & GS_COV_BIT(GS_COV_TAIL)) ds[GS_COV_TAIL] = -rho * l / a;
    return;
  }
  case GS_COV_WENDLAND: {
    const double kappa = s->kappa, a = s->mu + kappa, u = 1.0 - z, ua1 = pow(u, a - 1.0);
    if (kappa == 0.0) *dz = -a * ua1 * z;
    else if (kappa == 1.0) *dz = -a * (a + 1.0) * z * z * ua1;
    else *dz = -(a + 1.0) * (a + 2.0) / 3.0 * z * z * fma(a - 1.0, z, 1.0) * ua1;
    if (deriv & GS_COV_BIT(GS_COV_MU)) {
      /* dP/da: 0, z, z + 2 a z^2 / 3 */
      const double dp = kappa == 0.0 ? 0.0 : kappa == 1.0 ? z : z * fma(2.0 * a / 3.0, z, 1.0);
      ds[GS_COV_MU] = rho * log1p(-z) + u * ua1 * dp;
    }
    return;
  }
  default: *dz = NAN;
  }
}

#endif
