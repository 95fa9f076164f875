/* GBEES arithmetic shared by the CPU loops and the GPU kernels: the built-in
 * vector fields and the flux limiter. */
#ifndef GBEES_MATH_H
#define GBEES_MATH_H

#include <math.h>

#include "gs_common.h"
#include "gs_gbees.h"

/* Monotonized-central limiter phi(theta) = max(0, min((1 + theta)/2, 2, 2 theta)).
 * theta = +-Inf (a flat face) gives 2 or 0; NaN (0/0) cannot occur because
 * the caller skips faces without a jump. */
static inline GS_HD double gbees_mc_limiter(double theta)
{
  return fmax(0.0, fmin(fmin(0.5 * (1.0 + theta), 2.0), 2.0 * theta));
}

/* Component i of a built-in field at x (kind != GS_GBEES_CALLBACK). */
static inline GS_HD double gbees_builtin_field(int kind, const double *par, int dim, const double *x, int i)
{
  switch (kind) {
  case GS_GBEES_LORENZ63: /* the form of the GBEES papers: sigma, b, r = par[0..2] */
    if (i == 0) return par[0] * (x[1] - x[0]);
    if (i == 1) return -x[1] - x[0] * x[2];
    return -par[1] * x[2] + x[0] * x[1] - par[1] * par[2];
  case GS_GBEES_LORENZ96: {
    int ip1 = (i + 1) % dim, im1 = (i + dim - 1) % dim, im2 = (i + dim - 2) % dim;
    return (x[ip1] - x[im2]) * x[im1] - x[i] + par[0];
  }
  case GS_GBEES_PCR3BP: {
    if (i < 2) return x[i + 2];
    double mu = par[0];
    double d1x = x[0] + mu, d2x = x[0] - 1.0 + mu, y = x[1];
    double r1 = sqrt(d1x * d1x + y * y), r2 = sqrt(d2x * d2x + y * y);
    double r1c = r1 * r1 * r1, r2c = r2 * r2 * r2;
    if (i == 2) return 2.0 * x[3] + x[0] - (1.0 - mu) * d1x / r1c - mu * d2x / r2c;
    return -2.0 * x[2] + y - (1.0 - mu) * y / r1c - mu * y / r2c;
  }
  default:
    return NAN;
  }
}

#endif
