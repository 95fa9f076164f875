/* Gaussian-process objects: argument checks and the choice of backend. */
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "gp_internal.h"
#include "gs_cpu.h"

/* The CPU backend calls 32-bit LAPACK: a larger order would overflow it. */
#define GP_CPU_MAX_N 46340L

gs_status gs_gp_create(int device, const double *locs, long n, int dim, int metric, int threads, gs_gp **out,
                       char *msg)
{
  gs_status st = GS_OK;
  if (n < 1 || dim < 1) return gs_set_msg(msg, GS_ERR_ARG, "a Gaussian process needs at least one location");
  gs_gp *gp = (gs_gp *)calloc(1, sizeof *gp);
  if (!gp) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  gp->device = device;
  gp->n = n;
  gp->dim = dim;
  gp->metric = metric;
  gp->threads = threads;
  gp->locs = (double *)malloc((size_t)n * dim * sizeof(double));
  if (!gp->locs) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto fail;
  }
  memcpy(gp->locs, locs, (size_t)n * dim * sizeof(double));
  if (device >= 0) {
    st = gs_gp_gpu_init(gp, msg);
    if (st != GS_OK) goto fail;
  } else {
    const double bytes = 8.0 * (double)n * (double)n, mem = gs_host_memory_bytes();
    if (n > GP_CPU_MAX_N || (mem > 0 && bytes > mem)) {
      st = gs_set_msg(msg, GS_ERR_NOMEM,
                      "the %ld x %ld covariance matrix needs %.1f GB; the CPU path handles n up to %ld within "
                      "this machine's %.1f GB",
                      n, n, bytes / 1e9, GP_CPU_MAX_N, mem / 1e9);
      goto fail;
    }
    gp->a = (double *)malloc((size_t)bytes);
    if (!gp->a) {
      st = gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the %.1f GB covariance matrix", bytes / 1e9);
      goto fail;
    }
  }
  *out = gp;
  return GS_OK;
fail:
  gs_gp_free(gp);
  return st;
}

void gs_gp_free(gs_gp *gp)
{
  if (!gp) return;
  if (gp->device >= 0) gs_gp_gpu_release(gp);
  free(gp->a);
  free(gp->locs);
  free(gp);
}

long gs_gp_size(const gs_gp *gp) { return gp->n; }

gs_status gs_gp_factor(gs_gp *gp, const gs_matern_params *p, double *logdet, long *failed_minor, char *msg)
{
  if (!(p->sigma2 > 0.0) || !(p->range > 0.0) || !(p->smoothness > 0.0) || !(p->nugget >= 0.0) ||
      !isfinite(p->sigma2 + p->range + p->smoothness + p->nugget))
    return gs_set_msg(msg, GS_ERR_ARG, "covariance parameters must be finite, with sigma2, range and smoothness > 0 "
                                       "and nugget >= 0");
  gp->factored = 0;
  *failed_minor = 0;
  gs_status st = (gp->device >= 0) ? gs_gp_gpu_factor(gp, p, logdet, failed_minor, msg)
                                   : gs_gp_cpu_factor(gp, p, logdet, failed_minor, msg);
  gp->factored = (st == GS_OK);
  return st;
}

gs_status gs_gp_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg)
{
  if (!gp->factored) return gs_set_msg(msg, GS_ERR_ARG, "the covariance has not been factored");
  if (what < GS_GP_FORWARD || what > GS_GP_SOLVE || k < 0) return gs_set_msg(msg, GS_ERR_ARG, "bad gs_gp_apply call");
  if (k == 0) return GS_OK;
  return (gp->device >= 0) ? gs_gp_gpu_apply(gp, what, b, k, out, msg) : gs_gp_cpu_apply(gp, what, b, k, out, msg);
}
