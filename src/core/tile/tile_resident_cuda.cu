/* A tile Cholesky factor that stayed in the memory of its GPU
 * (gs_tile_resident): the triangular solves, the product L b and the norms of
 * its low-precision tiles, without moving a tile to the host. The right-hand
 * sides go to the device in blocks of columns; the tiles are read once per
 * block, converted to FP64 on the fly where they are stored lower, so each
 * solve runs at the device's memory bandwidth. */
#include <stdlib.h>

#include "gs_gpu_ctx.cuh"
#include "gs_tile_cuda.cuh"
#include "tile_internal.h"
#include "tile_kernels.cuh"

/* Device memory for one block of right-hand sides. */
#define RESIDENT_BLOCK_BYTES ((size_t)512 << 20)

extern "C" void gs_tile_resident_free(gs_tile_matrix *m)
{
  gs_tile_resident *res = m->resident;
  if (!res) return;
  cudaSetDevice(res->device);
  cudaFree(res->tiles);
  cudaGetLastError();
  free(res->slot);
  free(res->diagonal);
  free(res);
  m->resident = NULL;
}

typedef struct {
  const gs_tile_matrix *m;
  gs_gpu_ctx *c;
  double *b;     /* n x cols on the device, leading dimension n */
  int cols;
  double *fp64;  /* a tile converted to FP64 */
} resident_block;

/* Tile t of L in its format, on the device. */
static const void *resident_tile_at(const gs_tile_matrix *m, long t)
{
  return (const char *)m->resident->tiles + (size_t)m->resident->slot[t] * m->nb * m->nb * sizeof(double);
}

/* Tile (i, j) of L as FP64 on the device: the tile itself, or converted. */
static cudaError_t resident_tile(const resident_block *w, int i, int j, const double **out)
{
  const gs_tile_matrix *m = w->m;
  const long t = gs_tile_index(i, j);
  const void *x = resident_tile_at(m, t);
  *out = (const double *)x;
  if (m->precision[t] == GS_TILE_FP64) return cudaSuccess;
  *out = w->fp64;
  return tile_convert(x, tile_device_format(m->precision[t]), m->scale[t], w->fp64, GS_TILE_FP64, 1.0f,
                      (size_t)gs_tile_rows(m, i) * gs_tile_rows(m, j), NULL, w->c->stream[0]);
}

/* Rows of block i of the right-hand sides. */
static double *block_rows(const resident_block *w, int i) { return w->b + (size_t)i * w->m->nb; }

/* b_i -= op(L_xy) b_j for the block rows i in [lo, hi): L_ij (trans = 0) or
 * L_ji' (trans = 1). */
static gs_status resident_updates(const resident_block *w, int j, int lo, int hi, int trans, char *msg)
{
  gs_status st = GS_OK;
  const gs_tile_matrix *m = w->m;
  const double one = 1.0, minus = -1.0;
  const int cj = gs_tile_rows(m, j), ldb = (int)m->n;
  for (int i = lo; i < hi; ++i) {
    const int ri = gs_tile_rows(m, i);
    const double *l;
    GS_CUDA_TRY(trans ? resident_tile(w, j, i, &l) : resident_tile(w, i, j, &l));
    GS_TRY(gs_cublas_status(trans ? cublasDgemm(w->c->blas, CUBLAS_OP_T, CUBLAS_OP_N, ri, w->cols, cj, &minus, l, cj,
                                                block_rows(w, j), ldb, &one, block_rows(w, i), ldb)
                                  : cublasDgemm(w->c->blas, CUBLAS_OP_N, CUBLAS_OP_N, ri, w->cols, cj, &minus, l, ri,
                                                block_rows(w, j), ldb, &one, block_rows(w, i), ldb),
                            "cublasDgemm", msg));
  }
done:
  return st;
}

/* b_j = op(L_jj)^-1 b_j. */
static gs_status resident_diagonal_solve(const resident_block *w, int j, int trans, char *msg)
{
  const double one = 1.0, *l = (const double *)resident_tile_at(w->m, gs_tile_index(j, j));
  const int cj = gs_tile_rows(w->m, j);
  return gs_cublas_status(cublasDtrsm(w->c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER,
                                      trans ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, cj, w->cols, &one, l, cj,
                                      block_rows(w, j), (int)w->m->n),
                          "cublasDtrsm", msg);
}

