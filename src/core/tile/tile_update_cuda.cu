/* The compute ops of the plan on a device: the updates c -= a b' in the
 * precision of their tiles, the factorization of a diagonal tile and the
 * solves of the tiles below it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tile_run.cuh"

/* Operand x (1 or 2) of op, finished in its slot, in format p for a
 * product that updates tile c: the slot itself, or a converted copy. */
static gs_status operand_in(tile_run *r, const tile_op *op, int x, int p, const void **out, char *msg)
{
  gs_status st = GS_OK;
  const gs_tile_matrix *m = r->m;
  const int t = op->tile[x], q = op->worker;
  const int held = tile_device_format(m->precision[t]);
  *out = slot_ptr(r, op->slot[x]);
  if (held == p) return GS_OK;
  void *copy = operand_ptr(r, q, x - 1);
  GS_CUDA_TRY(tile_convert(*out, held, m->scale[t], copy, p, m->scale[t], tile_entries(m, t),
                           r->overflow + op->tile[0], run_stream(r, q)));
  *out = copy;
done:
  return st;
}

/* The precision of the update c -= a b' (formats number from FP64 down;
 * a SYRK's b is a): FP64, FP32 or FP16. FP8 operands, held as FP16 on the
 * device, are multiplied on the FP16 tensor cores: cuBLAS multiplies FP8
 * only with the first operand transposed, which would need the tiles
 * stored transposed, and the FP16 product of two tiles already takes a
 * small fraction of the DGEMM's time; what FP8 saves is bytes. */
static int update_precision(const gs_tile_matrix *m, const tile_op *op)
{
  const int pc = m->precision[op->tile[0]], pa = m->precision[op->tile[1]];
  const int pb = op->tile[2] >= 0 ? m->precision[op->tile[2]] : pa;
  if (pc == GS_TILE_FP64) return pa >= GS_TILE_FP16 && pb >= GS_TILE_FP16 ? GS_TILE_FP16 : GS_TILE_FP64;
  const int low = pc > pa ? (pc > pb ? pc : pb) : (pa > pb ? pa : pb);
  return low > GS_TILE_FP16 ? GS_TILE_FP16 : low;
}

/* c (FP64, `rows` rows, leading dimension rows, count entries) -= t (FP32,
 * the same layout); with `lower`, only on and below the diagonal, which is
 * all that the factorization of a diagonal tile reads. */
__global__ void tile_subtract_kernel(double *c, const float *t, int rows, size_t count, int lower)
{
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < count; e += (size_t)gridDim.x * blockDim.x)
    if (!lower || e % rows >= e / rows) c[e] -= (double)t[e];
}

/* c -= a b' in the precision of update_precision (a SYRK: c -= a a'). */
static gs_status tile_update(tile_run *r, const tile_op *op, char *msg)
{
  gs_status st = GS_OK;
  const gs_tile_matrix *m = r->m;
  const int ri = gs_tile_rows(m, op->i), rk = gs_tile_rows(m, op->k), nb = m->nb, p = update_precision(m, op);
  const int syrk = op->kind == TILE_OP_SYRK, q = op->worker;
  const float scale = m->scale[op->tile[1]] * m->scale[syrk ? op->tile[1] : op->tile[2]];
  cublasHandle_t blas = r->td->blas[q];
  void *c = slot_ptr(r, op->slot[0]);
  const void *a, *b;
  GS_TRY(operand_in(r, op, 1, p, &a, msg));
  if (syrk)
    b = a;
  else
    GS_TRY(operand_in(r, op, 2, p, &b, msg));
  if (m->precision[op->tile[0]] == GS_TILE_FP64 && p == GS_TILE_FP16) {
    const float inverse = 1.0f / scale, zero = 0.0f;
    const size_t count = (size_t)ri * rk;
    float *t = (float *)scratch_ptr(r, q);
    GS_TRY(gs_cublas_status(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_T, ri, rk, nb, &inverse, a, CUDA_R_16F, ri, b,
                                         CUDA_R_16F, rk, &zero, t, CUDA_R_32F, ri, CUBLAS_COMPUTE_32F,
                                         CUBLAS_GEMM_DEFAULT),
                            "cublasGemmEx", msg));
    tile_subtract_kernel<<<(unsigned)((count + 255) / 256 < 1024 ? (count + 255) / 256 : 1024), 256, 0,
                           run_stream(r, q)>>>((double *)c, t, ri, count, syrk);
    GS_CUDA_TRY(cudaGetLastError());
  } else if (p == GS_TILE_FP64) {
    const double one = 1.0, minus = -1.0;
    if (syrk)
      GS_TRY(gs_cublas_status(cublasDsyrk(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, rk, nb, &minus,
                                          (const double *)a, rk, &one, (double *)c, rk),
                              "cublasDsyrk", msg));
    else if (r->gemm.usable && ri == nb && rk == nb)
      GS_TRY(gs_cublas_status(tile_gemm_run(r->td->lt, &r->gemm, (const double *)a, (const double *)b,
                                            (double *)c, run_stream(r, q)),
                              "cublasLtMatmul", msg));
    else /* the last tile row and column, a small part of the work */
      GS_TRY(gs_cublas_status(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, ri, rk, nb, &minus, (const double *)a, ri,
                                          (const double *)b, rk, &one, (double *)c, ri),
                              "cublasDgemm", msg));
  } else if (p == GS_TILE_FP32) {
    const float one = 1.0f, minus = -1.0f;
    GS_TRY(gs_cublas_status(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, ri, rk, nb, &minus, (const float *)a, ri,
                                        (const float *)b, rk, &one, (float *)c, ri),
                            "cublasSgemm", msg));
  } else {
    const float one = 1.0f, alpha = -1.0f / scale;
    GS_TRY(gs_cublas_status(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_T, ri, rk, nb, &alpha, a, CUDA_R_16F, ri, b,
                                         CUDA_R_16F, rk, &one, c, CUDA_R_32F, ri, CUBLAS_COMPUTE_32F,
                                         CUBLAS_GEMM_DEFAULT),
                            "cublasGemmEx", msg));
  }
