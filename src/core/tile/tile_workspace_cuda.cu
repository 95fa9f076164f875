/* A device's memory for a tile Cholesky: the tile cache (slots), the
 * per-stream workspaces, the inverses, the events, and the factor that stays
 * resident in device memory after the run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tile_run.cuh"

/* As many slots as the free memory holds, at most one per tile. A cache
 * that becomes the resident factor (`resident` and every tile fits) has
 * memory of its own; any other is the device context's workspace, which the
 * next factorization reuses (workspace_is_cache) instead of allocating and
 * freeing tens of GB again. */
static gs_status slots_fit(tile_run *r, const gs_tile_options *opt, int resident, int *slots, char *msg)
{
  gs_status st = GS_OK;
  const size_t bytes = (size_t)r->m->nb * r->m->nb * sizeof(double);
  const long ntiles = gs_tile_count(r->m->nt);
  size_t free_b = 0;
  GS_TRY(gs_gpu_ctx_free_memory(r->c, &free_b, msg)); /* the workspace counts as free */
  {
    double fit = (double)gs_gpu_budget(free_b) / (double)bytes;
    long n = fit < (double)ntiles ? (long)fit : ntiles;
    /* an update needs three tiles at once; a matrix of one tile, one */
    const long least = ntiles < 3 ? ntiles : 3;
    if (opt->cache_tiles > 0 && opt->cache_tiles < n) n = opt->cache_tiles;
    for (; n >= least; n = n == least ? 0 : (n * 9 / 10 > least ? n * 9 / 10 : least)) {
      const int own = resident && n == ntiles;
      void *p = NULL;
      if (own) gs_gpu_ctx_workspace_release(r->c);
      if (own ? cudaMalloc(&p, (size_t)n * bytes) == cudaSuccess
              : gs_gpu_ctx_workspace(r->c, (size_t)n * bytes, &p, msg) == GS_OK) {
        r->slots = (double *)p;
        r->slots_shared = !own;
        break;
      }
      cudaGetLastError();
    }
    if (!r->slots)
      return gs_set_msg(msg, GS_ERR_NOMEM, "GPU %d has %.1f GB free, too little for %ld %d x %d tiles", r->c->device,
                        free_b / 1e9, least, r->m->nb, r->m->nb);
    *slots = (int)n;
  }
done:
  return st;
}

/* Tile slots: as many as the free memory holds, at most one per tile; or
 * the memory of the resident factor again. L stays resident when
 * opt->resident asks for it and every tile has a slot; otherwise it goes
 * to host memory. */
static int slots_resident(const tile_run *r, const gs_tile_options *opt)
{
  return opt->resident && r->owners == 1; /* several devices share their tiles through the host */
}

static gs_status slots_alloc(tile_run *r, const gs_tile_options *opt, int *slots, char *msg)
{
  gs_status st = GS_OK;
  gs_tile_matrix *m = r->m;
  const int resident = slots_resident(r, opt);
  if (m->resident && resident && m->resident->device == r->c->device) {
    r->slots = (double *)m->resident->tiles;
    *slots = (int)gs_tile_count(m->nt);
    r->store = 0;
    return GS_OK;
  }
  gs_tile_resident_free(m); /* its memory goes to the cache */
  GS_TRY(slots_fit(r, opt, resident, slots, msg));
  r->store = !(resident && *slots == gs_tile_count(m->nt));
  if (r->store) GS_TRY(gs_tile_matrix_host_ahead(m, msg));
done:
  return st;
}

/* The workspace of an earlier run is this run's cache again when it holds
 * whole tiles of this size, no more than the run wants, and the memory
 * beside it has room for what tile_run_setup allocates before the cache (the
 * reserve, the inverses and the per-stream scratch and operand tiles).
 * Out of core the cache takes nearly all the device memory: releasing and
 * allocating it again cost 0.5 s per factorization and per device. Any
 * other workspace is released: the tiles need the room (a cache that
 * becomes the resident factor releases it in slots_fit). */
static int workspace_is_cache(const tile_run *r, long wanted, char *msg)
{
  const size_t tile_size = (size_t)r->m->nb * r->m->nb * sizeof(double), work = r->c->work_bytes;
  size_t free_b = 0;
  if (!work || work % tile_size || work > (size_t)wanted * tile_size) return 0;
  if (gs_gpu_ctx_free_memory(r->c, &free_b, msg) != GS_OK) return 0;
  return gs_gpu_budget(free_b - work) >= (3 * GS_TILE_COMPUTE + 2 * (TILE_LAG + 1)) * tile_size;
}

