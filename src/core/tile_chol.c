/* Tile Cholesky: argument checks and the choice of backend. */
#include <math.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_tile.h"

gs_status gs_tile_chol(int device, gs_tile_matrix *m, const gs_tile_source *src, const gs_tile_options *opt,
                       gs_tile_info *info, char *msg)
{
  gs_status st = GS_OK;
  memset(info, 0, sizeof *info);
  if (!src->a && (!(src->sigma2 > 0.0) || !(src->range > 0.0) || !(src->smoothness > 0.0) || !(src->nugget >= 0.0) ||
                  !isfinite(src->sigma2 + src->range + src->smoothness + src->nugget) || src->dim < 1))
    return gs_set_msg(msg, GS_ERR_ARG, "covariance parameters must be finite, with sigma2, range and smoothness > 0 "
                                       "and nugget >= 0");
  const double t0 = gs_wall_seconds();
  if (device < 0) {
    st = gs_tile_fill(m, src, opt->threads, msg);
    if (st == GS_OK) st = gs_tile_chol_cpu(m, opt, info, msg);
  } else {
    if (src->a) st = gs_tile_fill(m, src, opt->threads, msg);
    if (st == GS_OK) st = gs_tile_chol_gpu(device, m, src, opt, info, msg);
  }
  info->seconds = gs_wall_seconds() - t0;
  if (st == GS_OK) info->logdet = gs_tile_logdet(m);
  return st;
}

int gs_tile_default_size(long n, int device, int threads)
{
  long nb;
  if (device >= 0)
    nb = n >= 32768 ? 2048 : 1024;
  else if (gs_blas_threads() > 1)
    nb = 512; /* one BLAS call at a time, on all cores: large tiles */
  else { /* about two tile rows per thread, so that a column keeps the threads busy */
    nb = (n / (2L * gs_cpu_threads(threads)) + 31) / 32 * 32;
    nb = nb < 64 ? 64 : nb > 512 ? 512 : nb;
  }
  return (int)(nb < n ? nb : n);
}
