/* Left-looking tile Cholesky on all CPU cores: the tiles of a column are
 * updated in parallel (one tile per thread, LAPACK/BLAS inside), then the
 * diagonal tile is factored and the column solved in parallel. With a
 * multi-threaded BLAS the tiles are processed in turn and the BLAS runs
 * each call on all cores. */
#include "gs_cpu.h"
#include "gs_tile.h"
#include "lapack.h"

/* A_ik -= sum_{j<k} L_ij L_kj' (SYRK on the diagonal). */
static void tile_update(gs_tile_matrix *m, int i, int k)
{
  const int ri = gs_tile_rows(m, i), rk = gs_tile_rows(m, k), nb = m->nb;
  const double one = 1.0, minus = -1.0;
  double *c = gs_tile_at(m, i, k);
  for (int j = 0; j < k; ++j) {
    if (i == k)
      dsyrk_("L", "N", &rk, &nb, &minus, gs_tile_at(m, k, j), &rk, &one, c, &rk, 1, 1);
    else
      dgemm_("N", "T", &ri, &rk, &nb, &minus, gs_tile_at(m, i, j), &ri, gs_tile_at(m, k, j), &rk, &one, c, &ri, 1, 1);
  }
}

static gs_status factor_columns(gs_tile_matrix *m, const gs_tile_options *opt, int threads, gs_tile_info *info,
                                char *msg)
{
  const int nt = m->nt;
  const double one = 1.0;
  for (int k = 0; k < nt; ++k) {
    const int rk = gs_tile_rows(m, k);
    int fail = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int i = k; i < nt; ++i) tile_update(m, i, k);
    dpotrf_("L", &rk, gs_tile_at(m, k, k), &rk, &fail, 1);
    if (fail > 0) {
      info->failed_minor = (long)k * m->nb + fail;
      return gs_set_msg(msg, GS_ERR_NOT_PD, "the leading minor of order %ld is not positive", info->failed_minor);
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int i = k + 1; i < nt; ++i) {
      const int ri = gs_tile_rows(m, i);
      dtrsm_("R", "L", "T", "N", &ri, &rk, &one, gs_tile_at(m, k, k), &rk, gs_tile_at(m, i, k), &ri, 1, 1, 1, 1);
    }
    if (opt->progress && k + 1 < nt) {
      const double done = 1.0 - (double)(nt - k - 1) * (nt - k - 1) * (nt - k - 1) / ((double)nt * nt * nt);
      if (opt->progress(done)) return gs_interrupted(msg);
    }
  }
  return GS_OK;
}

gs_status gs_tile_chol_cpu(gs_tile_matrix *m, const gs_tile_options *opt, gs_tile_info *info, char *msg)
{
  /* a multi-threaded BLAS parallelizes each call; a serial one gets a tile per thread */
  const int blas = gs_blas_threads();
  info->workers = blas > 1 ? blas : gs_cpu_threads(opt->threads);
  return factor_columns(m, opt, blas > 1 ? 1 : info->workers, info, msg);
}
