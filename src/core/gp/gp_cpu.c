/* Gaussian processes on the CPU: the covariance from the Matérn CPU loops,
 * factored and solved by LAPACK/BLAS (multi-threaded where R's BLAS is). */
#include <math.h>
#include <string.h>

#include "gp_internal.h"
#include "gs_matern.h"
#include "lapack.h"

gs_status gs_gp_cpu_factor(gs_gp *gp, const gs_matern_params *p, double *logdet, long *failed_minor, char *msg)
{
  gs_matern_cov_args a = {gp->locs, gp->n, NULL, 0, gp->dim, gp->metric, p->sigma2, p->range, p->smoothness,
                          p->nugget, 1, gp->a};
  gs_status st = gs_matern_cov_cpu(&a, gp->threads, NULL, msg);
  if (st != GS_OK) return st;
  const int n = (int)gp->n;
  int info = 0;
  dpotrf_("L", &n, gp->a, &n, &info, 1);
  if (info > 0) {
    *failed_minor = info;
    return gs_set_msg(msg, GS_ERR_NOT_PD, "the covariance matrix is not positive definite (leading minor %d)", info);
  }
  double s = 0.0;
  for (long i = 0; i < gp->n; ++i) s += log(gp->a[i + i * gp->n]);
  *logdet = 2.0 * s;
  return GS_OK;
}

gs_status gs_gp_cpu_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg)
{
  (void)msg;
  const int n = (int)gp->n;
  const double one = 1.0;
  if (out != b) memcpy(out, b, (size_t)n * k * sizeof(double));
  if (what == GS_GP_MULTIPLY) {
    dtrmm_("L", "L", "N", "N", &n, &k, &one, gp->a, &n, out, &n, 1, 1, 1, 1);
    return GS_OK;
  }
  dtrsm_("L", "L", "N", "N", &n, &k, &one, gp->a, &n, out, &n, 1, 1, 1, 1);
  if (what == GS_GP_SOLVE) dtrsm_("L", "L", "T", "N", &n, &k, &one, gp->a, &n, out, &n, 1, 1, 1, 1);
  return GS_OK;
}
