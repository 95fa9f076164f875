/* Legendre <-> Chebyshev coefficient conversions: the direct method, the
 * explicit connection matrices (Alpert and Rokhlin 1991; entries in
 * legcheb_math.h) applied as dense triangular products, O(n^2) per column,
 * a panel of the matrix's columns at a time,
 * and the dispatch to the Toeplitz-Hankel method (legcheb_th.c). The direct
 * method is the reference of the fast one and the faster one for small n. */
#include <stdlib.h>

#include "gs_poly.h"
#include "gs_cpu.h"
#include "lapack.h"
#include "legcheb_internal.h"
#include "legcheb_math.h"
#include "poly_internal.h"

/* The Toeplitz and Hankel factors of the connection matrix, tabulated once
 * in long double: t (n entries) and h (2 n); NULL when out of memory. */
typedef struct {
  long double *t, *h;
} connection_tables;

static int connection_tables_make(connection_tables *c, long n, int to_chebyshev)
{
  c->t = (long double *)malloc((size_t)n * sizeof(long double));
  c->h = (long double *)malloc((size_t)(2 * n) * sizeof(long double));
  if (!c->t || !c->h) return 0;
  for (long d = 0; d < n; d += 2) c->t[d] = legcheb_toeplitz(to_chebyshev, d);
  c->h[0] = to_chebyshev ? legcheb_hankel(1, 0) : 0.0; /* Legendre: h(0) is infinite, its entry set below */
  for (long s = 1; s < 2 * n; ++s) c->h[s] = legcheb_hankel(to_chebyshev, s);
  return 1;
}

/* Columns j0 .. j0 + w - 1 of the upper triangular connection matrix, rows
 * 0 .. j0 + w - 1 (those below are zero), into p (leading dimension j0 + w),
 * each entry the product of its factors rounded once. */
static void connection_panel(const connection_tables *c, int to_chebyshev, long j0, long w, int nt, double *p)
{
  const long rows = j0 + w;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (long j = j0; j < rows; ++j) {
    double *col = p + (size_t)(j - j0) * rows;
    const long double cj = legcheb_col_scale(to_chebyshev, j);
    for (long k = 0; k < rows; ++k) col[k] = 0.0;
    for (long k = j % 2; k <= j; k += 2)
      col[k] = (double)(legcheb_row_scale(to_chebyshev, k) * c->t[j - k] * c->h[j + k] * cj);
  }
  if (j0 == 0 && !to_chebyshev) p[0] = 1.0; /* T_0 = P_0, where h(0) is infinite and n = 0 */
}

/* Columns of the connection matrix per panel: a panel is built and applied
 * in a fraction of a second, between two checks for an interrupt, and its
 * memory is a small part of the whole matrix's. */
static long panel_columns(long n)
{
  const long w = (1L << 22) / n;
  return w < 16 ? 16 : (w > n ? n : w);
}

/* out = M in, M applied a panel of columns at a time: the panel of columns
 * j0 .. j1 - 1 (rows below j1 are zero) times rows j0 .. j1 - 1 of in is
 * added to the first j1 rows of out. */
gs_status gs_legcheb_direct(const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg)
{
  const long n = a->n, width = panel_columns(n);
  if (n > 46340) return gs_set_msg(msg, GS_ERR_ARG, "the direct method takes n up to 46340, not %ld", n);
  connection_tables c;
  double *panel = (double *)malloc((size_t)n * width * sizeof(double));
  gs_status st = GS_OK;
  if (!connection_tables_make(&c, n, a->to_chebyshev) || !panel)
    st = gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the connection matrix of size %ld", n);
  const int nt = gs_cpu_threads_for(threads, (double)n * width / POLY_FLOPS_PER_WORK);
  const int nc = (int)a->ncol, ld = (int)n;
  const double one = 1.0;
  for (long i = 0; st == GS_OK && i < n * a->ncol; ++i) a->out[i] = 0.0;
  for (long j0 = 0; st == GS_OK && j0 < n; j0 += width) {
    const int w = (int)(n - j0 < width ? n - j0 : width), rows = (int)j0 + w;
    connection_panel(&c, a->to_chebyshev, j0, w, nt, panel);
    dgemm_("N", "N", &rows, &nc, &w, &one, panel, &rows, a->in + j0, &ld, &one, a->out, &ld, 1, 1);
    if (progress && progress((double)rows * rows / ((double)n * n))) st = gs_interrupted(msg);
  }
  free(c.t);
  free(c.h);
  free(panel);
  return st;
}

gs_status gs_legcheb_cpu(const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg)
{
  if (a->n < 1 || a->ncol < 1) return GS_OK;
  if (a->ncol > 2147483647L) return gs_set_msg(msg, GS_ERR_ARG, "too many columns (%ld)", a->ncol);
  switch (a->method) {
  case GS_LEGCHEB_DIRECT: return gs_legcheb_direct(a, threads, progress, msg);
  case GS_LEGCHEB_TOEPLITZ_HANKEL: return gs_legcheb_toeplitz_hankel(a, threads, progress, msg);
  default: return gs_set_msg(msg, GS_ERR_ARG, "unknown conversion method %d", a->method);
  }
}
