/* The Jones-Worland normalisation and connection tables, computed on the
 * host for both backends. */
#include <math.h>
#include <stdlib.h>

#include "gs_poly.h"
#include "poly_internal.h"
#include "poly_lambda.h"
#include "poly_math.h"

/* About 3 digits beyond double where long double has a 64-bit mantissa. */
long double gs_jw_log_norm(int n, int l)
{
  if (n == 0 && l == 0) return logl(1.5707963267948966192313216916397514L);
  return lgammal(n + 0.5L) + lgammal(n + l + 0.5L) - logl(2.0L * (2 * n + l)) - lgammal((long double)n + l) -
         lgammal(n + 1.0L);
}

double gs_jw_q0(int l) { return (double)expl(-0.5L * gs_jw_log_norm(0, l)); }

/* At r = 1, P_n^(-1/2, b)(1) = Gamma(n + 1/2) / (sqrt(pi) n!) = Lambda(n) / sqrt(pi),
 * and with h_n above the unit value squared is
 * 2 (2n + l) Lambda(n) / (pi (n + l - 1/2) Lambda(n + l - 1)): ratios of
 * gamma functions of moderate size, where the recurrence's error grows like
 * n^2 and the lgamma of h_n loses digits in proportion to its magnitude. */
double gs_jw_at_one(int n, int l, int norm)
{
  if (norm == GS_JW_NATURAL) return (double)(poly_lambda_half(2L * n) / POLY_SQRT_PI_L);
  if (n == 0 && l == 0) return (double)sqrtl(2.0L / POLY_PI_L);
  const long double num = 2.0L * (2.0L * n + l) * poly_lambda_half(2L * n);
  return (double)sqrtl(num / (POLY_PI_L * (n + l - 0.5L) * poly_lambda_half(2L * (n + l - 1))));
}

int gs_jw_chain_make(gs_jw_chain *c, int l, long len)
{
  c->l0 = l % 2;
  c->levels = l - c->l0;
  c->len = len;
  const size_t sz = (size_t)(c->levels > 0 ? c->levels : 1) * len;
  c->mu = (double *)malloc(sz * sizeof(double));
  c->nu = (double *)malloc(sz * sizeof(double));
  if (!c->mu || !c->nu) return 0;
  for (int b = 0; b < c->levels; ++b)
    for (long n = 0; n < len; ++n) {
      c->mu[b * len + n] = jw_mu((int)n, c->l0 + b + 0.5);
      c->nu[b * len + n] = jw_nu((int)n, c->l0 + b + 0.5);
    }
  return 1;
}

void gs_jw_chain_free(gs_jw_chain *c)
{
  free(c->mu);
  free(c->nu);
}
