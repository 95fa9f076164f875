/* GBEES on a GPU. The grid lives on the device in the layout of the host
 * (gbees_cells) and every step runs the arithmetic of gbees_math.h, so the
 * GPU follows the CPU path cell for cell:
 *
 * - Growth lists each significant cell's growth targets at offsets from a
 *   scan over the cells, drops those already in the grid, and keeps the
 *   first listing of every new key (a second hash table with atomicMin on
 *   the listing index). A scan over the kept listings numbers the new cells
 *   in the order in which the CPU appends them. Nothing is committed when
 *   the arrays are too small: they are enlarged and growth is repeated.
 * - Sums (mass, normalization) and the largest CFL rate are reduced in block
 *   order over a number of blocks set by the array size, so results do not
 *   depend on timing.
 * - Pruning sorts the candidates by probability (a stable radix sort, ties in
 *   cell order as on the CPU), finds the removable prefix from the running
 *   sum, compacts the kept cells into a spare set and copies them back.
 * - A step is one CUDA graph, growth and the update, whose kernels read the
 *   cell count from the device; dt is chosen there too, and the step count.
 *   The host launches the steps up to the next prune and waits once for all
 *   of them: a host wait costs about as much as a step of a small grid. A
 *   step runs only if the one before left the device state `step_on`: not
 *   when the requested time is reached, a field was not finite, or growth
 *   found the arrays too small (`halted`). Then the remaining launches do
 *   nothing, and after a halt the host enlarges the arrays, captures the
 *   graph again and goes on from the step that halted. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "gbees_gpu.cuh"

/* ---- host side --------------------------------------------------------------- */

static void arrays_free(gbees_gpu_arrays *a)
{
  cudaFree(a->key);
  cudaFree(a->nbr);
  cudaFree(a->prob);
  cudaFree(a->v);
  cudaFree(a->rate);
  memset(a, 0, sizeof *a);
}

static cudaError_t arrays_alloc(gbees_gpu_arrays *a, int dim, size_t cells)
{
  cudaError_t e;
  if ((e = cudaMalloc(&a->key, cells * dim * sizeof(int32_t))) != cudaSuccess) return e;
  if ((e = cudaMalloc(&a->nbr, cells * 2 * dim * sizeof(int32_t))) != cudaSuccess) return e;
  if ((e = cudaMalloc(&a->prob, cells * sizeof(double))) != cudaSuccess) return e;
  if ((e = cudaMalloc(&a->v, cells * dim * sizeof(double))) != cudaSuccess) return e;
  return cudaMalloc(&a->rate, cells * sizeof(double));
}

static cudaError_t arrays_copy(gbees_gpu_arrays *to, const gbees_gpu_arrays *from, int dim, size_t cells,
                               cudaStream_t s)
{
  cudaError_t e;
  if ((e = cudaMemcpyAsync(to->key, from->key, cells * dim * sizeof(int32_t), cudaMemcpyDeviceToDevice, s))) return e;
  if ((e = cudaMemcpyAsync(to->nbr, from->nbr, cells * 2 * dim * sizeof(int32_t), cudaMemcpyDeviceToDevice, s)))
    return e;
  if ((e = cudaMemcpyAsync(to->prob, from->prob, cells * sizeof(double), cudaMemcpyDeviceToDevice, s))) return e;
  if ((e = cudaMemcpyAsync(to->v, from->v, cells * dim * sizeof(double), cudaMemcpyDeviceToDevice, s))) return e;
  return cudaMemcpyAsync(to->rate, from->rate, cells * sizeof(double), cudaMemcpyDeviceToDevice, s);
}

static void scratch_free(gbees_gpu *gpu)
{
  void *p[] = {gpu->face, gpu->flux, gpu->count, gpu->offset, gpu->sort_cell[0], gpu->sort_cell[1],
               gpu->sort_key[0], gpu->sort_key[1], gpu->cum, gpu->slot};
  for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) cudaFree(p[k]);
  gpu->face = gpu->flux = gpu->sort_key[0] = gpu->sort_key[1] = gpu->cum = NULL;
  gpu->count = gpu->offset = gpu->sort_cell[0] = gpu->sort_cell[1] = gpu->slot = NULL;
}

