/* What the CUDA files of the polynomial transforms share. */
#ifndef GS_POLY_CUDA_CUH
#define GS_POLY_CUDA_CUH

#include <cuda_runtime.h>

#include "gs_common.h"

/* Device scratch that poly_dct_device needs for cols columns of length n. */
size_t poly_dct_scratch_bytes(int type, long n, long cols);
/* The DCT of the given type (FFTW's definitions) of `cols` columns of length
 * n in device memory x, in place, on stream s; scratch (8-byte aligned)
 * holds poly_dct_scratch_bytes(type, n, cols) bytes. */
gs_status poly_dct_device(int type, long n, long cols, double *x, void *scratch, cudaStream_t s, char *msg);

/* The batched tridiagonal solve (tridiag_cuda.cu) of nsys systems of order n
 * in device memory, on stream s: system j has its matrix at dl, d, du +
 * j mstride (mstride 0: one matrix for all; dl[0] and du[n - 1] unused), its
 * right-hand side at rhs + j n and its solution written to x + j n (x may be
 * rhs); the device long *bad is lowered to the first system whose
 * elimination grew (tridiag_grew) or whose solution is not finite. GS_ERR_ARG when n exceeds what a warp's shared memory holds. */
gs_status poly_tridiag_launch(long n, long nsys, long mstride, const double *dl, const double *d, const double *du,
                              const double *rhs, double *x, long *bad, cudaStream_t s, char *msg);

#endif
