/* What the files of GBEES on a GPU share (private to the gbees folder): the
 * device state and arrays (gbees_gpu), the launch geometry, and the kernels
 * of a step (gbees_kernels_cuda.cu), which the host side (gbees_cuda.cu)
 * launches and captures as a graph. */
#ifndef GBEES_GPU_CUH
#define GBEES_GPU_CUH

#include <stdint.h>

#include "gbees_field_cuda.cuh"
#include "gbees_internal.h"
#include "gbees_math.h"
#include "gs_gpu_ctx.cuh"

#define GBEES_THREADS 256
/* Blocks of the reductions: a fixed number, so sums are reproducible. */
#define GBEES_REDUCE_BLOCKS 1024
#define GBEES_MIN_TARGETS 4096
/* Steps launched before the host waits for them, at most: enough to hide the
 * wait, few enough that an interrupt is seen soon and that few launches are
 * left to do nothing once the requested time is reached. */
#define GBEES_STEPS_PER_WAIT 32

/* What the device tells the host after a batch of steps. */
typedef struct {
  double time, t_end, dt;
  double courant_dt;  /* cfl / the largest rate of the latest step (before shortening it to t_end) */
  double mass_error, clipped_mass, pruned_mass;
  double norm;        /* the sum that the next scale divides by */
  int32_t n_cells;    /* cells before this step's growth */
  int32_t n_new;      /* cells the growth appended (0 if they did not fit) */
  int32_t n_wanted;   /* cells the growth needed */
  int32_t n_targets;  /* growth targets listed */
  int32_t bad_cell;   /* lowest cell with a non-finite field, or INT32_MAX */
  int32_t n_pruned;
  int32_t step_on;    /* the next step runs (set as the step before ends) */
  int32_t halted;     /* growth did not fit: no step runs until the host enlarges the arrays */
  int32_t peak_cells; /* the most cells a step advanced */
  int32_t most_new, most_targets; /* the most cells a step appended, and growth targets it listed */
  long long steps;    /* steps taken, and the cells they advanced */
  double cell_updates;
  unsigned int blocks_done; /* blocks finished in a reduction (last_block) */
} gbees_gpu_state;

/* The model and grid geometry that kernels need besides the cells. */
typedef struct {
  int kind;
  double par[4];
  double center[GS_GBEES_MAX_DIM];
  double threshold, cfl;
} gbees_gpu_params;

/* One set of per-cell arrays (the live one and the spare for compaction). */
typedef struct {
  int32_t *key, *nbr;
  double *prob, *v, *rate;
} gbees_gpu_arrays;

struct gbees_gpu {
  gs_gpu_ctx *ctx;
  cudaStream_t stream;
  gbees_gpu_params par;
  int32_t capacity;
  int64_t n_slots;
  gbees_gpu_arrays cell, spare;
  double *face, *flux;
  int32_t *slot;
  /* per-cell scratch: growth counts and offsets; pruning keep flags, new
   * indices, sort keys and cells, running sums */
  int32_t *count, *offset, *sort_cell[2];
  double *sort_key[2], *cum;
  /* growth targets */
  int32_t target_capacity;
  int64_t n_target_slots;
  int32_t *target_cell, *target_slot, *target_pos, *target_flag, *target_rank;
  unsigned char *target_code;
  double *partial; /* 4 x GBEES_REDUCE_BLOCKS */
  gbees_field_module *field; /* a user's field, compiled for this device; NULL for a built-in one */
  void *cub_temp;
  size_t cub_bytes;
  gbees_gpu_state *state, *host_state; /* device, pinned host */
  int max_blocks, reduce_blocks;
  cudaGraphExec_t step_graph; /* NULL until captured for the current arrays */
};

static inline int blocks_for(const gbees_gpu *gpu, int64_t n)
{
  int64_t b = (n + GBEES_THREADS - 1) / GBEES_THREADS;
  return (int)(b < 1 ? 1 : b > gpu->max_blocks ? gpu->max_blocks : b);
}

