/* Tile movement: a tile's initial value into its slot (generated from a
 * Matérn source on the device, or copied from host memory in its format),
 * finished tiles to and from host memory, and the per-tile norms of a
 * Matérn source for the precision map. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tile_run.cuh"

/* The generator's arguments for tile (i, j), from those of the whole matrix
 * and the device locations grouped by tile row (gs_tile_locs_blocked). */
matern_tile_args tile_matern_args(const matern_tile_args *whole, const gs_tile_matrix *m, const double *locs,
                                       int dim, int i, int j, int lower_only)
{
  const size_t block = (size_t)m->nb * dim;
  matern_tile_args g = *whole;
  g.sym = (i == j);
  g.lower_only = g.sym && lower_only;
  g.locs1 = locs + (size_t)i * block;
  g.locs2 = locs + (size_t)j * block;
  g.n1 = gs_tile_rows(m, i);
  g.n2 = gs_tile_rows(m, j);
  return g;
}

/* A_ij of a Matérn source, generated in dst on stream q. */
static cudaError_t load_generate(tile_run *r, int q, int i, int j, double *dst)
{
  const matern_tile_args g = tile_matern_args(&r->gen, r->m, r->locs, r->src->dim, i, j, 1);
  return matern_tile_launch(&g, 0, g.n2, dst, run_stream(r, q));
}

/* A tile's initial value into slot s: generated, or copied in its format;
 * a tile that is not FP64 is then converted to its FP32 accumulator (an
 * FP16 one through its format, as the host would have stored it). */
static cudaError_t load_initial(tile_run *r, int q, int t, int s, int generate)
{
  const gs_tile_matrix *m = r->m;
  const int p = m->precision[t];
  const size_t count = tile_entries(m, t);
  char *slot = (char *)slot_ptr(r, s), *upper = slot + count * sizeof(float);
  int i, j;
  cudaError_t err;
  gs_tile_coords(t, &i, &j);
  if (p == GS_TILE_FP64) {
    if (generate) return load_generate(r, q, i, j, (double *)slot);
    return gs_host_pages_copy(m->pages, m->offset[t], slot, gs_tile_bytes(m, t), cudaMemcpyHostToDevice,
                              run_stream(r, q));
  }
  if (generate) {
    double *values = scratch_ptr(r, q);
    if ((err = load_generate(r, q, i, j, values)) != cudaSuccess) return err;
    if (p == GS_TILE_FP32)
      return tile_convert(values, GS_TILE_FP64, 1.0f, slot, GS_TILE_FP32, 1.0f, count, r->overflow + t,
                          run_stream(r, q));
    if ((err = tile_convert(values, GS_TILE_FP64, 1.0f, upper, p, m->scale[t], count, r->overflow + t,
                            run_stream(r, q))) != cudaSuccess)
      return err;
  } else {
    err = gs_host_pages_copy(m->pages, m->offset[t], p == GS_TILE_FP32 ? slot : upper, gs_tile_bytes(m, t),
                             cudaMemcpyHostToDevice, run_stream(r, q));
    if (err != cudaSuccess || p == GS_TILE_FP32) return err;
  }
  return tile_convert(upper, p, m->scale[t], slot, GS_TILE_FP32, 1.0f, count, r->overflow + t, run_stream(r, q));
}

/* The inverse of another device's diagonal tile L_kk, just loaded into slot
 * s, for this device's solves of column k: computed on the diagonal stream,
 * which has no factorization of its own in that column; the tile is ready
 * for the solves once it is. */
static gs_status foreign_diagonal_invert(tile_run *r, int k, int s, char *msg)
{
  gs_status st = GS_OK;
  const int q = GS_TILE_STREAM_DIAGONAL, t = (int)gs_tile_index(k, k), rk = gs_tile_rows(r->m, k);
  GS_CUDA_TRY(tile_wait(r, q, t));
  GS_TRY(tile_diagonal_invert(r, q, k, slot_ptr(r, s), msg));
  if (r->inverse32)
    GS_CUDA_TRY(tile_convert(inverse_ptr(r, k), GS_TILE_FP64, 1.0f, inverse32_ptr(r, k), GS_TILE_FP32, 1.0f,
                             (size_t)rk * rk, r->overflow + t, run_stream(r, q)));
  GS_CUDA_TRY(tile_ready(r, q, t));
  GS_CUDA_TRY(slot_use(r, q, s));
done:
  return st;
}

/* A finished tile from the host into slot s, in its device format. */
static cudaError_t load_final(tile_run *r, int q, int t, int s)
{
  const gs_tile_matrix *m = r->m;
  const int p = m->precision[t];
  const size_t count = tile_entries(m, t);
  void *slot = slot_ptr(r, s), *bytes = tile_transfer_ptr(slot, p, count);
  cudaError_t err = gs_host_pages_copy(m->pages, m->offset[t], bytes, gs_tile_bytes(m, t), cudaMemcpyHostToDevice,
                                       run_stream(r, q));
  if (err != cudaSuccess || bytes == slot) return err;
  return tile_convert(bytes, p, m->scale[t], slot, tile_device_format(p), m->scale[t], count, NULL, run_stream(r, q));
}

