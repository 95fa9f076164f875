/* Batched tridiagonal solves on the CPU. Each row and its right-hand side
 * are first scaled by a power of two to a largest entry near 1
 * (tridiag_row_scale), so that no product overflows. Then the Thomas
 * algorithm (Gaussian elimination without pivoting): one factorisation
 * serves every right-hand side of a shared matrix, and it is the fastest
 * where no pivoting is needed (diagonally dominant or symmetric positive
 * definite matrices). Where its elimination grows (tridiag_grew) or meets a
 * zero pivot, the system is solved again with partial pivoting, the
 * algorithm of LAPACK's dgtsv, so that a matrix that needs pivoting gets the
 * right answer and only a singular one is refused. The GPU path measures
 * the growth of its own elimination and hands such calls to this one. */
#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gs_cpu.h"
#include "gs_poly.h"
#include "poly_internal.h"
#include "tridiag_math.h"

/* One system's matrix: row i is (dl[i], d[i], du[i]), dl[0] and du[n - 1]
 * unused. */
typedef struct {
  long n;
  const double *dl, *d, *du;
} tri_matrix;

/* The Thomas factorisation of the scaled rows: y_i = f_i b_i - m_i y_{i-1},
 * x_i = y_i - c_i x_{i+1}, with f = scale / pivot, m = scaled dl / pivot,
 * c = scaled du / pivot. 0 where a pivot is zero or the elimination grew. */
static int thomas_factor(const tri_matrix *A, double *c, double *f, double *m)
{
  double sub = 0.0, cprev = 0.0;
  for (long i = 0; i < A->n; ++i) {
    const double l = i > 0 ? A->dl[i] : 0.0, u = i + 1 < A->n ? A->du[i] : 0.0;
    const double s = tridiag_row_scale(l, A->d[i], u);
    sub = s * l * cprev;
    if (tridiag_grew(sub)) return 0;
    const double piv = s * A->d[i] - sub;
    if (piv == 0.0) return 0;
    const double ip = 1.0 / piv;
    f[i] = s * ip;
    m[i] = s * l * ip;
    c[i] = s * u * ip;
    cprev = c[i];
  }
  return 1;
}

static void thomas_solve(long n, const double *c, const double *f, const double *m, double *b)
{
  b[0] *= f[0];
  for (long i = 1; i < n; ++i) b[i] = f[i] * b[i] - m[i] * b[i - 1];
  for (long i = n - 2; i >= 0; --i) b[i] -= c[i] * b[i + 1];
}

/* Partial pivoting (dgtsv's elimination, as dgttrf stores it) of the scaled
 * rows: pivots d, super-diagonals u and u2, multipliers fact, row swaps
 * swap, the row scales s. The first row whose pivot is zero, or -1. */
static long pivoted_factor(const tri_matrix *A, double *s, double *d, double *u, double *u2, double *fact,
                           unsigned char *swap)
{
  const long n = A->n;
  for (long i = 0; i < n; ++i) {
    const double l = i > 0 ? A->dl[i] : 0.0, up = i + 1 < n ? A->du[i] : 0.0;
    s[i] = tridiag_row_scale(l, A->d[i], up);
    d[i] = s[i] * A->d[i];
    u[i] = s[i] * up;
  }
  for (long i = 0; i + 1 < n; ++i) {
    const double sub = s[i + 1] * A->dl[i + 1];
    swap[i] = fabs(d[i]) < fabs(sub);
    if (!swap[i]) {
      if (d[i] == 0.0) return i;
      fact[i] = sub / d[i];
      d[i + 1] -= fact[i] * u[i];
      u2[i] = 0.0;
    } else {
      const double t = d[i + 1];
      fact[i] = d[i] / sub;
      d[i] = sub;
      d[i + 1] = u[i] - fact[i] * t;
      u2[i] = i + 2 < n ? u[i + 1] : 0.0;
      if (i + 2 < n) u[i + 1] = -fact[i] * u2[i];
      u[i] = t;
    }
  }
  return d[n - 1] == 0.0 ? n - 1 : -1;
}

