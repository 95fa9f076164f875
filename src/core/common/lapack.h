/* The LAPACK and BLAS routines the CPU backends call (Fortran interface, with
 * the hidden lengths of character arguments that gfortran passes last). */
#ifndef GS_LAPACK_H
#define GS_LAPACK_H

#include <stddef.h>

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len);
void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const double *alpha, const double *a, const int *lda, double *b, const int *ldb, size_t side_len,
            size_t uplo_len, size_t transa_len, size_t diag_len);
void dtrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const double *alpha, const double *a, const int *lda, double *b, const int *ldb, size_t side_len,
            size_t uplo_len, size_t transa_len, size_t diag_len);

void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc, size_t transa_len, size_t transb_len);
void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *a,
            const int *lda, const double *beta, double *c, const int *ldc, size_t uplo_len, size_t trans_len);
void dsymv_(const char *uplo, const int *n, const double *alpha, const double *a, const int *lda, const double *x,
            const int *incx, const double *beta, double *y, const int *incy, size_t uplo_len);
void dtrsv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *a, const int *lda,
            double *x, const int *incx, size_t uplo_len, size_t trans_len, size_t diag_len);

#endif