static void targets_free(gbees_gpu *gpu)
{
  void *p[] = {gpu->target_cell, gpu->target_slot, gpu->target_pos, gpu->target_flag, gpu->target_rank,
               gpu->target_code};
  for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) cudaFree(p[k]);
  gpu->target_cell = gpu->target_slot = gpu->target_pos = gpu->target_flag = gpu->target_rank = NULL;
  gpu->target_code = NULL;
  gpu->target_capacity = 0;
}

static double device_bytes(const gs_gbees *g)
{
  const gbees_gpu *gpu = g->gpu;
  double d = g->dim;
  /* two sets of key, nbr, prob, v, rate; face, flux; four int and three
   * double scratch arrays; slots; growth targets */
  double per_cell = 2.0 * (4.0 * d + 8.0 * d + 8.0 + 8.0 * d + 8.0) + 16.0 * d + 4.0 * 4.0 + 3.0 * 8.0;
  return gpu->capacity * per_cell + 4.0 * gpu->n_slots + gpu->target_capacity * 17.0 +
         4.0 * gpu->n_target_slots + (double)gpu->cub_bytes;
}

static gs_status no_room(const gs_gbees *g, double cells, cudaError_t e, char *msg)
{
  cudaGetLastError();
  if (e != cudaErrorMemoryAllocation)
    return gs_set_msg(msg, GS_ERR_CUDA, "GBEES on the GPU: %s", cudaGetErrorString(e));
  return gs_set_msg(msg, GS_ERR_NOMEM, "the GBEES grid needs %.0f cells; GPU memory ran out (%.2f GB held)", cells,
                    device_bytes(g) / 1e9);
}

/* Scratch space of the cub scans and sorts for the current capacities. */
static cudaError_t cub_reserve(gbees_gpu *gpu)
{
  size_t need = 0, b = 0;
  int32_t n = gpu->capacity;
  cub::DeviceRadixSort::SortPairs(NULL, b, (double *)NULL, (double *)NULL, (int32_t *)NULL, (int32_t *)NULL, n);
  need = b > need ? b : need;
  cub::DeviceScan::InclusiveSum(NULL, b, (double *)NULL, (double *)NULL, n);
  need = b > need ? b : need;
  cub::DeviceScan::ExclusiveSum(NULL, b, (int32_t *)NULL, (int32_t *)NULL, n + 1);
  need = b > need ? b : need;
  cub::DeviceScan::ExclusiveSum(NULL, b, (int32_t *)NULL, (int32_t *)NULL, gpu->target_capacity + 1);
  need = b > need ? b : need;
  if (need <= gpu->cub_bytes) return cudaSuccess;
  cudaFree(gpu->cub_temp);
  gpu->cub_temp = NULL;
  gpu->cub_bytes = 0;
  cudaError_t e = cudaMalloc(&gpu->cub_temp, need);
  if (e == cudaSuccess) gpu->cub_bytes = need;
  return e;
}

static void note_memory(gs_gbees *g)
{
  g->info.memory_bytes = device_bytes(g);
  if (g->info.memory_bytes > g->info.peak_memory_bytes) g->info.peak_memory_bytes = g->info.memory_bytes;
}

static void graphs_drop(gbees_gpu *gpu)
{
  if (gpu->step_graph) cudaGraphExecDestroy(gpu->step_graph);
  gpu->step_graph = NULL;
}

/* Room for `cells` cells (n of them live): larger arrays with the live cells
 * copied, fresh scratch, and the table rebuilt. */
