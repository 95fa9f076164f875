/* Batched tridiagonal solves on the CPU: the Thomas algorithm (Gaussian
 * elimination without pivoting), one system per thread at a time. By hand
 * rather than LAPACK's dgtsv: the GPU's cyclic reduction does not pivot
 * either, so both backends accept the same matrices (diagonally dominant or
 * symmetric positive definite ones, where no pivoting is needed), and one
 * factorisation serves every right-hand side of a shared matrix. */
#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gs_cpu.h"
#include "gs_poly.h"
#include "poly_internal.h"

/* The elimination of (dl, d, du) into the multipliers c (the modified
 * super-diagonal) and the inverse pivots ip; the index of the first zero or
 * non-finite pivot, or -1. */
static long thomas_factor(long n, const double *dl, const double *d, const double *du, double *c, double *ip)
{
  double piv = d[0];
  for (long i = 0;; ++i) {
    if (piv == 0.0 || !isfinite(piv)) return i;
    ip[i] = 1.0 / piv;
    if (i + 1 == n) return -1;
    c[i] = du[i] * ip[i];
    piv = d[i + 1] - dl[i + 1] * c[i];
  }
}

static void thomas_solve(long n, const double *dl, const double *c, const double *ip, double *b)
{
  b[0] *= ip[0];
  for (long i = 1; i < n; ++i) b[i] = (b[i] - dl[i] * b[i - 1]) * ip[i];
  for (long i = n - 2; i >= 0; --i) b[i] -= c[i] * b[i + 1];
}

static gs_status zero_pivot(char *msg, long sys, long row)
{
  return gs_set_msg(msg, GS_ERR_ARG,
                    "the tridiagonal system %ld has a zero or non-finite pivot in row %ld: it is singular or "
                    "needs pivoting (the solver does not pivot; make the matrix diagonally dominant)",
                    sys + 1, row + 1);
}

gs_status gs_tridiag_solve_cpu(const gs_tridiag_args *a, int threads, char *msg)
{
  const long n = a->n;
  if (n < 1 || a->nrhs < 1) return GS_OK;
  const int nt = gs_cpu_threads_for(threads, 8.0 * n * a->nrhs / POLY_FLOPS_PER_WORK);
  double *work = (double *)malloc(2 * (size_t)n * (a->per_system ? nt : 1) * sizeof(double));
  if (!work) return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the tridiagonal solve");
  long bad_sys = -1, bad_row = -1;
  if (!a->per_system) {
    bad_row = thomas_factor(n, a->dl, a->d, a->du, work, work + n);
    if (bad_row >= 0) bad_sys = 0;
    else {
#pragma omp parallel for num_threads(nt) schedule(static)
      for (long j = 0; j < a->nrhs; ++j) thomas_solve(n, a->dl, work, work + n, a->b + j * n);
    }
  } else {
#pragma omp parallel num_threads(nt)
    {
      double *c = work, *ip = work + n;
#ifdef _OPENMP
      c += 2 * (size_t)n * omp_get_thread_num();
      ip = c + n;
#endif
#pragma omp for schedule(static)
      for (long j = 0; j < a->nrhs; ++j) {
        const size_t o = (size_t)j * n;
        const long row = thomas_factor(n, a->dl + o, a->d + o, a->du + o, c, ip);
        if (row >= 0) {
#pragma omp critical(gs_tridiag_bad)
          if (bad_sys < 0 || j < bad_sys) bad_sys = j, bad_row = row;
        } else {
          thomas_solve(n, a->dl + o, c, ip, a->b + o);
        }
      }
    }
  }
  free(work);
  return bad_sys >= 0 ? zero_pivot(msg, bad_sys, bad_row) : GS_OK;
}
