/* Matérn covariance matrices on all CPU cores. */
#include "gs_cpu.h"
#include "gs_matern.h"
#include "matern_math.h"

/* Entries per interrupt check. */
#define MATERN_CHUNK_ENTRIES ((long)1 << 22)

/* Column j (its lower part and the mirrored row when symmetric). */
GS_CPU_DISPATCH static void matern_column(const gs_matern_cov_args *a, const matern_model *p, long j)
{
  const int sym = (a->locs2 == NULL);
  const double *locs2 = sym ? a->locs1 : a->locs2;
  const long n1 = a->n1, n2 = sym ? a->n1 : a->n2;
  for (long i = sym ? j : 0; i < n1; ++i) {
    double v = matern_model_cov(p, matern_distance(a->locs1, n1, i, locs2, n2, j, a->dim, p->metric));
    if (sym && i == j) v += p->nugget;
    a->out[i + j * n1] = v;
    if (sym && !a->lower_only) a->out[j + i * n1] = v;
  }
}

gs_status gs_matern_cov_cpu(const gs_matern_cov_args *a, int threads, gs_progress_fn progress,
                            char *msg)
{
  gs_status st = gs_cov_model_check(&a->model, a->dim, msg);
  if (st != GS_OK) return st;
  const long n1 = a->n1, n2 = (a->locs2 == NULL) ? a->n1 : a->n2;
  const matern_model p = matern_model_prepare(&a->model);
  const int nthreads = gs_cpu_threads_for(threads, (double)n1 * (double)n2);
  long cols = MATERN_CHUNK_ENTRIES / (n1 > 0 ? n1 : 1);
  if (cols < 1) cols = 1;
  for (long j0 = 0; j0 < n2; j0 += cols) {
    const long j1 = (n2 - j0 > cols) ? j0 + cols : n2;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
    for (long j = j0; j < j1; ++j) matern_column(a, &p, j);
    if (progress && j1 < n2 && progress((double)j1 / n2))
      return gs_interrupted(msg);
  }
  return GS_OK;
}