static gs_status reserve_cells(gs_gbees *g, int64_t cells, int32_t n, char *msg)
{
  gbees_gpu *gpu = g->gpu;
  if (cells <= gpu->capacity) return GS_OK;
  int64_t cap, slots;
  gs_status st = gbees_grid_size(gpu->capacity, cells, &cap, &slots, msg);
  if (st != GS_OK) return st;
  int d = g->dim;
  size_t nc = (size_t)cap;
  gbees_gpu_arrays fresh;
  memset(&fresh, 0, sizeof fresh);
  cudaError_t e = arrays_alloc(&fresh, d, nc);
  if (e == cudaSuccess && n > 0) e = arrays_copy(&fresh, &gpu->cell, d, (size_t)n, gpu->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(gpu->stream);
  if (e != cudaSuccess) {
    arrays_free(&fresh);
    return no_room(g, (double)cells, e, msg);
  }
  arrays_free(&gpu->cell);
  arrays_free(&gpu->spare);
  scratch_free(gpu);
  gpu->cell = fresh;
  gpu->capacity = (int32_t)cap;
  gpu->n_slots = slots;
  if ((e = arrays_alloc(&gpu->spare, d, nc)) || (e = cudaMalloc(&gpu->face, nc * d * sizeof(double))) ||
      (e = cudaMalloc(&gpu->flux, nc * d * sizeof(double))) || (e = cudaMalloc(&gpu->count, (nc + 1) * sizeof(int32_t))) ||
      (e = cudaMalloc(&gpu->offset, (nc + 1) * sizeof(int32_t))) ||
      (e = cudaMalloc(&gpu->sort_cell[0], nc * sizeof(int32_t))) ||
      (e = cudaMalloc(&gpu->sort_cell[1], nc * sizeof(int32_t))) ||
      (e = cudaMalloc(&gpu->sort_key[0], nc * sizeof(double))) ||
      (e = cudaMalloc(&gpu->sort_key[1], nc * sizeof(double))) || (e = cudaMalloc(&gpu->cum, nc * sizeof(double))) ||
      (e = cudaMalloc(&gpu->slot, (size_t)slots * sizeof(int32_t))) || (e = cub_reserve(gpu)) ||
      (e = cudaMemsetAsync(gpu->slot, 0xff, (size_t)slots * sizeof(int32_t), gpu->stream)))
    return no_room(g, (double)cells, e, msg);
  graphs_drop(gpu);
  gpu->reduce_blocks = blocks_for(gpu, cap) < GBEES_REDUCE_BLOCKS ? blocks_for(gpu, cap) : GBEES_REDUCE_BLOCKS;
  table_insert_all<<<blocks_for(gpu, n), GBEES_THREADS, 0, gpu->stream>>>(gpu->state, device_cells(g), gpu->slot,
                                                                          slots);
  note_memory(g);
  return GS_OK;
}

static gs_status reserve_targets(gs_gbees *g, int64_t targets, char *msg)
{
  gbees_gpu *gpu = g->gpu;
  if (targets <= gpu->target_capacity) return GS_OK;
  int64_t cap = GBEES_MIN_TARGETS;
  while (cap < targets) cap *= 2;
  if (cap > INT32_MAX / 2) return gs_set_msg(msg, GS_ERR_NOMEM, "GBEES growth lists too many cells");
  targets_free(gpu);
  int64_t slots = 2048;
  while (slots < 2 * cap) slots *= 2;
  size_t nt = (size_t)cap;
  cudaError_t e;
  if ((e = cudaMalloc(&gpu->target_cell, nt * sizeof(int32_t))) ||
      (e = cudaMalloc(&gpu->target_code, nt)) || (e = cudaMalloc(&gpu->target_pos, nt * sizeof(int32_t))) ||
      (e = cudaMalloc(&gpu->target_flag, (nt + 1) * sizeof(int32_t))) ||
      (e = cudaMalloc(&gpu->target_rank, (nt + 1) * sizeof(int32_t))) ||
      (e = cudaMalloc(&gpu->target_slot, (size_t)slots * sizeof(int32_t))) ||
      (e = cudaMemsetAsync(gpu->target_slot, 0xff, (size_t)slots * sizeof(int32_t), gpu->stream))) {
    targets_free(gpu);
    return no_room(g, (double)g->n_cells, e, msg);
  }
  graphs_drop(gpu);
  gpu->target_capacity = (int32_t)cap;
  gpu->n_target_slots = slots;
  if ((e = cub_reserve(gpu)) != cudaSuccess) return no_room(g, (double)g->n_cells, e, msg);
  note_memory(g);
  return GS_OK;
}

static gs_status launch_check(const gs_gbees *g, char *msg)
{
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return GS_OK;
  return no_room(g, (double)g->n_cells, e, msg);
}

/* After the device state has reached host_state: time, cell count, totals,
 * and the error of a non-finite field. */
static gs_status read_state(gs_gbees *g, char *msg)
{
  const gbees_gpu *gpu = g->gpu;
  const gbees_gpu_state *hs = gpu->host_state;
  g->time = hs->time;
  g->dt = hs->courant_dt;
  g->n_cells = hs->n_cells + hs->n_new;
  g->info.steps = hs->steps;
  g->info.cell_updates = hs->cell_updates;
  if ((size_t)hs->peak_cells > g->info.peak_cells) g->info.peak_cells = (size_t)hs->peak_cells;
  g->info.mass_error = hs->mass_error;
  g->info.clipped_mass = hs->clipped_mass;
  g->info.pruned_mass = hs->pruned_mass;
  if (hs->bad_cell == INT32_MAX) return GS_OK;
  int32_t key[GS_GBEES_MAX_DIM];
  cudaError_t e = cudaMemcpy(key, gpu->cell.key + (size_t)hs->bad_cell * g->dim, g->dim * sizeof(int32_t),
                             cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return no_room(g, (double)g->n_cells, e, msg);
  return gbees_nonfinite_field(g, key, msg);
}

static gs_status sync_state(gs_gbees *g, char *msg)
{
  gbees_gpu *gpu = g->gpu;
  cudaError_t e = cudaMemcpyAsync(gpu->host_state, gpu->state, sizeof(gbees_gpu_state), cudaMemcpyDeviceToHost,
                                  gpu->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(gpu->stream);
  if (e != cudaSuccess) return no_room(g, (double)g->n_cells, e, msg);
  return read_state(g, msg);
}

/* A user field's velocities at the current device time: of the cells the
 * last growth added, or of all cells; in a step, only if it advances. */
static cudaError_t field_velocities(gs_gbees *g, int all, int in_step)
{
  gbees_gpu *gpu = g->gpu;
  gbees_gpu_state *st = gpu->state;
  gbees_geometry geo = gbees_grid_geometry(g);
  gbees_field_cells cells = {all, !in_step, &st->step_on, &st->halted, &st->n_cells, &st->n_new, &st->time,
                             gpu->cell.key};
  return gbees_field_velocities(gpu->field, gpu->stream, blocks_for(gpu, gpu->capacity), GBEES_THREADS, &cells, &geo,
                                gpu->cell.v, gpu->cell.rate, &st->bad_cell);
}

static void normalize(gs_gbees *g)
{
  gbees_gpu *gpu = g->gpu;
  mass_total<<<gpu->reduce_blocks, GBEES_THREADS, 0, gpu->stream>>>(gpu->state, gpu->cell.prob, gpu->partial);
  scale_prob<<<blocks_for(gpu, g->n_cells), GBEES_THREADS, 0, gpu->stream>>>(gpu->state, gpu->cell.prob, 0);
}

/* Prunes the n cells of the grid (gbees_prune) and renormalizes; the new
 * count reaches the host with the next sync. */
static gs_status prune(gs_gbees *g, int32_t n, char *msg)
{
  gbees_gpu *gpu = g->gpu;
  cudaStream_t s = gpu->stream;
  g->steps_since_prune = 0;
  gbees_cells view = device_cells(g);
  int blocks = blocks_for(gpu, (int64_t)n + 1);
  int32_t *keep = gpu->count, *index = gpu->offset;
  prune_candidates<<<blocks, GBEES_THREADS, 0, s>>>(view, gpu->state, gpu->par.threshold, n, gpu->sort_key[0],
                                                     gpu->sort_cell[0], keep);
  size_t bytes = gpu->cub_bytes;
  cudaError_t e = cub::DeviceRadixSort::SortPairs(gpu->cub_temp, bytes, gpu->sort_key[0], gpu->sort_key[1],
                                                  gpu->sort_cell[0], gpu->sort_cell[1], n, 0, 64, s);
  bytes = gpu->cub_bytes;
  if (e == cudaSuccess) e = cub::DeviceScan::InclusiveSum(gpu->cub_temp, bytes, gpu->sort_key[1], gpu->cum, n, s);
  if (e != cudaSuccess) return no_room(g, n, e, msg);
  prune_cut<<<blocks, GBEES_THREADS, 0, s>>>(gpu->state, gpu->par.threshold, n, gpu->sort_key[1], gpu->cum);
  prune_mark<<<blocks, GBEES_THREADS, 0, s>>>(gpu->state, gpu->sort_cell[1], gpu->cum, keep);
  bytes = gpu->cub_bytes;
  e = cub::DeviceScan::ExclusiveSum(gpu->cub_temp, bytes, keep, index, n + 1, s);
  if (e != cudaSuccess) return no_room(g, n, e, msg);
  prune_scatter<<<blocks, GBEES_THREADS, 0, s>>>(g->dim, gpu->state, n, keep, index, gpu->cell, gpu->spare);
  /* copied back rather than swapped, so that the captured graphs stay valid */
  if ((e = arrays_copy(&gpu->cell, &gpu->spare, g->dim, (size_t)n, s)) != cudaSuccess ||
      (e = cudaMemsetAsync(gpu->slot, 0xff, (size_t)gpu->n_slots * sizeof(int32_t), s)) != cudaSuccess)
    return no_room(g, n, e, msg);
  table_insert_all<<<blocks, GBEES_THREADS, 0, s>>>(gpu->state, view, gpu->slot, gpu->n_slots);
  normalize(g);
  return launch_check(g, msg);
}

/* One step, as a graph: growth (targets, their first listings, the new
 * cells, their velocities and links), a user field's velocities (of all
 * cells if it depends on time), dt, the flux update and normalization. */
static cudaError_t capture_step(gs_gbees *g)
{
  gbees_gpu *gpu = g->gpu;
  cudaStream_t s = gpu->stream;
  gbees_cells view = device_cells(g);
  int32_t n = gpu->capacity, cap = gpu->target_capacity;
  int blocks = blocks_for(gpu, n);
  growth_count<<<blocks_for(gpu, (int64_t)n + 1), GBEES_THREADS, 0, s>>>(view, gpu->state, gpu->par.threshold, n,
                                                                        gpu->count);
  size_t bytes = gpu->cub_bytes;
  cudaError_t e = cub::DeviceScan::ExclusiveSum(gpu->cub_temp, bytes, gpu->count, gpu->offset, n + 1, s);
  if (e != cudaSuccess) return e;
  growth_list<<<blocks, GBEES_THREADS, 0, s>>>(view, gpu->state, n, gpu->offset, cap, gpu->target_cell,
                                               gpu->target_code);
  growth_dedupe<<<blocks_for(gpu, cap), GBEES_THREADS, 0, s>>>(view, gpu->state, cap, gpu->slot, gpu->n_slots,
                                                               gpu->target_cell, gpu->target_code, gpu->target_slot,
                                                               gpu->n_target_slots, gpu->target_pos);
  growth_flag<<<blocks_for(gpu, (int64_t)cap + 1), GBEES_THREADS, 0, s>>>(gpu->state, cap, gpu->target_slot,
                                                                          gpu->target_pos, gpu->target_flag);
  bytes = gpu->cub_bytes;
  e = cub::DeviceScan::ExclusiveSum(gpu->cub_temp, bytes, gpu->target_flag, gpu->target_rank, cap + 1, s);
  if (e != cudaSuccess) return e;
  growth_commit<<<blocks_for(gpu, cap), GBEES_THREADS, 0, s>>>(view, gpu->state, cap, gpu->capacity, gpu->slot,
                                                               gpu->n_slots, gpu->target_cell, gpu->target_code,
                                                               gpu->target_slot, gpu->target_pos, gpu->target_flag,
                                                               gpu->target_rank, gpu->cell);
  growth_settle<<<blocks_for(gpu, (int64_t)n * 2 * g->dim), GBEES_THREADS, 0, s>>>(view, gpu->par, gpu->state,
                                                                                  gpu->slot, gpu->n_slots, gpu->cell);
  if (gpu->field && (e = field_velocities(g, !g->model.autonomous, 1)) != cudaSuccess) return e;
  choose_dt<<<gpu->reduce_blocks, GBEES_THREADS, 0, s>>>(view, gpu->state, gpu->par.cfl, gpu->cell.rate, gpu->face,
                                                         gpu->partial);
  advect_fluxes<<<blocks_for(gpu, (int64_t)n * g->dim), GBEES_THREADS, 0, s>>>(view, gpu->state, gpu->flux);
  advect_update<<<gpu->reduce_blocks, GBEES_THREADS, 0, s>>>(view, gpu->state, gpu->flux, gpu->cell.prob,
                                                             gpu->partial);
  scale_prob<<<blocks, GBEES_THREADS, 0, s>>>(gpu->state, gpu->cell.prob, 1);
  return cudaGetLastError();
}

static cudaError_t capture(gs_gbees *g, cudaError_t (*record)(gs_gbees *), cudaGraphExec_t *exec)
{
  cudaStream_t s = g->gpu->stream;
  cudaGraph_t graph = NULL;
  cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  if (e != cudaSuccess) return e;
  cudaError_t recorded = record(g);
  e = cudaStreamEndCapture(s, &graph);
  if (recorded != cudaSuccess) e = recorded;
  if (e == cudaSuccess) e = cudaGraphInstantiate(exec, graph, 0);
  if (graph) cudaGraphDestroy(graph);
  return e;
}

static gs_status graph_ready(gs_gbees *g, char *msg)
{
  gbees_gpu *gpu = g->gpu;
  if (gpu->step_graph) return GS_OK;
  cudaError_t e = capture(g, capture_step, &gpu->step_graph);
  if (e != cudaSuccess) {
    graphs_drop(gpu);
    return no_room(g, (double)g->n_cells, e, msg);
  }
  return GS_OK;
}

/* After a halted step: room for the targets or the cells it needed. */
static gs_status enlarge(gs_gbees *g, char *msg)
{
  gbees_gpu *gpu = g->gpu;
  const gbees_gpu_state *hs = gpu->host_state;
  if (hs->n_targets > gpu->target_capacity) return reserve_targets(g, hs->n_targets, msg);
  return reserve_cells(g, (int64_t)hs->n_cells + hs->n_wanted, hs->n_cells, msg);
}

/* Room for `steps` more steps, judged by the most that one step has needed
 * so far, so that a step rarely halts: a halt costs a wait, new arrays and
 * the launches left to do nothing. (g->n_cells may still count cells that a
 * prune has just removed: then it asks for a little more than it needs.) */
static gs_status reserve_ahead(gs_gbees *g, int steps, char *msg)
{
  const gbees_gpu_state *hs = g->gpu->host_state;
  gs_status st = reserve_targets(g, (int64_t)hs->most_targets * 5 / 4, msg);
  if (st != GS_OK) return st;
  return reserve_cells(g, (int64_t)g->n_cells + (int64_t)steps * hs->most_new, g->n_cells, msg);
}

/* The steps up to the next prune (at most GBEES_STEPS_PER_WAIT), or fewer if
 * one halts or the requested time is reached; one wait for all of them. */
static gs_status steps_run(gs_gbees *g, char *msg)
{
  gbees_gpu *gpu = g->gpu;
  long before = g->info.steps;
  int n = g->opt.prune_every - g->steps_since_prune;
  if (n > GBEES_STEPS_PER_WAIT) n = GBEES_STEPS_PER_WAIT;
  gs_status st = reserve_ahead(g, n, msg);
  if (st == GS_OK) st = graph_ready(g, msg);
  if (st != GS_OK) return st;
  for (int k = 0; k < n; k++) {
    cudaError_t e = cudaGraphLaunch(gpu->step_graph, gpu->stream);
    if (e != cudaSuccess) return no_room(g, (double)g->n_cells, e, msg);
  }
  if ((st = sync_state(g, msg)) != GS_OK) return st;
  g->steps_since_prune += (int)(g->info.steps - before);
  if (!gpu->host_state->halted) return GS_OK;
  if ((st = enlarge(g, msg)) != GS_OK) return st;
  steps_resume<<<1, 1, 0, gpu->stream>>>(gpu->state);
  return launch_check(g, msg);
}

extern "C" gs_status gbees_gpu_propagate(gs_gbees *g, double t_end, char *msg)
{
  if (!(t_end >= g->time))
    return gs_set_msg(msg, GS_ERR_ARG, "cannot propagate backwards, from time %.6g to %.6g", g->time, t_end);
  gbees_gpu *gpu = g->gpu;
  gs_status st = GS_OK;
  double t_start = g->time;
  GS_CUDA_TRY(cudaSetDevice(gpu->ctx->device));
  GS_CUDA_TRY(cudaMemcpyAsync(&gpu->state->t_end, &t_end, sizeof(double), cudaMemcpyHostToDevice, gpu->stream));
  steps_resume<<<1, 1, 0, gpu->stream>>>(gpu->state);
  GS_TRY(launch_check(g, msg));
  while (g->time < t_end) {
    if (gbees_progress(g, t_start, t_end)) {
      st = gs_interrupted(msg);
      goto done;
    }
    GS_TRY(steps_run(g, msg));
    GS_TRY(gbees_step_guard(g, g->dt, t_end, msg));
    if (g->steps_since_prune >= g->opt.prune_every) GS_TRY(prune(g, g->n_cells, msg));
  }
  /* a prune after the last step: the host learns the cell count it left */
  GS_TRY(sync_state(g, msg));
done:
  return st;
}

extern "C" gs_status gbees_gpu_start(gs_gbees *g, int device, char *msg)
{
  gs_status st = GS_OK;
  gbees_gpu *gpu = (gbees_gpu *)calloc(1, sizeof *gpu);
  if (!gpu) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  g->gpu = gpu;
  int d = g->dim;
  size_t n = (size_t)g->n_cells;
  GS_TRY(gs_gpu_ctx_get(device, &gpu->ctx, msg));
  gs_gpu_ctx_workspace_release(gpu->ctx); /* a factorization's tile cache: the grid needs the room */
  if (g->model.kind == GS_GBEES_CALLBACK) GS_TRY(gbees_field_compile(&g->model, device, &gpu->field, msg));
  gpu->stream = gpu->ctx->stream[0];
  gpu->max_blocks = 16 * gpu->ctx->multiprocessors;
  gpu->par.kind = g->model.kind;
  memcpy(gpu->par.par, g->model.par, sizeof gpu->par.par);
  memcpy(gpu->par.center, g->opt.center, sizeof gpu->par.center);
  gpu->par.threshold = g->opt.threshold;
  gpu->par.cfl = g->opt.cfl;
  GS_CUDA_TRY(cudaMalloc(&gpu->state, sizeof(gbees_gpu_state)));
  GS_CUDA_TRY(cudaMallocHost(&gpu->host_state, sizeof(gbees_gpu_state)));
  GS_CUDA_TRY(cudaMalloc(&gpu->partial, 4 * GBEES_REDUCE_BLOCKS * sizeof(double)));
  {
    /* the cells arrive after the arrays are made, so the state counts none
     * until then (pageable copies: the source may be reused on return) */
    gbees_gpu_state init;
    memset(&init, 0, sizeof init);
    init.time = init.t_end = g->time;
    init.courant_dt = g->dt;
    init.bad_cell = INT32_MAX;
    init.mass_error = g->info.mass_error;
    GS_CUDA_TRY(cudaMemcpyAsync(gpu->state, &init, sizeof init, cudaMemcpyHostToDevice, gpu->stream));
  }
  GS_TRY(reserve_targets(g, GBEES_MIN_TARGETS, msg));
  GS_TRY(reserve_cells(g, (int64_t)n, 0, msg));
  GS_CUDA_TRY(cudaMemcpyAsync(gpu->cell.key, g->key, n * d * sizeof(int32_t), cudaMemcpyHostToDevice, gpu->stream));
  GS_CUDA_TRY(cudaMemcpyAsync(gpu->cell.nbr, g->nbr, n * 2 * d * sizeof(int32_t), cudaMemcpyHostToDevice, gpu->stream));
  GS_CUDA_TRY(cudaMemcpyAsync(gpu->cell.prob, g->prob, n * sizeof(double), cudaMemcpyHostToDevice, gpu->stream));
  GS_CUDA_TRY(cudaMemcpyAsync(&gpu->state->n_cells, &g->n_cells, sizeof(int32_t), cudaMemcpyHostToDevice,
                              gpu->stream));
  if (gpu->field) {
    GS_CUDA_TRY(field_velocities(g, 1, 0));
  } else {
    GS_CUDA_TRY(cudaMemcpyAsync(gpu->cell.v, g->v, n * d * sizeof(double), cudaMemcpyHostToDevice, gpu->stream));
    GS_CUDA_TRY(cudaMemcpyAsync(gpu->cell.rate, g->rate, n * sizeof(double), cudaMemcpyHostToDevice, gpu->stream));
  }
  table_insert_all<<<blocks_for(gpu, n), GBEES_THREADS, 0, gpu->stream>>>(gpu->state, device_cells(g), gpu->slot,
                                                                          gpu->n_slots);
  GS_TRY(launch_check(g, msg));
  GS_TRY(sync_state(g, msg));
  gbees_grid_free(g);
done:
  return st;
}

extern "C" gs_status gbees_gpu_cells(const gs_gbees *g, int32_t *keys, double *prob, char *msg)
{
  const gbees_gpu *gpu = g->gpu;
  gs_status st = GS_OK;
  size_t n = (size_t)g->n_cells;
  GS_CUDA_TRY(cudaSetDevice(gpu->ctx->device));
  if (keys)
    GS_CUDA_TRY(cudaMemcpyAsync(keys, gpu->cell.key, n * g->dim * sizeof(int32_t), cudaMemcpyDeviceToHost,
                                gpu->stream));
  if (prob)
    GS_CUDA_TRY(cudaMemcpyAsync(prob, gpu->cell.prob, n * sizeof(double), cudaMemcpyDeviceToHost, gpu->stream));
  GS_CUDA_TRY(cudaStreamSynchronize(gpu->stream));
done:
  return st;
}

extern "C" gs_status gbees_gpu_reweighted(gs_gbees *g, const double *prob, char *msg)
{
  gbees_gpu *gpu = g->gpu;
  gs_status st = GS_OK;
  GS_CUDA_TRY(cudaSetDevice(gpu->ctx->device));
  GS_CUDA_TRY(cudaMemcpyAsync(gpu->cell.prob, prob, (size_t)g->n_cells * sizeof(double), cudaMemcpyHostToDevice,
                              gpu->stream));
  normalize(g);
  GS_TRY(prune(g, g->n_cells, msg));
  GS_TRY(sync_state(g, msg));
done:
  return st;
}

extern "C" void gbees_gpu_free(gbees_gpu *gpu)
{
  if (!gpu) return;
  if (gpu->ctx) cudaSetDevice(gpu->ctx->device);
  graphs_drop(gpu);
  arrays_free(&gpu->cell);
  arrays_free(&gpu->spare);
  scratch_free(gpu);
  targets_free(gpu);
  cudaFree(gpu->partial);
  cudaFree(gpu->cub_temp);
  gbees_field_free(gpu->field);
  cudaFree(gpu->state);
  cudaFreeHost(gpu->host_state);
  free(gpu);
}
