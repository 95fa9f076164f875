/* Left-looking tile Cholesky on all CPU cores: the tiles of a column are
 * updated in parallel (one tile per thread, LAPACK/BLAS inside), then the
 * diagonal tile is factored and the column solved in parallel. With a
 * multi-threaded BLAS the tiles are processed in turn and the BLAS runs
 * each call on all cores.
 *
 * In mixed precision the tiles stay in their formats in memory (so the
 * matrix takes less of it); a tile that is not FP64 is read into FP64 for
 * each product and accumulated in FP64, then rounded to its format when it
 * is finished. The GPU computes the updates of such tiles in the lowest
 * precision of the tiles involved, so the two agree to that rounding. */
#include <stdlib.h>

#include "gs_cpu.h"
#include "gs_tile.h"
#include "lapack.h"

#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
  double *acc;  /* the accumulators of a column's tiles that are not FP64: tile i at (i - k - 1) * nb^2 */
  double *work; /* two tiles per thread for the operands that are not FP64 */
} cpu_work;

static double *operand_work(const gs_tile_matrix *m, const cpu_work *w, int which)
{
#ifdef _OPENMP
  const size_t thread = (size_t)omp_get_thread_num();
#else
  const size_t thread = 0;
#endif
  return w->work ? w->work + (2 * thread + which) * m->nb * m->nb : NULL;
}

/* Where tile (i, k) of column k accumulates: in place when it is FP64. */
static double *accumulator(const gs_tile_matrix *m, const cpu_work *w, int i, int k)
{
  if (m->precision[gs_tile_index(i, k)] == GS_TILE_FP64) return gs_tile_at(m, i, k);
  return w->acc + (size_t)(i - k - 1) * m->nb * m->nb;
}

/* A_ik -= sum_{j<k} L_ij L_kj' (SYRK on the diagonal). */
static void tile_update(gs_tile_matrix *m, const cpu_work *w, int i, int k)
{
  const int ri = gs_tile_rows(m, i), rk = gs_tile_rows(m, k), nb = m->nb;
  const double one = 1.0, minus = -1.0;
  double *c = accumulator(m, w, i, k);
  if (c != gs_tile_ptr(m, i, k)) gs_tile_read(m, i, k, c);
  for (int j = 0; j < k; ++j) {
    const double *b = gs_tile_read(m, k, j, operand_work(m, w, 1));
    if (i == k)
      dsyrk_("L", "N", &rk, &nb, &minus, b, &rk, &one, c, &rk, 1, 1);
    else
      dgemm_("N", "T", &ri, &rk, &nb, &minus, gs_tile_read(m, i, j, operand_work(m, w, 0)), &ri, b, &rk, &one, c, &ri,
             1, 1);
  }
}

static gs_status factor_columns(gs_tile_matrix *m, const gs_tile_options *opt, int threads, const cpu_work *w,
                                gs_tile_info *info, char *msg)
{
  const int nt = m->nt;
  const double one = 1.0;
  for (int k = 0; k < nt; ++k) {
    const int rk = gs_tile_rows(m, k);
    int fail = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int i = k; i < nt; ++i) tile_update(m, w, i, k);
    dpotrf_("L", &rk, gs_tile_at(m, k, k), &rk, &fail, 1);
    if (fail > 0) {
      info->failed_minor = (long)k * m->nb + fail;
      return gs_set_msg(msg, GS_ERR_NOT_PD, "the leading minor of order %ld is not positive", info->failed_minor);
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int i = k + 1; i < nt; ++i) {
      const int ri = gs_tile_rows(m, i);
      double *c = accumulator(m, w, i, k);
      dtrsm_("R", "L", "T", "N", &ri, &rk, &one, gs_tile_at(m, k, k), &rk, c, &ri, 1, 1, 1, 1);
      if (c != gs_tile_ptr(m, i, k)) gs_tile_write(m, i, k, c);
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
  const int threads = blas > 1 ? 1 : info->workers;
  const size_t tile = (size_t)m->nb * m->nb;
  cpu_work w = {NULL, NULL};
  gs_status st;
  if (m->low_tiles) {
    w.acc = (double *)malloc((size_t)(m->nt - 1) * tile * sizeof(double));
    w.work = (double *)malloc((size_t)threads * 2 * tile * sizeof(double));
    if (!w.acc || !w.work) {
      free(w.acc);
      free(w.work);
      return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for the mixed-precision work tiles");
    }
  }
  st = factor_columns(m, opt, threads, &w, info, msg);
  free(w.acc);
  free(w.work);
  return st;
}
