/* What the Legendre <-> Chebyshev files share: the two CPU methods
 * (gs_legcheb_cpu dispatches; both take n >= 1 and ncol >= 1 and write out,
 * n x ncol) and the Hankel factor of the Toeplitz-Hankel method
 * (legcheb_factor.c), which the CPU (legcheb_th.c) and the GPU
 * (legcheb_cuda.cu) apply. */
#ifndef GS_LEGCHEB_INTERNAL_H
#define GS_LEGCHEB_INTERNAL_H

#include "gs_poly.h"

#ifdef __cplusplus
extern "C" {
#endif

gs_status gs_legcheb_direct(const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg);
gs_status gs_legcheb_toeplitz_hankel(const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg);

/* One parity of the Toeplitz-Hankel method: rows and columns k = 2 i + off,
 * i < m, out_k = row_i sum_r l_r(i) (T (l_r o col o in_part))_i with T the
 * upper triangular Toeplitz matrix of column t(2 r) (legcheb_toeplitz_column). */
typedef struct {
  long m, off;
  int rank;
  size_t l_cap; /* doubles allocated at l (kept from one parity to the next) */
  double *l;    /* m x rank: the Cholesky factor of W H W */
  double *row;  /* m: D1 / W */
  double *col;  /* m: D2 / W */
} legcheb_part;

/* Where the factor's rows are computed for a choice of pivots: on the CPU
 * (legcheb_part_prepare's rows NULL: into pt->l, on its nt threads) or by
 * `rows` (the GPU's, legcheb_cuda.cu: into device memory). It gets the
 * Hankel table hs (2 m - 1 entries) and the weights w (m) on the host
 * (first: the first call for this part, the table is new), the pivots piv
 * (pt->rank of them, as rows) and the factor's rows at the pivots lpp
 * (pt->rank x pt->rank, row-major, leading dimension ld), and sets the row
 * of largest remaining diagonal (the first on a tie) and that diagonal, by
 * the arithmetic of legcheb_factor.c's factor_row; 0 on failure. */
typedef struct {
  int (*rows)(void *ctx, const legcheb_part *pt, int first, const double *hs, const double *w, const long *piv,
              const double *lpp, int ld, long *argmax, double *dmax);
  void *ctx;
} legcheb_rows;

/* The caller's progress callback (fn NULL: none) and the fraction of the work
 * done that a part's preparation reports when it checks for an interrupt. */
typedef struct {
  gs_progress_fn fn;
  double done;
} legcheb_progress;

/* Buffers for parts of up to mmax rows (the factor grows as needed); 0 when
 * out of memory (legcheb_part_free is still due). */
int legcheb_part_alloc(legcheb_part *pt, long mmax);
void legcheb_part_free(legcheb_part *pt);
/* Sets pt to the part of parity p (0: even degrees) of size n: factor and
 * scalings, the Hankel table on nt threads and the factor's rows on them
 * (rows NULL) or by rows (pt->l then unset), checking for an interrupt
 * between passes and rounds of rows. GS_ERR_NOMEM when out of memory or when
 * rows fails (its own message is then the one to report),
 * GS_ERR_INTERRUPTED when progress asks to stop. */
gs_status legcheb_part_prepare(legcheb_part *pt, int to_chebyshev, int parity, long n, int nt, const legcheb_rows *rows,
                               const legcheb_progress *progress, char *msg);
/* The length of the circulant embedding of both parts of size n: a smooth
 * length >= 2 m - 1 for the larger part. */
long legcheb_fft_length(long n);
/* The Toeplitz column t(2 r), r < m, zero-padded to len, into c. */
void legcheb_toeplitz_column(const legcheb_part *pt, int to_chebyshev, long len, double *c);
/* Chebyshev -> Legendre: the row of degree 0 that the even part leaves out
 * (h(0) is infinite), out_0 = x_0 + sum_{j >= 2 even} (1/2) j t(j) h(j) x_j:
 * its n / 2 + 1 weights (NULL when out of memory), and out_0 for one column. */
double *legcheb_degree_zero_row(long n);
double legcheb_degree_zero(const double *row, long n, const double *x);

#ifdef __cplusplus
}
#endif

#endif
