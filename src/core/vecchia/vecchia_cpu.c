/* The Vecchia approximation on all CPU cores: the blocks (points, or groups
 * of points) in chunks, one thread per chunk, each block a small Cholesky
 * factorization. The sums of
 * each chunk are added in chunk order, so that the result does not depend on
 * the number of threads. */
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "vecchia_internal.h"

/* Blocks per chunk (small: a grouped block with the smoothness derivative
 * takes milliseconds), and chunks per thread between two interrupt checks,
 * so that a check comes well within a second (a batch of 65,536 blocks
 * took over 20 s to stop at n = 5e5). The sums are added chunk by chunk in
 * order, so the batches do not change them. */
#define VECCHIA_CHUNK 16
#define VECCHIA_BATCH_CHUNKS_PER_THREAD 16

/* Runs the blocks of chunks [c0, c1) into their partial sums (part, K per
 * chunk); the first failing point into *failed (1-based, 0 if none). */
GS_CPU_DISPATCH static void vecchia_cpu_chunks(const vecchia_problem *pr,
                                               const matern_deriv_model *md, double *w, double *part, int K,
                                               long c0, long c1, int nthreads, long *failed)
{
  const long wdoubles = vecchia_work_doubles(pr->ld, pr->p, pr->q, pr->rc, pr->deriv);
#pragma omp parallel num_threads(nthreads)
  {
    double *ws = (double *)malloc((size_t)wdoubles * sizeof(double));
    int *idx = (int *)malloc((size_t)(pr->ld + pr->rc) * sizeof(int));
    /* each block's workspace packed to its own set (leading dimension) */
    vecchia_problem block = *pr;
#pragma omp for schedule(dynamic, 1)
    for (long c = c0; c < c1; ++c) {
      double *acc = part + (c - c0) * K;
      memset(acc, 0, (size_t)K * sizeof(double));
      const long t1 = (c + 1) * VECCHIA_CHUNK < pr->blocks ? (c + 1) * VECCHIA_CHUNK : pr->blocks;
      for (long t = c * VECCHIA_CHUNK; t < t1; ++t) {
        if (!ws || !idx) {
          *failed = -1;
          break;
        }
        if (pr->set) block.ld = (int)(pr->set_start[t + 1] - pr->set_start[t]);
        const vecchia_work work = vecchia_work_at(ws, idx, block.ld, pr->p, pr->q, pr->rc, pr->deriv);
        int bad = vecchia_block(&block, md, &work, t, w ? w + t * pr->mp1 : NULL, acc, 0, 1);
        if (bad) {
          const long point = vecchia_block_point(pr, t) + 1;
#pragma omp critical(gs_vecchia_failed)
          if (*failed == 0 || (*failed > 0 && point < *failed)) *failed = point;
          break;
        }
      }
    }
    free(ws);
    free(idx);
  }
}

gs_status gs_vecchia_cpu_run(const gs_vecchia *v, const vecchia_problem *pr, const matern_deriv_model *md, double *w,
                             double *sums, long *failed_point, char *msg)
{
  const int K = pr->y ? vecchia_acc_size(pr->p, pr->q) : 1;
  const long chunks = (pr->blocks + VECCHIA_CHUNK - 1) / VECCHIA_CHUNK;
  const double per_point = (double)pr->mp1 * pr->mp1 * (pr->deriv ? 4.0 : 1.0);
  const int nthreads = gs_cpu_threads_for(v->threads, (double)v->n * per_point);
  const long batch = (long)VECCHIA_BATCH_CHUNKS_PER_THREAD * nthreads;
  double *part = (double *)malloc((size_t)batch * K * sizeof(double));
  if (!part) return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the Vecchia sums");
  memset(sums, 0, (size_t)K * sizeof(double));
  long failed = 0;
  gs_status st = GS_OK;
  for (long c0 = 0; c0 < chunks && st == GS_OK; c0 += batch) {
    const long c1 = c0 + batch < chunks ? c0 + batch : chunks;
    vecchia_cpu_chunks(pr, md, w, part, K, c0, c1, nthreads, &failed);
    for (long c = 0; c < c1 - c0; ++c)
      for (int k = 0; k < K; ++k) sums[k] += part[c * K + k];
    if (failed < 0) st = gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the workspace of a conditioning set");
    else if (failed > 0) st = GS_ERR_NOT_PD;
    else if (v->progress && v->progress((double)c1 / chunks)) st = gs_interrupted(msg); /* 1 at the end: the bar completes */
  }
  free(part);
  if (st == GS_ERR_NOT_PD) {
    *failed_point = failed;
    gs_set_msg(msg, st, "the covariance of the conditioning set of point %ld is not positive definite, "
              "or numerically singular (the point's conditional variance within rounding of 0)", failed);
  }
  return st;
}

gs_status gs_vecchia_cpu_apply(const gs_vecchia *v, const double *b, int k, double *out, char *msg)
{
  const long n = v->n;
  const int mp1 = v->mp1;
  const int nthreads = gs_cpu_threads_for(v->threads, (double)n * mp1 * k / 4.0);
  (void)msg;
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (long i = 0; i < n; ++i) {
    const double *wi = v->w + i * mp1;
    for (int c = 0; c < k; ++c) {
      const double *bc = b + (long)c * n;
      double s = 0.0;
      for (int j = 0; j < mp1; ++j) {
        const int g = v->nn[i + (long)j * n];
        if (g < 0) break;
        s += wi[j] * bc[g];
      }
      out[i + (long)c * n] = s;
    }
  }
  return GS_OK;
}

void gs_vecchia_cpu_inverse(const gs_vecchia *v, const double *b, int k, double *out)
{
  const long n = v->n;
  const int mp1 = v->mp1;
  const int nthreads = gs_cpu_threads_for(v->threads, (double)n * mp1 * k / 4.0);
  /* x_i = (b_i - sum_j W_ij x_j) / W_ii over the earlier points j of row i:
   * sequential in i, one column per thread */
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int c = 0; c < k; ++c) {
    const double *bc = b + (long)c * n;
    double *x = out + (long)c * n;
    for (long i = 0; i < n; ++i) {
      const double *wi = v->w + i * mp1;
      double s = bc[i];
      for (int j = 1; j < mp1; ++j) {
        const int g = v->nn[i + (long)j * n];
        if (g < 0) break;
        s -= wi[j] * x[g];
      }
      x[i] = s / wi[0];
    }
  }
}

void gs_vecchia_cpu_transpose(const gs_vecchia *v, const double *b, int k, double *out)
{
  const long n = v->n;
  const int mp1 = v->mp1;
  const int nthreads = gs_cpu_threads_for(v->threads, (double)n * mp1 * k / 4.0);
  /* (W' b)_g gathers column g, its rows in increasing order: the same sums
   * in the same order on any number of threads and on a GPU */
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (long g = 0; g < n; ++g)
    for (int c = 0; c < k; ++c) {
      const double *bc = b + (long)c * n;
      double s = 0.0;
      for (long e = v->rev_start[g]; e < v->rev_start[g + 1]; ++e) s += v->w[v->rev[e]] * bc[v->rev[e] / mp1];
      out[g + (long)c * n] = s;
    }
}
