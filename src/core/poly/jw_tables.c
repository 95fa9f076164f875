/* The Jones-Worland normalisation and connection tables, computed on the
 * host for both backends. */
#include <math.h>
#include <stdlib.h>

#include "poly_internal.h"
#include "poly_math.h"

/* About 3 digits beyond double where long double has a 64-bit mantissa. */
long double gs_jw_log_norm(int n, int l)
{
  if (n == 0 && l == 0) return logl(1.5707963267948966192313216916397514L);
  return lgammal(n + 0.5L) + lgammal(n + l + 0.5L) - logl(2.0L * (2 * n + l)) - lgammal((long double)n + l) -
         lgammal(n + 1.0L);
}

double gs_jw_q0(int l) { return (double)expl(-0.5L * gs_jw_log_norm(0, l)); }

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
