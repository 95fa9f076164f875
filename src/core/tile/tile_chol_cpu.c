/* Left-looking tile Cholesky on all CPU cores: the tiles of a column are
 * updated in parallel (one tile per thread, the packed dense kernels of
 * gs_dense.h inside, on that thread), then the diagonal tile is factored
 * and the column solved in parallel.
 *
 * In mixed precision the tiles stay in their formats in memory (so the
 * matrix takes less of it); a tile that is not FP64 is read into FP64 for
 * each product and accumulated in FP64, then rounded to its format when it
 * is finished. The GPU computes the updates of such tiles in the lowest
 * precision of the tiles involved, so the two agree to that rounding. */
#include <stdlib.h>

#include "gs_cpu.h"
#include "gs_dense.h"
#include "tile_internal.h"

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

/* A_ik -= sum_{j<k} L_ij L_kj' (its lower triangle on the diagonal), on
 * the calling thread. */
static gs_status tile_update(gs_tile_matrix *m, const cpu_work *w, int i, int k, char *msg)
{
  const int ri = gs_tile_rows(m, i), rk = gs_tile_rows(m, k), nb = m->nb;
  double *c = accumulator(m, w, i, k);
  gs_status st = GS_OK;
  if (c != gs_tile_ptr(m, i, k)) gs_tile_read(m, i, k, c);
  for (int j = 0; j < k && st == GS_OK; ++j) {
    const double *b = gs_tile_read(m, k, j, operand_work(m, w, 1));
    const double *a = i == k ? b : gs_tile_read(m, i, j, operand_work(m, w, 0));
    st = gs_dense_gemm_nt(ri, rk, nb, a, ri, b, rk, c, ri, i == k, 1, msg);
  }
  return st;
}

/* The first failure of a parallel loop's iterations, its message kept. */
static void keep_failure(gs_status st, const char *mine, gs_status *first, char *msg)
{
  if (st == GS_OK) return;
#pragma omp critical(gs_tile_cpu_status)
  if (*first == GS_OK) *first = gs_set_msg(msg, st, "%s", mine);
}

static gs_status factor_columns(gs_tile_matrix *m, const gs_tile_options *opt, int threads, const cpu_work *w,
                                gs_tile_info *info, char *msg)
{
  const int nt = m->nt;
  for (int k = 0; k < nt; ++k) {
    const int rk = gs_tile_rows(m, k);
    long fail = 0;
    gs_status st = GS_OK;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int i = k; i < nt; ++i) {
      char mine[GS_MSG_LEN];
      keep_failure(tile_update(m, w, i, k, mine), mine, &st, msg);
    }
    if (st == GS_OK) st = gs_dense_potrf(rk, gs_tile_at(m, k, k), rk, threads, &fail, msg);
    if (st == GS_ERR_NOT_PD) {
      info->failed_minor = (long)k * m->nb + fail;
      return gs_set_msg(msg, GS_ERR_NOT_PD, "the leading minor of order %ld is not positive", info->failed_minor);
    }
    if (st != GS_OK) return st;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int i = k + 1; i < nt; ++i) {
      const int ri = gs_tile_rows(m, i);
      double *c = accumulator(m, w, i, k);
      char mine[GS_MSG_LEN];
      keep_failure(gs_dense_trsm_rlt(ri, rk, gs_tile_at(m, k, k), rk, c, ri, 1, mine), mine, &st, msg);
      if (c != gs_tile_ptr(m, i, k)) gs_tile_write(m, i, k, c);
    }
    if (st != GS_OK) return st;
    if (opt->progress && k + 1 < nt) {
      const double done = 1.0 - (double)(nt - k - 1) * (nt - k - 1) * (nt - k - 1) / ((double)nt * nt * nt);
      if (opt->progress(done)) return gs_interrupted(msg);
    }
  }
  return GS_OK;
}

gs_status gs_tile_chol_cpu(gs_tile_matrix *m, const gs_tile_options *opt, gs_tile_info *info, char *msg)
{
  info->workers = gs_cpu_threads(opt->threads);
  const int threads = info->workers;
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