gs_status tile_run_setup(tile_run *r, const gs_tile_options *opt, char *msg)
{
  gs_status st = GS_OK;
  gs_tile_matrix *m = r->m;
  const long ntiles = gs_tile_count(m->nt);
  const size_t tile_size = (size_t)m->nb * m->nb * sizeof(double);
  int slots = 0;
  const long wanted = opt->cache_tiles > 0 && opt->cache_tiles < ntiles ? opt->cache_tiles : ntiles;
  if (!workspace_is_cache(r, wanted, msg)) gs_gpu_ctx_workspace_release(r->c);
  GS_TRY(gs_cusolver_status(cusolverDnXpotrf_bufferSize(r->td->solver[0], r->c->solver_params,
                                                        CUBLAS_FILL_MODE_LOWER, m->nb, CUDA_R_64F, NULL, m->nb,
                                                        CUDA_R_64F, &r->potrf_bytes, &r->potrf_host_bytes),
                            "cusolverDnXpotrf_bufferSize", msg));
  GS_TRY(gs_cusolver_status(cusolverDnXtrtri_bufferSize(r->td->solver[0], CUBLAS_FILL_MODE_LOWER,
                                                        CUBLAS_DIAG_NON_UNIT, INVERSE_LEAF, CUDA_R_64F, NULL, m->nb,
                                                        &r->trtri_bytes, &r->trtri_host_bytes),
                            "cusolverDnXtrtri_bufferSize", msg));
  GS_TRY(tile_gemm_setup(r->td->lt, m->nb, &r->gemm, msg));
  GS_CUDA_TRY(cudaMalloc(&r->inverse, (size_t)(TILE_LAG + 1) * tile_size));
  GS_CUDA_TRY(cudaMalloc(&r->scratch, (size_t)GS_TILE_COMPUTE * tile_size));
  GS_CUDA_TRY(cudaMalloc(&r->trtri_info, GS_TILE_COMPUTE * sizeof(int)));
  for (int w = 0; w < GS_TILE_COMPUTE; ++w) {
    GS_CUDA_TRY(cudaMalloc(&r->potrf_work[w], r->potrf_bytes ? r->potrf_bytes : 1));
    GS_CUDA_TRY(cudaMalloc(&r->trtri_work[w], r->trtri_bytes ? r->trtri_bytes : 1));
    if (!(r->potrf_host[w] = malloc(r->potrf_host_bytes ? r->potrf_host_bytes : 1)) ||
        !(r->trtri_host[w] = malloc(r->trtri_host_bytes ? r->trtri_host_bytes : 1)))
      return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    for (int k = 0; k <= TILE_LAG; ++k)
      GS_CUDA_TRY(cudaEventCreateWithFlags(&r->column_done[k][w], cudaEventDisableTiming));
  }
  if (m->low_tiles) {
    for (int w = 0; w < GS_TILE_COMPUTE; ++w) GS_CUDA_TRY(cudaMalloc(&r->operand[w], 2 * tile_size));
    GS_CUDA_TRY(cudaMalloc(&r->inverse32, (size_t)(TILE_LAG + 1) * tile_size / 2));
    GS_CUDA_TRY(cudaMalloc(&r->overflow, (size_t)ntiles));
    GS_CUDA_TRY(cudaMemset(r->overflow, 0, (size_t)ntiles));
  }
  GS_CUDA_TRY(cudaMalloc(&r->info_dev, (size_t)m->nt * sizeof(int)));
  GS_CUDA_TRY(cudaMemset(r->info_dev, 0, (size_t)m->nt * sizeof(int)));
  GS_CUDA_TRY(cudaHostAlloc(&r->info_host, (size_t)m->nt * sizeof(int), cudaHostAllocDefault));
  memset(r->info_host, 0, (size_t)m->nt * sizeof(int));
  if (!r->src->a) {
    const gs_tile_source *src = r->src;
    const size_t bytes = (size_t)m->n * src->dim * sizeof(double);
    double *blocks = gs_tile_locs_blocked(m, src);
    if (!blocks) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    st = cudaMalloc(&r->locs, bytes) == cudaSuccess ? gs_gpu_copy_to_device(r->c, r->locs, blocks, bytes, 0, msg)
                                                    : gs_set_msg(msg, GS_ERR_NOMEM, "out of GPU memory");
    if (st == GS_OK && cudaStreamSynchronize(r->c->stream[0]) != cudaSuccess)
      st = gs_set_msg(msg, GS_ERR_CUDA, "copying the locations to GPU %d failed", r->c->device);
    free(blocks);
    if (st != GS_OK) goto done;
    const gs_matern_cov_args a = gs_matern_cov_self(NULL, m->n, src->dim, &src->model, NULL);
    r->gen = matern_tile_setup(&a, r->locs, NULL);
  }
  GS_TRY(slots_alloc(r, opt, &slots, msg));
  GS_TRY(tile_plan_build(m->nt, GS_TILE_WORKERS, slots, r->owners, r->owner, &r->plan, msg));
  r->slot_used = (cudaEvent_t *)calloc((size_t)slots * TILE_STREAMS, sizeof(cudaEvent_t));
  r->slot_users = (unsigned *)calloc((size_t)slots, sizeof(unsigned));
  r->ready = (cudaEvent_t *)calloc((size_t)ntiles, sizeof(cudaEvent_t));
  r->ready_on = (signed char *)malloc((size_t)ntiles);
  if (!r->slot_used || !r->slot_users || !r->ready || !r->ready_on)
    return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  memset(r->ready_on, -1, (size_t)ntiles);
  if (opt->trace) {
    r->trace = (cudaEvent_t *)calloc((size_t)r->plan.nops * 2, sizeof(cudaEvent_t));
    r->trace_on = (signed char *)calloc((size_t)r->plan.nops, 1);
    if (!r->trace || !r->trace_on) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for the trace");
    GS_CUDA_TRY(cudaEventCreate(&r->trace_origin));
  }
  r->info->cache_tiles = slots;
  r->info->workers = GS_TILE_COMPUTE;
done:
  return st;
}