static void pivoted_solve(long n, const double *s, const double *d, const double *u, const double *u2,
                          const double *fact, const unsigned char *swap, double *b)
{
  for (long i = 0; i < n; ++i) b[i] *= s[i];
  for (long i = 0; i + 1 < n; ++i) {
    if (!swap[i]) {
      b[i + 1] -= fact[i] * b[i];
    } else {
      const double t = b[i];
      b[i] = b[i + 1];
      b[i + 1] = t - fact[i] * b[i + 1];
    }
  }
  b[n - 1] /= d[n - 1];
  if (n > 1) b[n - 2] = (b[n - 2] - u[n - 2] * b[n - 1]) / d[n - 2];
  for (long i = n - 3; i >= 0; --i) b[i] = (b[i] - u[i] * b[i + 1] - u2[i] * b[i + 2]) / d[i];
}

/* The pivoted solve of A x = b for the k columns of b on nt threads, with
 * its own work (rarely needed, so not held by every call): the row of a
 * zero pivot (the matrix is singular), -1 when solved, -2 when out of
 * memory. */
static long pivoted_system(const tri_matrix *A, double *b, long k, int nt)
{
  const long n = A->n;
  double *w = (double *)malloc(5 * (size_t)n * sizeof(double));
  unsigned char *swap = (unsigned char *)malloc((size_t)n);
  long bad = w && swap ? pivoted_factor(A, w, w + n, w + 2 * n, w + 3 * n, w + 4 * n, swap) : -2;
  if (bad == -1 && k == 1) pivoted_solve(n, w, w + n, w + 2 * n, w + 3 * n, w + 4 * n, swap, b);
  else if (bad == -1) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long j = 0; j < k; ++j) pivoted_solve(n, w, w + n, w + 2 * n, w + 3 * n, w + 4 * n, swap, b + j * n);
  }
  free(w);
  free(swap);
  return bad;
}

/* Solves A x = b for the k columns of b (leading dimension A->n) on nt
 * threads (a parallel region only for several columns: a system of a
 * per-system batch runs inside one), by Thomas in w (3 n doubles) or with
 * pivoting: as pivoted_system. */
static long solve_system(const tri_matrix *A, double *b, long k, int nt, double *w)
{
  const long n = A->n;
  if (!thomas_factor(A, w, w + n, w + 2 * n)) return pivoted_system(A, b, k, nt);
  if (k == 1) thomas_solve(n, w, w + n, w + 2 * n, b);
  else {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long j = 0; j < k; ++j) thomas_solve(n, w, w + n, w + 2 * n, b + j * n);
  }
  return -1;
}

static gs_status singular(char *msg, long sys, long row)
{
  return gs_set_msg(msg, GS_ERR_ARG, "the tridiagonal system %ld is singular (a zero pivot in row %ld with partial "
                    "pivoting)", sys + 1, row + 1);
}

gs_status gs_tridiag_solve_cpu(const gs_tridiag_args *a, int threads, char *msg)
{
  const long n = a->n;
  if (n < 1 || a->nrhs < 1) return GS_OK;
  int nt = gs_cpu_threads_for(threads, 8.0 * n * a->nrhs / POLY_FLOPS_PER_WORK);
  if (a->per_system && nt > a->nrhs) nt = (int)a->nrhs; /* a thread per system at most: its work is 3 n */
  double *w = (double *)malloc(3 * (size_t)n * (a->per_system ? nt : 1) * sizeof(double));
  if (!w) return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the tridiagonal solve");
  long bad_sys = -1, bad_row = -1;
  if (!a->per_system) {
    const tri_matrix A = {n, a->dl, a->d, a->du};
    bad_row = solve_system(&A, a->b, a->nrhs, nt, w);
    if (bad_row != -1) bad_sys = 0;
  } else {
#pragma omp parallel num_threads(nt)
    {
      int t = 0;
#ifdef _OPENMP
      t = omp_get_thread_num();
#endif
#pragma omp for schedule(static)
      for (long j = 0; j < a->nrhs; ++j) {
        const size_t o = (size_t)j * n;
        const tri_matrix A = {n, a->dl + o, a->d + o, a->du + o};
        const long row = solve_system(&A, a->b + o, 1, 1, w + 3 * (size_t)n * t);
        if (row != -1) {
#pragma omp critical(gs_tridiag_bad)
          if (bad_sys < 0 || j < bad_sys) bad_sys = j, bad_row = row;
        }
      }
    }
  }
  free(w);
  if (bad_sys < 0) return GS_OK;
  if (bad_row == -2) return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the pivoted tridiagonal solve");
  return singular(msg, bad_sys, bad_row);
}
