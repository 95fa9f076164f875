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

#endif
