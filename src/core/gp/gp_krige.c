/* Kriging (gs_gp_krige): the argument checks, the choice of where it runs,
 * and the CPU path, which serves every factor the CPU holds (the dense one,
 * host tiles, also those of a GPU factorization out of core) through the
 * shared block loop (gs_krige_blocks.h) with the backend's threaded solves. */
#include "gp_internal.h"
#include "gs_krige_blocks.h"
#include "lapack.h"

/* The GPU holds the factor: the whole matrix, or tiles resident there. */
static int krige_on_gpu(const gs_gp *gp) { return gp->device >= 0 && (gp->gpu || (gp->tiles && gp->tiles->resident)); }

/* b = L^-1 b in place (n x k), with the factor the CPU holds. */
static gs_status krige_forward_cpu(void *ctx, double *b, int k, char *msg)
{
  return gs_gp_apply((gs_gp *)ctx, GS_GP_FORWARD, b, k, b, msg);
}

/* b = L'^-1 b in place (n x k), with the factor the CPU holds. */
static gs_status krige_backward_cpu(void *ctx, double *b, int k, char *msg)
{
  gs_gp *gp = (gs_gp *)ctx;
  if (gp->tiles) return gs_tile_solve(gp->tiles, GS_TILE_BACKWARD, b, k, gp->threads, msg);
  const int n = (int)gp->n;
  const double one = 1.0;
  dtrsm_("L", "L", "T", "N", &n, &k, &one, gp->a, &n, b, &n, 1, 1, 1, 1);
  return GS_OK;
}

static gs_status krige_cpu(gs_gp *gp, const gs_gp_krige_args *a, char *msg)
{
  const gs_krige_factor f = {.ctx = gp,
                             .locs = gp->locs,
                             .n = gp->n,
                             .threads = gp->threads,
                             .forward = krige_forward_cpu,
                             .backward = krige_backward_cpu,
                             .progress = gp->progress};
  return gs_krige_blocks(&f, a, msg);
}

gs_status gs_gp_krige(gs_gp *gp, const gs_gp_krige_args *a, char *msg)
{
  if (!gp->factored) return gs_set_msg(msg, GS_ERR_ARG, "the covariance has not been factored");
  gs_status st = gs_krige_check(a, gp->dim, msg);
  if (st != GS_OK || a->m == 0) return st;
  return krige_on_gpu(gp) ? gs_gp_gpu_krige(gp, a, msg) : krige_cpu(gp, a, msg);
}