static gs_status resident_block_apply(const resident_block *w, int what, char *msg)
{
  gs_status st = GS_OK;
  const gs_tile_matrix *m = w->m;
  const int nt = m->nt, ldb = (int)m->n;
  if (what == GS_TILE_MULTIPLY) { /* bottom up, so that the blocks above are still those of b */
    const double one = 1.0;
    for (int i = nt - 1; i >= 0; --i) {
      const int ri = gs_tile_rows(m, i);
      const double *l = (const double *)resident_tile_at(m, gs_tile_index(i, i));
      GS_TRY(gs_cublas_status(cublasDtrmm(w->c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                          CUBLAS_DIAG_NON_UNIT, ri, w->cols, &one, l, ri, block_rows(w, i), ldb,
                                          block_rows(w, i), ldb),
                              "cublasDtrmm", msg));
      for (int j = 0; j < i; ++j) {
        GS_CUDA_TRY(resident_tile(w, i, j, &l));
        GS_TRY(gs_cublas_status(cublasDgemm(w->c->blas, CUBLAS_OP_N, CUBLAS_OP_N, ri, w->cols, gs_tile_rows(m, j), &one,
                                            l, ri, block_rows(w, j), ldb, &one, block_rows(w, i), ldb),
                                "cublasDgemm", msg));
      }
    }
    return GS_OK;
  }
  if (what & GS_TILE_FORWARD)
    for (int j = 0; j < nt; ++j) {
      GS_TRY(resident_diagonal_solve(w, j, 0, msg));
      GS_TRY(resident_updates(w, j, j + 1, nt, 0, msg));
    }
  if (what & GS_TILE_BACKWARD)
    for (int j = nt - 1; j >= 0; --j) {
      GS_TRY(resident_diagonal_solve(w, j, 1, msg));
      GS_TRY(resident_updates(w, j, 0, j, 1, msg));
    }
done:
  return st;
}

gs_status gs_tile_resident_apply_device(const gs_tile_matrix *m, gs_gpu_ctx *c, int what, double *b, int cols,
                                        double *fp64, char *msg)
{
  const resident_block w = {m, c, b, cols, fp64};
  return resident_block_apply(&w, what, msg);
}

extern "C" gs_status gs_tile_resident_apply(const gs_tile_matrix *m, int what, double *b, long k, char *msg)
{
  gs_status st = GS_OK;
  const size_t column = (size_t)m->n * sizeof(double), tile = (size_t)m->nb * m->nb * sizeof(double);
  long per_block = (long)(RESIDENT_BLOCK_BYTES / column);
  gs_gpu_ctx *c = NULL;
  void *work = NULL;
  if (what < GS_TILE_FORWARD || what > GS_TILE_MULTIPLY || k < 0 || m->n > 2147483647L)
    return gs_set_msg(msg, GS_ERR_ARG, "bad gs_tile_resident_apply call");
  if (per_block < 1) per_block = 1;
  if (per_block > k) per_block = k;
  GS_TRY(gs_gpu_ctx_get(m->resident->device, &c, msg));
  GS_TRY(gs_gpu_ctx_solvers(c, msg));
  GS_TRY(gs_gpu_ctx_workspace(c, (size_t)per_block * column + tile, &work, msg));
  {
    double *fp64 = (double *)work, *rhs = (double *)((char *)work + tile);
    for (long c0 = 0; c0 < k; c0 += per_block) {
      const int cols = (int)(k - c0 < per_block ? k - c0 : per_block);
      GS_TRY(gs_gpu_copy_to_device(c, rhs, b + (size_t)c0 * m->n, (size_t)cols * column, 0, msg));
      GS_TRY(gs_tile_resident_apply_device(m, c, what, rhs, cols, fp64, msg));
      GS_TRY(gs_gpu_copy_to_host(c, b + (size_t)c0 * m->n, rhs, (size_t)cols * column, 0, msg));
    }
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  cudaGetLastError();
  return st;
}

extern "C" gs_status gs_tile_resident_low_sumsq(const gs_tile_matrix *m, const unsigned char *which, double *sumsq,
                                                char *msg)
{
  gs_status st = GS_OK;
  const long ntiles = gs_tile_count(m->nt);
  gs_gpu_ctx *c = NULL;
  void *work = NULL;
  double *norms = (double *)malloc((size_t)ntiles * 2 * sizeof(double));
  if (!norms) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  GS_TRY(gs_gpu_ctx_get(m->resident->device, &c, msg));
  GS_TRY(gs_gpu_ctx_workspace(c, (size_t)(2 * TILE_NORM_BLOCKS + 2 * ntiles) * sizeof(double), &work, msg));
  {
    double *part = (double *)work, *out = part + 2 * TILE_NORM_BLOCKS;
    GS_CUDA_TRY(cudaMemsetAsync(out, 0, (size_t)ntiles * 2 * sizeof(double), c->stream[0]));
    for (long t = 0; t < ntiles; ++t) {
      if (which[t] == GS_TILE_FP64) continue;
      int i, j;
      gs_tile_coords(t, &i, &j);
      GS_CUDA_TRY(tile_norm(resident_tile_at(m, t), tile_device_format(m->precision[t]), m->scale[t],
                            (size_t)gs_tile_rows(m, i) * gs_tile_rows(m, j), part, out + 2 * t, c->stream[0]));
    }
    GS_CUDA_TRY(cudaMemcpyAsync(norms, out, (size_t)ntiles * 2 * sizeof(double), cudaMemcpyDeviceToHost,
                                c->stream[0]));
    GS_CUDA_TRY(cudaStreamSynchronize(c->stream[0]));
  }
  for (long t = 0; t < ntiles; ++t) sumsq[t] = norms[2 * t];
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  cudaGetLastError();
  free(norms);
  return st;
}
