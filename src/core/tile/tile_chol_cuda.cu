/* The tile Cholesky on one GPU: the ops of the plan (tile_plan.h) are issued
 * in order, asynchronously, to GS_TILE_WORKERS compute streams for the tiles
 * below the diagonal, one high-priority stream for the diagonal and one copy
 * stream per direction. CUDA events carry the dependencies between streams:
 *   - a tile's `ready` event: its data in its slot is valid (loaded,
 *     generated, updated or finished), so that an accumulator can pass from
 *     one stream to another;
 *   - a slot's `used` event per stream: that stream's last op on the slot,
 *     waited for before the slot takes another tile;
 *   - a tile's `stored` event: its copy to the host is complete, waited for
 *     before the tile is loaded again.
 * Every wait refers to work issued earlier, so the streams cannot deadlock.
 * The host stays at most TILE_LAG columns ahead of the device, so progress,
 * an interrupt and a failed POTRF are seen within a few columns.
 *
 * Several GPUs: the tile rows are dealt cyclically to them (tile_row_owner),
 * each with its own plan, cache and streams (a tile_run), and every finished tile goes to
 * host memory. A device reads another's tiles from there once their
 * `stored` event (shared, recorded on the owner's copy stream) has passed:
 * the host issues column k to the owner of tile row k first, so every such
 * event is recorded before it is waited for.
 *
 * Mixed precision: a slot holds its tile in the tile's device format
 * (tile_device_format: FP8 tiles as FP16) once the tile is finished (and
 * while it is loaded as an operand); a tile that is not FP64 accumulates in
 * FP32. An update c -= a b' of a tile that is not FP64 runs in the lowest
 * precision of its three tiles, FP16 at the lowest (SGEMM, or FP16
 * tensor-core products with FP32 sums). An FP64 tile is updated by DGEMM
 * (DSYRK on the diagonal), or on the tensor cores when both its operands
 * are FP16 or FP8: the product of two FP16 values is exact in FP32, so only
 * the FP32 sums round, by less than the operands' own rounding, and the
 * product is subtracted from the tile in FP64.
 * The product of a low operand already carries that operand's rounding,
 * u_low ||a|| ||b||, so rounding the other operand to the same format at
 * most doubles the product's error, while far-off-diagonal operands make
 * most updates of the FP32 tiles near the diagonal FP16 products. Operands
 * in another format are converted into a per-stream buffer; FP16 and FP8
 * operands carry their tile's scale, undone by the product's alpha. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tile_run.cuh"

static gs_status op_issue(tile_run *r, const tile_op *op, char *msg)
{
  if (op->kind == TILE_OP_LOAD) return tile_op_load(r, op, msg);
  if (op->kind == TILE_OP_STORE) return tile_op_store(r, op, msg);
  return tile_op_compute(r, op, msg);
}

/* Waits for column k; a failed POTRF and an interrupt stop the run. */
static gs_status column_wait(tile_run *r, int k, const gs_tile_options *opt, char *msg)
{
  gs_status st = GS_OK;
  const int nt = r->m->nt;
  for (int w = 0; w < GS_TILE_COMPUTE; ++w) GS_CUDA_TRY(cudaEventSynchronize(r->column_done[k % (TILE_LAG + 1)][w]));
  if (r->info_host[k] > 0) {
    r->info->failed_minor = (long)k * r->m->nb + r->info_host[k];
    return gs_set_msg(msg, GS_ERR_NOT_PD, "the leading minor of order %ld is not positive", r->info->failed_minor);
  }
  if (opt->progress && r->owner == 0 && k + 1 < nt) { /* one report per column */
    const double left = (double)(nt - k - 1) / nt;
    if (opt->progress(1.0 - left * left * left)) return gs_interrupted(msg);
  }
done:
  return st;
}

/* Issues the ops of column k on run r's device. */
static gs_status column_issue(tile_run *r, int k, long *p, char *msg)
{
  gs_status st = GS_OK;
  GS_CUDA_TRY(cudaSetDevice(r->c->device));
  for (; *p < r->plan.column_end[k]; ++*p) {
    r->op = *p;
    GS_TRY(op_issue(r, &r->plan.ops[*p], msg));
  }
  for (int w = 0; w < GS_TILE_COMPUTE; ++w)
    GS_CUDA_TRY(cudaEventRecord(r->column_done[k % (TILE_LAG + 1)][w], run_stream(r, w)));
done:
  return st;
}

/* The overflow flags of a mixed-precision run, into those of m. */
static gs_status overflow_collect(tile_run *r, char *msg)
{
  const long ntiles = gs_tile_count(r->m->nt);
  unsigned char *flags = (unsigned char *)malloc((size_t)ntiles);
  if (!flags) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  cudaSetDevice(r->c->device);
  for (int q = 0; q < TILE_STREAMS; ++q) cudaStreamSynchronize(run_stream(r, q));
  const int ok = cudaMemcpy(flags, r->overflow, (size_t)ntiles, cudaMemcpyDeviceToHost) == cudaSuccess;
  if (ok)
    for (long t = 0; t < ntiles; ++t) r->m->overflow[t] |= flags[t];
  free(flags);
  return ok ? GS_OK : gs_set_msg(msg, GS_ERR_CUDA, "reading the overflow flags from GPU %d failed", r->c->device);
}

/* After the runs: the overflow flags, the resident factor (one device), the
 * devices' memory released, and their counts summed into info. */
