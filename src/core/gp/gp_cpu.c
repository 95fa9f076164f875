/* Gaussian processes on the CPU: the covariance from the Matérn CPU loops,
 * factored and solved by LAPACK/BLAS (multi-threaded where R's BLAS is). */
#include <math.h>
#include <string.h>

#include "gp_internal.h"
#include "gs_matern.h"
#include "lapack.h"

/* Columns per block of the factorization, for the interrupt checks between
 * blocks: the widest block (mid-matrix) costs about jb n^2 / 2 flops, so
 * about 2^30, about a second with the reference BLAS (at n = 3000 with 256
 * columns, 1.2e9 flops, its widest block took about 0.9 s of CPU time);
 * from 16 columns, so that the BLAS calls stay efficient, to 256. */
static int potrf_block(long n)
{
  const double jb = 2147483648.0 / ((double)n * (double)n);
  return jb >= 256.0 ? 256 : jb <= 16.0 ? 16 : (int)jb / 16 * 16;
}

/* The share of the work of a left-looking Cholesky done once its first
 * fraction t of the columns are factored: block column t costs about
 * t (1 - t) n^3, which integrates to 3 t^2 - 2 t^3. */
static double potrf_done(double t) { return t * t * (3.0 - 2.0 * t); }

/* A = L L' in place (lower triangle), in the left-looking column blocks of
 * LAPACK's own dpotrf, so that gp->progress can report and stop it between
 * blocks. */
static gs_status cpu_potrf(gs_gp *gp, long *failed_minor, char *msg)
{
  const int n = (int)gp->n, block = potrf_block(gp->n);
  const double one = 1.0, minus = -1.0;
  for (int j = 0; j < n; j += block) {
    const int jb = n - j < block ? n - j : block, below = n - j - jb;
    double *row = gp->a + j, *diag = gp->a + j + (size_t)j * n;
    int info = 0;
    dsyrk_("L", "N", &jb, &j, &minus, row, &n, &one, diag, &n, 1, 1);
    dpotrf_("L", &jb, diag, &n, &info, 1);
    if (info > 0) {
      *failed_minor = (long)j + info;
      return gs_set_msg(msg, GS_ERR_NOT_PD, "the leading minor of order %ld is not positive", *failed_minor);
    }
    if (below > 0) {
      dgemm_("N", "T", &below, &jb, &j, &minus, row + jb, &n, row, &n, &one, diag + jb, &n, 1, 1);
      dtrsm_("R", "L", "T", "N", &below, &jb, &one, diag, &n, diag + jb, &n, 1, 1, 1, 1);
    }
    if (gp->progress && gp->progress(potrf_done((double)(j + jb) / n))) return gs_interrupted(msg);
  }
  return GS_OK;
}

/* The callback of the object whose matrix is being built, which the build
 * reaches through build_progress: a gs_progress_fn carries no data, and the
 * objects are built and factored on the caller's thread, one at a time. */
static gs_progress_fn build_target;

/* During the build: interrupt checks, with the bar still at 0 (the
 * factorization, which follows, is most of the work). */
static int build_progress(double done)
{
  (void)done;
  return build_target(0.0);
}

gs_status gs_gp_cpu_factor(gs_gp *gp, const gs_matern_params *p, double *logdet, long *failed_minor, char *msg)
{
  gs_matern_cov_args a = gs_matern_cov_self(gp->locs, gp->n, gp->dim, gp->metric, p->sigma2, p->range, p->smoothness,
                                            p->nugget, gp->a);
  build_target = gp->progress;
  gs_status st = gs_matern_cov_cpu(&a, gp->threads, gp->progress ? build_progress : NULL, msg);
  if (st != GS_OK) return st;
  if (gp->progress && gp->progress(0.0)) return gs_interrupted(msg); /* between the build and the factorization */
  if ((st = cpu_potrf(gp, failed_minor, msg)) != GS_OK) return st;
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
