/* Dense linear algebra on the CPU for the Cholesky factorization of
 * covariance matrices: a packed, register-blocked product C -= A B' and the
 * Cholesky factorization and triangular solve written over it. R's reference
 * BLAS runs these products at 1 to 2 GFlop/s; this kernel, vectorised for
 * AVX2/FMA where the processor has it, several times faster, on every
 * thread the caller allows. Matrices are column-major with leading
 * dimensions. */
#ifndef GS_DENSE_H
#define GS_DENSE_H

#include "gs_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C -= A B' for A m x k, B n x k, C m x n. lower: C is square (m == n) and
 * only its lower triangle (i >= j) is updated (a symmetric rank-k update). */
gs_status gs_dense_gemm_nt(int m, int n, int k, const double *a, int lda, const double *b, int ldb, double *c,
                           int ldc, int lower, int threads, char *msg);

/* B := B L^-T for L n x n lower triangular and B m x n (the panel solve of a
 * Cholesky factorization). */
gs_status gs_dense_trsm_rlt(int m, int n, const double *l, int ldl, double *b, int ldb, int threads, char *msg);

/* B := L^-1 B for L n x n lower triangular and B n x k (k right-hand sides
 * at once: the forward solve of several data sets against one factor).
 * GS_ERR_NOMEM when its n k doubles of workspace cannot be had. */
gs_status gs_dense_trsm_lln(int n, int k, const double *l, int ldl, double *b, int ldb, int threads, char *msg);

/* B := L^-1 B as gs_dense_trsm_lln from GS_DENSE_PACKED_SOLVE_MIN_COLUMNS
 * right-hand sides on, which reads L once for all of them where BLAS dtrsm
 * reads it once per column; below, by dtrsm, for which the packing and
 * transposes would not pay. */
#define GS_DENSE_PACKED_SOLVE_MIN_COLUMNS 8
gs_status gs_dense_forward_solve(int n, int k, const double *l, int ldl, double *b, int ldb, int threads, char *msg);

/* A = L L' in place in the lower triangle (the strict upper triangle is
 * neither read nor written). When a leading minor is not positive definite:
 * GS_ERR_NOT_PD, *failed_minor its order. */
gs_status gs_dense_potrf(int n, double *a, int lda, int threads, long *failed_minor, char *msg);

#ifdef __cplusplus
}
#endif

#endif
