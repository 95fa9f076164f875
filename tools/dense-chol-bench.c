/* Times the CPU path's parts of one Gaussian-process likelihood evaluation
 * without R: the Matérn covariance (lower triangle, as gs_gp builds it) and
 * its Cholesky factorization by the packed dense kernels (gs_dense.h)
 * against the system's LAPACK dpotrf, and checks that the factors agree.
 *
 * From src/:
 *   gcc -O2 -fopenmp -I. $(for d in core/common core/dense core/matern core/bessel; do printf -- "-I%s " $d; done) \
 *     ../tools/dense-chol-bench.c core/dense/dense_chol.c core/dense/dense_gemm.c core/matern/matern_cpu.c \
 *     core/common/cpu.c core/common/gs_common.c -o /tmp/dense-chol-bench -llapack -lblas -lm
 *   /tmp/dense-chol-bench N THREADS */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_dense.h"
#include "gs_matern.h"
#include "lapack.h"

int main(int argc, char **argv)
{
  const int n = argc > 1 ? atoi(argv[1]) : 2000, threads = argc > 2 ? atoi(argv[2]) : 1;
  double *locs = malloc(sizeof(double) * 2 * n), *a = malloc(sizeof(double) * n * n);
  double *b = malloc(sizeof(double) * n * n);
  char msg[GS_MSG_LEN];
  long failed = 0;
  int info = 0;
  srand(1);
  for (int i = 0; i < 2 * n; ++i) locs[i] = rand() / (double)RAND_MAX;
  const gs_cov_model model = gs_cov_matern(MATERN_EUCLIDEAN, 1.0, 0.1, 0.8, 0.1);
  const gs_matern_cov_args args = gs_matern_cov_self(locs, n, 2, &model, a);
  double t0 = gs_wall_seconds();
  if (gs_matern_cov_cpu(&args, threads, NULL, msg) != GS_OK) return 1;
  double t1 = gs_wall_seconds();
  memcpy(b, a, sizeof(double) * n * n);
  double t2 = gs_wall_seconds();
  if (gs_dense_potrf(n, a, n, threads, &failed, msg) != GS_OK) return 1;
  double t3 = gs_wall_seconds();
  dpotrf_("L", &n, b, &n, &info, 1);
  double t4 = gs_wall_seconds();
  double worst = 0.0, ld_dense = 0.0, ld_lapack = 0.0;
  for (int j = 0; j < n; ++j) {
    ld_dense += log(a[j + (size_t)j * n]);
    ld_lapack += log(b[j + (size_t)j * n]);
    for (int i = j; i < n; ++i) worst = fmax(worst, fabs(a[i + (size_t)j * n] - b[i + (size_t)j * n]));
  }
  const double gflop = (double)n * n * n / 3e9;
  printf("n %d threads %d: covariance %.3f s, dense Cholesky %.3f s (%.1f GFlop/s), LAPACK dpotrf %.3f s "
         "(%.1f GFlop/s); largest factor difference %.1e, log-determinant relative difference %.1e\n",
         n, threads, t1 - t0, t3 - t2, gflop / (t3 - t2), t4 - t3, gflop / (t4 - t3), worst,
         fabs(ld_dense - ld_lapack) / fabs(ld_lapack));
  free(locs);
  free(a);
  free(b);
  return info != 0;
}
