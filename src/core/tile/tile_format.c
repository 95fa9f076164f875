/* A tile read and written in its format (tile_precision.h), apart from the
 * rest of the matrix's host memory so that the R-free core's tests can run
 * the CPU factorization on tiles they lay out themselves. */
#include <string.h>

#include "tile_internal.h"

const double *gs_tile_read(const gs_tile_matrix *m, int i, int j, double *work)
{
  const long t = gs_tile_index(i, j);
  const int p = m->precision[t];
  if (p == GS_TILE_FP64) return gs_tile_at(m, i, j);
  const size_t count = (size_t)gs_tile_rows(m, i) * gs_tile_rows(m, j);
  const void *x = gs_tile_ptr(m, i, j);
  for (size_t k = 0; k < count; ++k) work[k] = tile_entry_get(x, p, m->scale[t], k);
  return work;
}

int gs_tile_write(gs_tile_matrix *m, int i, int j, const double *x)
{
  const long t = gs_tile_index(i, j);
  const int p = m->precision[t];
  const size_t count = (size_t)gs_tile_rows(m, i) * gs_tile_rows(m, j);
  void *dst = gs_tile_ptr(m, i, j);
  int fits = 1;
  if (p == GS_TILE_FP64) {
    if (dst != x) memcpy(dst, x, count * sizeof(double));
    return 1;
  }
  for (size_t k = 0; k < count; ++k) fits &= tile_entry_put(dst, p, m->scale[t], k, x[k]);
  if (!fits) m->overflow[t] = 1;
  return fits;
}
