/* The inverses of the factored diagonal tiles, through which the
 * off-diagonal solves of a column run as triangular products. */
#include "tile_run.cuh"

/* Zeroes the strict upper triangle of an n x n block with leading dimension ld. */
__global__ void upper_zero_kernel(double *a, int n, int ld)
{
  const int row = blockIdx.x * blockDim.x + threadIdx.x, col = blockIdx.y;
  if (row < col && col < n) a[(size_t)col * ld + row] = 0.0;
}

/* x = l^-1 for the n x n lower-triangular l (leading dimension ld, also that
 * of x), recursively: with l = [a 0; b c], x = [a^-1 0; -c^-1 b a^-1 c^-1],
 * so that nearly all the flops are in GEMMs and cuSOLVER's trtri only sees
 * blocks of up to INVERSE_LEAF rows. The strict upper triangle of x is left
 * as it was. */
static gs_status triangle_invert(tile_run *r, int q, int n, const double *l, double *x, int ld, char *msg)
{
  gs_status st = GS_OK;
  cudaStream_t s = run_stream(r, q);
  if (n <= INVERSE_LEAF) {
    const dim3 grid((unsigned)((n + 255) / 256), (unsigned)n);
    GS_CUDA_TRY(cudaMemcpy2DAsync(x, (size_t)ld * sizeof(double), l, (size_t)ld * sizeof(double), (size_t)n * sizeof(double),
                                  (size_t)n, cudaMemcpyDeviceToDevice, s));
    upper_zero_kernel<<<grid, 256, 0, s>>>(x, n, ld);
    GS_CUDA_TRY(cudaGetLastError());
    return gs_cusolver_status(cusolverDnXtrtri(r->td->solver[q], CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, n,
                                               CUDA_R_64F, x, ld, r->trtri_work[q], r->trtri_bytes, r->trtri_host[q],
                                               r->trtri_host_bytes, r->trtri_info + q),
                              "cusolverDnXtrtri", msg);
  }
  {
    const int n1 = (n / 2 + 127) / 128 * 128, n2 = n - n1;
    const double one = 1.0, minus = -1.0, zero = 0.0;
    double *t = scratch_ptr(r, q); /* n2 x n1: b a^-1 */
    GS_TRY(triangle_invert(r, q, n1, l, x, ld, msg));
    GS_TRY(triangle_invert(r, q, n2, l + (size_t)n1 * ld + n1, x + (size_t)n1 * ld + n1, ld, msg));
    GS_TRY(gs_cublas_status(
        cublasDgemm(r->td->blas[q], CUBLAS_OP_N, CUBLAS_OP_N, n2, n1, n1, &one, l + n1, ld, x, ld, &zero, t, n2),
        "cublasDgemm", msg));
    GS_TRY(gs_cublas_status(cublasDgemm(r->td->blas[q], CUBLAS_OP_N, CUBLAS_OP_N, n2, n1, n2, &minus,
                                        x + (size_t)n1 * ld + n1, ld, t, n2, &zero, x + n1, ld),
                            "cublasDgemm", msg));
  }
done:
  return st;
}

/* L_kk^-1 (lower triangular, zeros above, so that its FP32 copy converts
 * no stale values) of column k, from its factored diagonal tile in d, on
 * stream q. The off-diagonal solves of the column then run as triangular
 * products (TRMM): cublasDtrsm on a 4096 x 4096 tile reaches about
 * 2 TFLOP/s on an H100 against about 49 for DGEMM, and made the solves the
 * bottleneck; a full GEMM with the inverse spends twice the solve's flops,
 * and on a 2048 tile (H100, nothing else running) took 0.32 ms against
 * 0.22 ms for the TRMM. Multiplying by the inverse of a Cholesky diagonal
 * block keeps the factor within a small multiple of the solve's rounding
 * error (Higham, Accuracy and Stability of Numerical Algorithms, ch. 13). The buffer of column k is
 * reused by column k + TILE_LAG + 1, which the host issues only after column
 * k is done on every stream. */
gs_status tile_diagonal_invert(tile_run *r, int q, int k, const double *d, char *msg)
{
  gs_status st = GS_OK;
  const int rk = gs_tile_rows(r->m, k);
  double *inv = inverse_ptr(r, k);
  GS_CUDA_TRY(cudaMemsetAsync(inv, 0, (size_t)rk * rk * sizeof(double), run_stream(r, q)));
  GS_TRY(triangle_invert(r, q, rk, d, inv, rk, msg));
done:
  return st;
}