gs_status tile_op_load(tile_run *r, const tile_op *op, char *msg)
{
  gs_status st = GS_OK;
  const int t = op->tile[0], s = op->slot[0];
  const int generate = !r->shared->final[t] && !r->src->a;
  const int q = generate ? op->worker : (int)TILE_H2D;
  int i, j;
  gs_tile_coords(t, &i, &j);
  GS_CUDA_TRY(slot_claim(r, q, s));
  if (r->shared->final[t]) GS_CUDA_TRY(cudaStreamWaitEvent(run_stream(r, q), r->shared->stored[t], 0));
  GS_CUDA_TRY(tile_trace_mark(r, q, 0));
  if (r->shared->final[t])
    GS_CUDA_TRY(load_final(r, q, t, s));
  else
    GS_CUDA_TRY(load_initial(r, q, t, s, generate));
  if (!generate) r->info->bytes_to_device += (double)gs_tile_bytes(r->m, t);
  GS_CUDA_TRY(tile_trace_mark(r, q, 1));
  GS_CUDA_TRY(tile_ready(r, q, t));
  GS_CUDA_TRY(slot_use(r, q, s));
  r->info->tile_loads++;
  if (i == j && tile_row_owner(i, r->m->nt, r->owners) != r->owner && i != r->inverted) { /* once: a reload must not rewrite it under a solve */
    GS_TRY(foreign_diagonal_invert(r, i, s, msg));
    r->inverted = i;
  }
done:
  return st;
}

gs_status tile_op_store(tile_run *r, const tile_op *op, char *msg)
{
  gs_status st = GS_OK;
  const int t = op->tile[0], s = op->slot[0], q = TILE_D2H;
  if (!r->store) return GS_OK;
  GS_CUDA_TRY(tile_wait(r, q, t));
  GS_CUDA_TRY(tile_trace_mark(r, q, 0));
  GS_CUDA_TRY(gs_host_pages_copy(r->m->pages, r->m->offset[t],
                                 tile_transfer_ptr(slot_ptr(r, s), r->m->precision[t], tile_entries(r->m, t)),
                                 gs_tile_bytes(r->m, t), cudaMemcpyDeviceToHost, run_stream(r, q)));
  GS_CUDA_TRY(tile_trace_mark(r, q, 1));
  GS_CUDA_TRY(event_record(&r->shared->stored[t], run_stream(r, q)));
  GS_CUDA_TRY(slot_use(r, q, s));
  r->info->bytes_to_host += (double)gs_tile_bytes(r->m, t);
done:
  return st;
}

extern "C" gs_status gs_tile_norms_gpu(int device, const gs_tile_matrix *m, const gs_tile_source *src, double *sumsq,
                                       double *max_abs, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  const long ntiles = gs_tile_count(m->nt);
  double *locs = NULL, *tile = NULL, *part = NULL, *out = NULL, *host = NULL, *blocks = NULL;
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  if (!(blocks = gs_tile_locs_blocked(m, src)) || !(host = (double *)malloc((size_t)ntiles * 2 * sizeof(double)))) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto done;
  }
  GS_CUDA_TRY(cudaMalloc(&locs, (size_t)m->n * src->dim * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&tile, (size_t)m->nb * m->nb * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&part, 2 * TILE_NORM_BLOCKS * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&out, (size_t)ntiles * 2 * sizeof(double)));
  GS_TRY(gs_gpu_copy_to_device(c, locs, blocks, (size_t)m->n * src->dim * sizeof(double), 0, msg));
  {
    const gs_matern_cov_args a = gs_matern_cov_self(NULL, m->n, src->dim, &src->model, NULL);
    const matern_tile_args base = matern_tile_setup(&a, locs, NULL);
    cudaStream_t s = c->stream[0];
    for (long t = 0; t < ntiles; ++t) {
      int i, j;
      gs_tile_coords(t, &i, &j);
      const matern_tile_args g = tile_matern_args(&base, m, locs, src->dim, i, j, 0); /* both triangles count */
      GS_CUDA_TRY(matern_tile_launch(&g, 0, g.n2, tile, s));
      GS_CUDA_TRY(tile_norm(tile, GS_TILE_FP64, 1.0f, (size_t)g.n1 * g.n2, part, out + 2 * t, s));
    }
    GS_CUDA_TRY(cudaMemcpyAsync(host, out, (size_t)ntiles * 2 * sizeof(double), cudaMemcpyDeviceToHost, s));
    GS_CUDA_TRY(cudaStreamSynchronize(s));
  }
  for (long t = 0; t < ntiles; ++t) {
    sumsq[t] = host[2 * t];
    max_abs[t] = host[2 * t + 1];
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  cudaFree(locs);
  cudaFree(tile);
  cudaFree(part);
  cudaFree(out);
  free(host);
  free(blocks);
  cudaGetLastError();
  return st;
}