static gs_status runs_finish(tile_run *runs, int ndev, gs_tile_info *infos, gs_status st, gs_tile_info *info,
                             char *msg)
{
  gs_tile_matrix *m = runs[0].m;
  for (int g = 0; g < ndev; ++g) {
    tile_run *r = &runs[g];
    if (!r->m) continue; /* the shared state could not be allocated */
    if (r->overflow && (st == GS_OK || st == GS_ERR_NOT_PD)) { /* the caller promotes the tiles that overflowed */
      const gs_status read = overflow_collect(r, msg);
      if (read != GS_OK) st = read;
    }
    if (r->slots && !r->store) { /* a failed run, an interrupt included, frees the device memory */
      for (int q = 0; q < TILE_STREAMS; ++q) cudaStreamSynchronize(run_stream(r, q));
      if (st == GS_OK) st = tile_resident_adopt(r, msg);
      if (st == GS_OK) st = tile_resident_finish(r, msg);
      if (st != GS_OK && m->resident) {
        r->slots = NULL; /* they are m->resident's */
        gs_tile_resident_free(m);
      }
    }
    tile_run_release(r);
    if (st != GS_OK && r->c && cudaSetDevice(r->c->device) == cudaSuccess)
      gs_gpu_ctx_workspace_release(r->c); /* a failed run, an interrupt included, keeps no cache */
  }
  for (int g = 0; g < ndev; ++g) {
    if (infos[g].failed_minor) info->failed_minor = infos[g].failed_minor;
    info->bytes_to_device += infos[g].bytes_to_device;
    info->bytes_to_host += infos[g].bytes_to_host;
    info->tile_loads += infos[g].tile_loads;
    info->cache_tiles += infos[g].cache_tiles;
    info->workers += infos[g].workers;
  }
  return st;
}

/* The factorization on the devices of opt (or `device` alone): L to the
 * host, or resident in device memory (opt->resident, one device, when it
 * fits). */
extern "C" gs_status gs_tile_chol_gpu(int device, gs_tile_matrix *m, const gs_tile_source *src,
                                      const gs_tile_options *opt, gs_tile_info *info, char *msg)
{
  gs_status st = GS_OK;
  const int ndev = opt->ngpus > 1 ? opt->ngpus : 1;
  const long ntiles = gs_tile_count(m->nt);
  tile_run runs[GS_TILE_MAX_GPUS];
  gs_tile_info infos[GS_TILE_MAX_GPUS];
  tile_shared shared = {NULL, NULL};
  memset(runs, 0, sizeof runs);
  memset(infos, 0, sizeof infos);
  if (ndev > GS_TILE_MAX_GPUS)
    return gs_set_msg(msg, GS_ERR_ARG, "a factorization runs on 1 to %d GPUs", GS_TILE_MAX_GPUS);
  for (int g = 1; g < ndev; ++g)
    for (int h = 0; h < g; ++h)
      if (opt->gpus[g] == opt->gpus[h]) return gs_set_msg(msg, GS_ERR_ARG, "GPU %d is named twice", opt->gpus[g]);
  shared.final = (unsigned char *)calloc((size_t)ntiles, 1);
  shared.stored = (cudaEvent_t *)calloc((size_t)ntiles, sizeof(cudaEvent_t));
  if (!shared.final || !shared.stored) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto done;
  }
  for (int g = 0; g < ndev; ++g) {
    runs[g].shared = &shared;
    runs[g].owner = g;
    runs[g].owners = ndev;
    runs[g].m = m;
    runs[g].src = src;
    runs[g].info = &infos[g];
    runs[g].inverted = -1;
  }
  for (int g = 0; g < ndev; ++g) {
    GS_TRY(gs_gpu_ctx_get(ndev > 1 ? opt->gpus[g] : device, &runs[g].c, msg));
    GS_TRY(tile_device_get(runs[g].c, &runs[g].td, msg));
    GS_TRY(tile_run_setup(&runs[g], opt, msg));
  }
  for (int g = 0; g < ndev && opt->trace; ++g) { /* the devices are idle: their origins are simultaneous */
    GS_CUDA_TRY(cudaSetDevice(runs[g].c->device));
    GS_CUDA_TRY(cudaEventRecord(runs[g].trace_origin, run_stream(&runs[g], 0)));
  }
  {
    long p[GS_TILE_MAX_GPUS] = {0};
    int waited = 0;
    for (int k = 0; k < m->nt; ++k) {
      for (int q = 0; q < ndev; ++q) { /* the owner of row k first: the others read its tiles */
        const int g = (tile_row_owner(k, m->nt, ndev) + q) % ndev;
        GS_TRY(column_issue(&runs[g], k, &p[g], msg));
      }
      for (; waited <= k - TILE_LAG; ++waited)
        for (int g = 0; g < ndev; ++g) GS_TRY(column_wait(&runs[g], waited, opt, msg));
    }
    for (; waited < m->nt; ++waited)
      for (int g = 0; g < ndev; ++g) GS_TRY(column_wait(&runs[g], waited, opt, msg));
    for (int g = 0; g < ndev; ++g) {
      GS_CUDA_TRY(cudaSetDevice(runs[g].c->device));
      for (int q = 0; q < TILE_STREAMS; ++q) GS_CUDA_TRY(cudaStreamSynchronize(run_stream(&runs[g], q)));
      GS_CUDA_TRY(cudaGetLastError());
    }
    if (opt->trace) GS_TRY(tile_trace_collect(runs, ndev, info, msg));
  }
done:
  st = runs_finish(runs, ndev, infos, st, info, msg);
  if (m->pages) gs_host_pages_settle(m->pages);
  if (shared.stored)
    for (long t = 0; t < ntiles; ++t)
      if (shared.stored[t]) cudaEventDestroy(shared.stored[t]);
  free(shared.final);
  free(shared.stored);
  return st;
}
