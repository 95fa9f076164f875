/* The device side of a Gaussian-process object, shared by gp_cuda.cu and
 * gp_deriv_cuda.cu. */
#ifndef GS_GP_GPU_CUH
#define GS_GP_GPU_CUH

#include "gp_internal.h"
#include "gs_gpu_ctx.cuh"

struct gs_gp_gpu {
  gs_gpu_ctx *ctx;
  double *locs;      /* n x dim */
  double *a;         /* n x n; its Cholesky factor after a factorisation */
  void *work;        /* Xpotrf workspace, device and host */
  size_t work_bytes;
  void *host_work;
  size_t host_work_bytes;
  int *info;
  double *rhs;       /* 2 n x rhs_cols: right-hand sides and results */
  int rhs_cols;
  double *diag;      /* host, n */
};

#endif
