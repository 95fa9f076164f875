/* The gamma ratio Lambda(z) = Gamma(z + 1/2) / Gamma(z + 1) at half-integers,
 * in long double on the host: the Legendre <-> Chebyshev connection
 * coefficients (legcheb_math.h) and the values of the Jones-Worland
 * polynomials at r = 1 (jw_tables.c) are products of such ratios. Not
 * GS_HD: its tables are computed on the host and uploaded. */
#ifndef GS_POLY_LAMBDA_H
#define GS_POLY_LAMBDA_H

#include <math.h>

#define POLY_SQRT_PI_L 1.772453850905516027298167483341145L
#define POLY_PI_L 3.141592653589793238462643383279503L

/* Lambda(i / 2) for i >= 0. Below z = 16 by the recurrence
 * Lambda(z + 1) = Lambda(z) (z + 1/2) / (z + 1) from Lambda(0) = sqrt(pi)
 * and Lambda(1/2) = 2 / sqrt(pi) (at most 15 steps); above by the
 * asymptotic series in w = z + 1/4, where only even powers appear:
 *   log Lambda(z) = -log(w) / 2 + sum_m c_m w^(-2m),
 *   c_m = -2 B_{2m+1}(1/4) / ((2m + 1) 2m) = (-1)^m |E_2m| / (m 2^(4m+2))
 * (Bernoulli polynomials B, Euler numbers E; from Stirling's series of
 * log Gamma(w + 1/4) - log Gamma(w + 3/4)). Seven terms leave a relative
 * error below 1e-20 for z >= 16, so the value is as accurate as long double
 * allows, with no overflow and no cancellation for any i. */
static inline long double poly_lambda_half(long i)
{
  if (i < 32) {
    long double v = (i % 2) ? 2.0L / POLY_SQRT_PI_L : POLY_SQRT_PI_L;
    for (long j = i % 2; j < i; j += 2) v *= (j + 1.0L) / (j + 2.0L);
    return v;
  }
  static const long double c[7] = {-1.0L / 64, 5.0L / 2048, -61.0L / 49152, 1385.0L / 1048576,
                                   -50521.0L / 20971520, 2702765.0L / 402653184, -199360981.0L / 7516192768.0L};
  const long double w = i / 2.0L + 0.25L, w2 = 1.0L / (w * w);
  long double s = 0.0L;
  for (int m = 6; m >= 0; --m) s = (s + c[m]) * w2;
  return expl(s) / sqrtl(w);
}

#endif
