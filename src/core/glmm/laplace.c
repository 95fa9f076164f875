/* Laplace objects: storage and the covariance K of the latent field. */
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "laplace_internal.h"

/* LAPACK's 32-bit indices bound the order of the dense matrices. */
#define LAPLACE_MAX_N 46340L

gs_status gs_laplace_create(const double *locs, long n, int dim, int threads, gs_laplace **out, char *msg)
{
  if (n < 1 || dim < 1) return gs_set_msg(msg, GS_ERR_ARG, "a Laplace approximation needs at least one location");
  const double mem = gs_host_memory_bytes(), bytes = 16.0 * (double)n * (double)n;
  if (n > LAPLACE_MAX_N || (mem > 0 && bytes > 0.5 * mem))
    return gs_set_msg(msg, GS_ERR_NOMEM,
                      "the exact Laplace approximation holds two %ld x %ld matrices (%.3g GB), beyond half the memory "
                      "or LAPACK's indices",
                      n, n, bytes / 1e9);
  gs_laplace *lp = (gs_laplace *)calloc(1, sizeof *lp);
  if (!lp) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  lp->n = n;
  lp->dim = dim;
  lp->threads = threads;
  lp->locs = (double *)malloc((size_t)n * dim * sizeof(double));
  lp->k = (double *)malloc((size_t)n * n * sizeof(double));
  lp->b = (double *)malloc((size_t)n * n * sizeof(double));
  lp->work = (double *)malloc((size_t)n * LAPLACE_VECTORS * sizeof(double));
  if (!lp->locs || !lp->k || !lp->b || !lp->work) {
    gs_laplace_free(lp);
    return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  }
  memcpy(lp->locs, locs, (size_t)n * dim * sizeof(double));
  *out = lp;
  return GS_OK;
}

void gs_laplace_free(gs_laplace *lp)
{
  if (!lp) return;
  free(lp->work);
  free(lp->b);
  free(lp->k);
  free(lp->locs);
  free(lp);
}

long gs_laplace_size(const gs_laplace *lp) { return lp->n; }

gs_status gs_laplace_set_covariance(gs_laplace *lp, const gs_cov_model *p, char *msg)
{
  lp->has_covariance = 0;
  lp->has_mode = 0;
  const gs_matern_cov_args a = gs_matern_cov_self(lp->locs, lp->n, lp->dim, p, lp->k);
  gs_status st = gs_matern_cov_cpu(&a, lp->threads, NULL, msg);
  lp->has_covariance = (st == GS_OK);
  return st;
}
