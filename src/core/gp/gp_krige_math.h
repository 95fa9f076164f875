/* The standard error of kriging at one new location, shared by the CPU loop
 * (gp_krige.c) and the device kernel (gp_krige_cuda.cu), so that both reduce
 * in the same order. */
#ifndef GS_GP_KRIGE_MATH_H
#define GS_GP_KRIGE_MATH_H

#include <math.h>

#include "gs_common.h"

/* sqrt(max(sigma2 - sumsq + d' A d, 0)) with d = x0 - g (p values: x0 with
 * stride ldx, the row of the new location in the design; g = W' L^-1 c_0)
 * and A p x p (gs_gp_krige): the variance of the noise-free field, less what
 * the data explain (sumsq = |L^-1 c_0|^2), plus the trend coefficients'
 * uncertainty. Rounding can take a variance near 0 below it: 0 then. */
GS_HD static inline double gp_krige_se(double sigma2, double sumsq, const double *x0, long ldx, const double *g,
                                       const double *a, int p)
{
  double trend = 0.0;
  for (int i = 0; i < p; ++i) {
    double ad = 0.0; /* (A d)_i */
    for (int l = 0; l < p; ++l) ad += a[i + (long)l * p] * (x0[l * ldx] - g[l]);
    trend += (x0[i * ldx] - g[i]) * ad;
  }
  return sqrt(fmax(sigma2 - sumsq + trend, 0.0));
}

#endif
