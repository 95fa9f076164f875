/* Legendre <-> Chebyshev coefficient conversions by the explicit connection
 * matrices (Alpert and Rokhlin 1991), applied as dense triangular products:
 * O(n^2) per column. With Lambda(z) = Gamma(z + 1/2) / Gamma(z + 1),
 *   P_n = sum_k (2 - [k = 0]) / pi Lambda((n - k) / 2) Lambda((n + k) / 2) T_k,
 *   T_n = sum_k L_kn P_k, L_nn = sqrt(pi) / (2 Lambda(n)) (L_00 = 1),
 *   L_kn = -n (k + 1/2) / ((n + k + 1) (n - k)) Lambda((n - k - 2) / 2) Lambda((n + k - 1) / 2),
 * both over n - k even. */
#include <stdlib.h>

#include "gs_poly.h"
#include "lapack.h"

#define SQRT_PI_L 1.772453850905516027298167483341145L

/* Lambda(i / 2) for i = 0 .. 2 n + 1, by Lambda(z + 1) = Lambda(z) (z + 1/2) / (z + 1)
 * from Lambda(0) = sqrt(pi) and Lambda(1/2) = 2 / sqrt(pi), in long double. */
static long double *lambda_table(long n)
{
  const long len = 2 * n + 2;
  long double *t = (long double *)malloc((size_t)len * sizeof(long double));
  if (!t) return NULL;
  t[0] = SQRT_PI_L;
  t[1] = 2.0L / SQRT_PI_L;
  for (long i = 2; i < len; ++i) {
    const long double z = (i - 2) / 2.0L;
    t[i] = t[i - 2] * (z + 0.5L) / (z + 1.0L);
  }
  return t;
}

/* The n x n upper triangular connection matrix, column-major. */
static double *connection_matrix(long n, int to_chebyshev)
{
  double *m = (double *)calloc((size_t)n * n, sizeof(double));
  long double *lam = lambda_table(n);
  if (!m || !lam) {
    free(m);
    free(lam);
    return NULL;
  }
  for (long j = 0; j < n; ++j)
    for (long k = j % 2; k <= j; k += 2) {
      long double v;
      if (to_chebyshev)
        v = (k == 0 ? 1.0L : 2.0L) / (SQRT_PI_L * SQRT_PI_L) * lam[j - k] * lam[j + k];
      else if (k == j)
        v = j == 0 ? 1.0L : SQRT_PI_L / (2.0L * lam[2 * j]);
      else
        v = -(long double)j * (k + 0.5L) / ((j + k + 1.0L) * (j - k)) * lam[j - k - 2] * lam[j + k - 1];
      m[k + j * n] = (double)v;
    }
  free(lam);
  return m;
}

static gs_status convert(long n, long ncol, const double *in, double *out, int to_chebyshev, char *msg)
{
  if (n < 1 || ncol < 1) return GS_OK;
  double *m = connection_matrix(n, to_chebyshev);
  if (!m) return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the %ld x %ld connection matrix", n, n);
  const int nn = (int)n, nc = (int)ncol;
  const double one = 1.0, zero = 0.0;
  dgemm_("N", "N", &nn, &nc, &nn, &one, m, &nn, in, &nn, &zero, out, &nn, 1, 1);
  free(m);
  return GS_OK;
}

gs_status gs_leg2cheb_cpu(long n, long ncol, const double *in, double *out, char *msg)
{
  return convert(n, ncol, in, out, 1, msg);
}

gs_status gs_cheb2leg_cpu(long n, long ncol, const double *in, double *out, char *msg)
{
  return convert(n, ncol, in, out, 0, msg);
}
