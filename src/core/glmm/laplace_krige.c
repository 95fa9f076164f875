/* Predictions of the latent field from the Laplace approximation: Gaussian
 * kriging with Sigma = K + W^-1 = G G', G = W^-1/2 L (gs_laplace.h), through
 * the CPU's block loop shared with the Gaussian process (gs_krige_blocks.h).
 * G's solves use B's factor and W^1/2 only, never W^-1, which is huge where
 * W is tiny (rare events). */
#include <string.h>

#include "gs_dense.h"
#include "gs_krige_blocks.h"
#include "laplace_internal.h"
#include "lapack.h"

static const double *sqrt_w(const gs_laplace *lp) { return lp->work + LAPLACE_SQRT_W * lp->n; }

/* b = G^-1 b = L^-1 W^1/2 b in place (n x k). */
static gs_status laplace_forward_in_place(void *ctx, double *b, int k, char *msg)
{
  const gs_laplace *lp = (const gs_laplace *)ctx;
  const int n = (int)lp->n;
  const double *s = sqrt_w(lp);
  for (int c = 0; c < k; ++c)
    for (int i = 0; i < n; ++i) b[i + (size_t)c * n] *= s[i];
  return gs_dense_forward_solve(n, k, lp->b, n, b, n, lp->threads, msg);
}

/* b = G'^-1 b = W^1/2 L'^-1 b in place (n x k). */
static gs_status laplace_backward_in_place(void *ctx, double *b, int k, char *msg)
{
  (void)msg;
  const gs_laplace *lp = (const gs_laplace *)ctx;
  const int n = (int)lp->n;
  const double one = 1.0, *s = sqrt_w(lp);
  dtrsm_("L", "L", "T", "N", &n, &k, &one, lp->b, &n, b, &n, 1, 1, 1, 1);
  for (int c = 0; c < k; ++c)
    for (int i = 0; i < n; ++i) b[i + (size_t)c * n] *= s[i];
  return GS_OK;
}

static gs_status check_mode(const gs_laplace *lp, char *msg)
{
  return lp->has_mode ? GS_OK : gs_set_msg(msg, GS_ERR_ARG, "the Laplace object has no mode");
}

gs_status gs_laplace_forward(gs_laplace *lp, const double *b, int k, double *out, char *msg)
{
  gs_status st = check_mode(lp, msg);
  if (st != GS_OK) return st;
  if (k < 0) return gs_set_msg(msg, GS_ERR_ARG, "bad gs_laplace_forward call");
  if (out != b) memcpy(out, b, (size_t)lp->n * k * sizeof(double));
  return k ? laplace_forward_in_place(lp, out, k, msg) : GS_OK;
}

gs_status gs_laplace_weights(const gs_laplace *lp, double *w, char *msg)
{
  gs_status st = check_mode(lp, msg);
  if (st != GS_OK) return st;
  const double *s = sqrt_w(lp);
  for (long i = 0; i < lp->n; ++i) w[i] = s[i] * s[i];
  return GS_OK;
}

gs_status gs_laplace_krige(gs_laplace *lp, const gs_gp_krige_args *args, gs_progress_fn progress, char *msg)
{
  gs_status st = check_mode(lp, msg);
  if (st == GS_OK) st = gs_krige_check(args, lp->dim, msg);
  if (st != GS_OK || args->m == 0) return st;
  const gs_krige_factor f = {.ctx = lp,
                             .locs = lp->locs,
                             .n = lp->n,
                             .threads = lp->threads,
                             .forward = laplace_forward_in_place,
                             .backward = laplace_backward_in_place,
                             .progress = progress};
  return gs_krige_blocks(&f, args, msg);
}