void tile_run_release(tile_run *r)
{
  const long ntiles = gs_tile_count(r->m->nt);
  if (r->c) {
    cudaSetDevice(r->c->device);
    for (int q = 0; q < TILE_STREAMS; ++q)
      if (r->td->stream[q]) cudaStreamSynchronize(r->td->stream[q]);
  }
  if (r->slot_used)
    for (long e = 0; e < (long)r->plan.slots * TILE_STREAMS; ++e)
      if (r->slot_used[e]) cudaEventDestroy(r->slot_used[e]);
  for (long t = 0; t < ntiles; ++t)
    if (r->ready && r->ready[t]) cudaEventDestroy(r->ready[t]);
  if (r->trace)
    for (long e = 0; e < 2 * r->plan.nops; ++e)
      if (r->trace[e]) cudaEventDestroy(r->trace[e]);
  if (r->trace_origin) cudaEventDestroy(r->trace_origin);
  free(r->trace);
  free(r->trace_on);
  for (int w = 0; w < GS_TILE_COMPUTE; ++w) {
    cudaFree(r->potrf_work[w]);
    free(r->potrf_host[w]);
    cudaFree(r->trtri_work[w]);
    free(r->trtri_host[w]);
    for (int k = 0; k <= TILE_LAG; ++k)
      if (r->column_done[k][w]) cudaEventDestroy(r->column_done[k][w]);
  }
  if (!r->slots_shared) cudaFree(r->slots);
  for (int w = 0; w < GS_TILE_COMPUTE; ++w) cudaFree(r->operand[w]);
  cudaFree(r->inverse32);
  cudaFree(r->overflow);
  cudaFree(r->inverse);
  cudaFree(r->scratch);
  cudaFree(r->trtri_info);
  cudaFree(r->info_dev);
  cudaFree(r->locs);
  if (r->info_host) cudaFreeHost(r->info_host);
  free(r->slot_used);
  free(r->slot_users);
  free(r->ready);
  free(r->ready_on);
  tile_gemm_free(&r->gemm);
  tile_plan_free(&r->plan);
  cudaGetLastError();
}

/* A run that kept L on the device hands its slots to m->resident, where the
 * next run finds them again. */
gs_status tile_resident_adopt(tile_run *r, char *msg)
{
  gs_tile_matrix *m = r->m;
  if (!m->resident) {
    gs_tile_resident *res = (gs_tile_resident *)calloc(1, sizeof *res);
    if (res) {
      res->slot = (int *)malloc((size_t)gs_tile_count(m->nt) * sizeof(int));
      res->diagonal = (double *)malloc((size_t)m->n * sizeof(double));
    }
    if (!res || !res->slot || !res->diagonal) {
      if (res) {
        free(res->slot);
        free(res->diagonal);
        free(res);
      }
      return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory"); /* the run frees the slots */
    }
    res->device = r->c->device;
    res->tiles = r->slots;
    m->resident = res;
  }
  r->slots = NULL;
  return GS_OK;
}

/* After a resident run: where each tile is (the cache held every tile, so
 * each sits where it was loaded), and the diagonal of L on the host. */
gs_status tile_resident_finish(tile_run *r, char *msg)
{
  gs_status st = GS_OK;
  gs_tile_matrix *m = r->m;
  gs_tile_resident *res = m->resident;
  for (long p = 0; p < r->plan.nops; ++p)
    if (r->plan.ops[p].kind == TILE_OP_LOAD) res->slot[r->plan.ops[p].tile[0]] = r->plan.ops[p].slot[0];
  for (int k = 0; k < m->nt; ++k) {
    const int rk = gs_tile_rows(m, k);
    const double *d = (const double *)res->tiles + (size_t)res->slot[gs_tile_index(k, k)] * m->nb * m->nb;
    GS_CUDA_TRY(cudaMemcpy2DAsync(res->diagonal + (size_t)k * m->nb, sizeof(double), d, (rk + 1) * sizeof(double),
                                  sizeof(double), rk, cudaMemcpyDeviceToHost, run_stream(r, 0)));
  }
  GS_CUDA_TRY(cudaStreamSynchronize(run_stream(r, 0)));
done:
  return st;
}