static inline gbees_cells device_cells(const gs_gbees *g)
{
  const gbees_gpu *gpu = g->gpu;
  gbees_cells v = {g->dim, {0}, gpu->cell.key, gpu->cell.nbr, gpu->cell.v, gpu->cell.prob, gpu->face};
  for (int i = 0; i < g->dim; i++) v.dx[i] = g->opt.dx[i];
  return v;
}

/* Kernels take the structs they index at run time (dx[i], the model's
 * parameters) as __grid_constant__: without it every thread, even one with
 * no work, first copies them to its local memory, which cost a step of a
 * small grid more than its arithmetic. */
#define GRID_STRIDE(c, n) for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < (n); c += (int64_t)gridDim.x * blockDim.x)

/* Cells in the grid: those before growth plus those it appended. */
__device__ static inline int32_t live_cells(const gbees_gpu_state *st)
{
  return st->n_cells + st->n_new;
}

/* After growth: this step advances the grid. */
__device__ static inline bool advancing(const gbees_gpu_state *st)
{
  return st->step_on && !st->halted;
}

/* ---- the kernels of a step (gbees_kernels_cuda.cu) ---------------------------- */

__global__ void table_insert_all(const gbees_gpu_state *st, const __grid_constant__ gbees_cells g,
                                 int32_t *slot, int64_t n_slots);
__global__ void growth_count(const __grid_constant__ gbees_cells g, const gbees_gpu_state *st,
                             double threshold, int32_t n_bound, int32_t *count);
__global__ void growth_list(const __grid_constant__ gbees_cells g, gbees_gpu_state *st, int32_t n_bound,
                            const int32_t *offset, int32_t capacity, int32_t *target_cell,
                            unsigned char *target_code);
__global__ void growth_dedupe(const __grid_constant__ gbees_cells g, const gbees_gpu_state *st,
                              int32_t capacity, const int32_t *slot, int64_t n_slots,
                              const int32_t *target_cell, const unsigned char *target_code,
                              int32_t *target_slot, int64_t n_target_slots, int32_t *target_pos);
__global__ void growth_flag(const gbees_gpu_state *st, int32_t capacity, const int32_t *target_slot,
                            const int32_t *target_pos, int32_t *target_flag);
__global__ void growth_commit(const __grid_constant__ gbees_cells g, gbees_gpu_state *st, int32_t capacity,
                              int32_t cell_capacity, int32_t *slot, int64_t n_slots,
                              const int32_t *target_cell, const unsigned char *target_code,
                              int32_t *target_slot, const int32_t *target_pos, const int32_t *target_flag,
                              const int32_t *target_rank, gbees_gpu_arrays cell);
__global__ void growth_settle(const __grid_constant__ gbees_cells g,
                              const __grid_constant__ gbees_gpu_params par, gbees_gpu_state *st,
                              const int32_t *slot, int64_t n_slots, gbees_gpu_arrays cell);
__global__ void choose_dt(const __grid_constant__ gbees_cells g, gbees_gpu_state *st, double cfl,
                          const double *rate, double *face, double *partial);
__global__ void mass_total(gbees_gpu_state *st, const double *prob, double *partial);
__global__ void scale_prob(gbees_gpu_state *st, double *prob, int in_step);
__global__ void steps_resume(gbees_gpu_state *st);
__global__ void advect_fluxes(const __grid_constant__ gbees_cells g, const gbees_gpu_state *st, double *flux);
__global__ void advect_update(const __grid_constant__ gbees_cells g, gbees_gpu_state *st, const double *flux,
                              double *prob, double *partial);
__global__ void prune_candidates(const __grid_constant__ gbees_cells g, gbees_gpu_state *st, double threshold,
                                 int32_t n, double *sort_key, int32_t *sort_cell, int32_t *keep);
__global__ void prune_cut(gbees_gpu_state *st, double threshold, int32_t n, const double *sorted,
                          const double *cum);
__global__ void prune_mark(gbees_gpu_state *st, const int32_t *sorted_cell, const double *cum, int32_t *keep);
__global__ void prune_scatter(int dim, gbees_gpu_state *st, int32_t n, const int32_t *keep,
                              const int32_t *index, gbees_gpu_arrays from, gbees_gpu_arrays to);

#endif
