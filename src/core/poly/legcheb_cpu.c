/* Legendre <-> Chebyshev coefficient conversions: the direct method, the
 * explicit connection matrices (Alpert and Rokhlin 1991; entries in
 * legcheb_math.h) applied as dense triangular products, O(n^2) per column,
 * and the dispatch to the Toeplitz-Hankel method (legcheb_th.c). The direct
 * method is the reference of the fast one and the faster one for small n. */
#include <stdlib.h>

#include "gs_poly.h"
#include "lapack.h"
#include "legcheb_internal.h"
#include "legcheb_math.h"

/* The n x n upper triangular connection matrix, column-major: the Toeplitz
 * and Hankel factors tabulated once in long double, each entry their
 * product rounded once. */
static double *connection_matrix(long n, int to_chebyshev)
{
  double *m = (double *)calloc((size_t)n * n, sizeof(double));
  long double *t = (long double *)malloc((size_t)n * sizeof(long double));
  long double *h = (long double *)malloc((size_t)(2 * n) * sizeof(long double));
  if (!m || !t || !h) {
    free(m);
    m = NULL;
  }
  for (long d = 0; m && d < n; d += 2) t[d] = legcheb_toeplitz(to_chebyshev, d);
  if (m) h[0] = to_chebyshev ? legcheb_hankel(1, 0) : 0.0; /* Legendre: h(0) is infinite, its entry set below */
  for (long s = 1; m && s < 2 * n; ++s) h[s] = legcheb_hankel(to_chebyshev, s);
  for (long j = 0; m && j < n; ++j) {
    const long double cj = legcheb_col_scale(to_chebyshev, j);
    for (long k = j % 2; k <= j; k += 2)
      m[k + j * n] = (double)(legcheb_row_scale(to_chebyshev, k) * t[j - k] * h[j + k] * cj);
  }
  if (m && !to_chebyshev) m[0] = 1.0; /* T_0 = P_0, where h(0) is infinite and n = 0 */
  free(t);
  free(h);
  return m;
}

gs_status gs_legcheb_direct(const gs_legcheb_args *a, char *msg)
{
  const long n = a->n;
  if (n > 46340) return gs_set_msg(msg, GS_ERR_ARG, "the direct method takes n up to 46340, not %ld", n);
  double *m = connection_matrix(n, a->to_chebyshev);
  if (!m) return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the %ld x %ld connection matrix", n, n);
  const int nn = (int)n, nc = (int)a->ncol;
  const double one = 1.0, zero = 0.0;
  dgemm_("N", "N", &nn, &nc, &nn, &one, m, &nn, a->in, &nn, &zero, a->out, &nn, 1, 1);
  free(m);
  return GS_OK;
}

gs_status gs_legcheb_cpu(const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg)
{
  if (a->n < 1 || a->ncol < 1) return GS_OK;
  if (a->ncol > 2147483647L) return gs_set_msg(msg, GS_ERR_ARG, "too many columns (%ld)", a->ncol);
  switch (a->method) {
  case GS_LEGCHEB_DIRECT: return gs_legcheb_direct(a, msg);
  case GS_LEGCHEB_TOEPLITZ_HANKEL: return gs_legcheb_toeplitz_hankel(a, threads, progress, msg);
  default: return gs_set_msg(msg, GS_ERR_ARG, "unknown conversion method %d", a->method);
  }
}