done:
  return st;
}

/* L_ik = A_ik L_kk'^-1 of a tile that is not FP64: a TRMM with the FP32
 * inverse, then the tile in its format back into its slot (an FP8 tile
 * also widened to its device format). */
static gs_status solve_low(tile_run *r, const tile_op *op, char *msg)
{
  gs_status st = GS_OK;
  const gs_tile_matrix *m = r->m;
  const int q = op->worker, t = op->tile[0], p = m->precision[t];
  const int ri = gs_tile_rows(m, op->i), rk = gs_tile_rows(m, op->k);
  const size_t count = (size_t)ri * rk;
  const float one = 1.0f;
  float *c = (float *)slot_ptr(r, op->slot[0]), *x = (float *)scratch_ptr(r, q);
  void *bytes = tile_transfer_ptr(c, p, count);
  GS_TRY(gs_cublas_status(cublasStrmm(r->td->blas[q], CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                                      CUBLAS_DIAG_NON_UNIT, ri, rk, &one, inverse32_ptr(r, op->k), rk, c, ri, x, ri),
                          "cublasStrmm", msg));
  GS_CUDA_TRY(tile_convert(x, GS_TILE_FP32, 1.0f, bytes, p, m->scale[t], count, r->overflow + t, run_stream(r, q)));
  if (bytes != c)
    GS_CUDA_TRY(tile_convert(bytes, p, m->scale[t], c, tile_device_format(p), m->scale[t], count, NULL,
                             run_stream(r, q)));
done:
  return st;
}

gs_status tile_op_compute(tile_run *r, const tile_op *op, char *msg)
{
  gs_status st = GS_OK;
  const int q = op->worker, ri = gs_tile_rows(r->m, op->i), rk = gs_tile_rows(r->m, op->k);
  const int p = r->m->precision[op->tile[0]];
  const double one = 1.0;
  cublasHandle_t blas = r->td->blas[q];
  double *c = slot_ptr(r, op->slot[0]);
  for (int x = 0; x < 3; ++x)
    if (op->tile[x] >= 0) GS_CUDA_TRY(tile_wait(r, q, op->tile[x]));
  GS_CUDA_TRY(tile_trace_mark(r, q, 0));
  switch (op->kind) {
  case TILE_OP_SYRK:
  case TILE_OP_GEMM:
    GS_TRY(tile_update(r, op, msg));
    break;
  case TILE_OP_POTRF:
    GS_TRY(gs_cusolver_status(cusolverDnXpotrf(r->td->solver[q], r->c->solver_params, CUBLAS_FILL_MODE_LOWER, rk,
                                               CUDA_R_64F, c, rk, CUDA_R_64F, r->potrf_work[q], r->potrf_bytes,
                                               r->potrf_host[q], r->potrf_host_bytes, r->info_dev + op->k),
                              "cusolverDnXpotrf", msg));
    GS_CUDA_TRY(cudaMemcpyAsync(r->info_host + op->k, r->info_dev + op->k, sizeof(int), cudaMemcpyDeviceToHost,
                                run_stream(r, q)));
    GS_TRY(tile_diagonal_invert(r, q, op->k, c, msg));
    if (r->inverse32)
      GS_CUDA_TRY(tile_convert(inverse_ptr(r, op->k), GS_TILE_FP64, 1.0f, inverse32_ptr(r, op->k), GS_TILE_FP32, 1.0f,
                               (size_t)rk * rk, r->overflow + op->tile[0], run_stream(r, q)));
    break;
  case TILE_OP_TRSM: /* L_ik = A_ik L_kk'^-1 as a TRMM with the inverse, then back into the slot */
    if (p != GS_TILE_FP64) {
      GS_TRY(solve_low(r, op, msg));
      break;
    }
    GS_TRY(gs_cublas_status(cublasDtrmm(blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                                        CUBLAS_DIAG_NON_UNIT, ri, rk, &one, inverse_ptr(r, op->k), rk, c, ri,
                                        scratch_ptr(r, q), ri),
                            "cublasDtrmm", msg));
    GS_CUDA_TRY(cudaMemcpyAsync(c, scratch_ptr(r, q), (size_t)ri * rk * sizeof(double), cudaMemcpyDeviceToDevice,
                                run_stream(r, q)));
    break;
  }
  GS_CUDA_TRY(tile_trace_mark(r, q, 1));
  if (op->kind == TILE_OP_POTRF || op->kind == TILE_OP_TRSM) r->shared->final[op->tile[0]] = 1;
  GS_CUDA_TRY(tile_ready(r, q, op->tile[0]));
  for (int x = 0; x < 3; ++x)
    if (op->slot[x] >= 0) GS_CUDA_TRY(slot_use(r, q, op->slot[x]));
done:
  return st;
}
