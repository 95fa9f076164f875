/* The GBEES grid: cells in structure-of-arrays form, an open-addressing hash
 * table from integer keys to cells, and each cell's face neighbours. */
#ifndef GBEES_INTERNAL_H
#define GBEES_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "gbees_kde_math.h"
#include "gbees_math.h"
#include "gs_gbees.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gbees_gpu gbees_gpu;
typedef struct gbees_scratch gbees_scratch; /* the CPU path's (gbees_cpu.h) */

struct gs_gbees {
  gs_gbees_model model;
  gs_gbees_options opt;
  int dim;
  double time;
  double dt; /* the latest Courant step cfl / max rate (INFINITY if none or not known yet) */
  double max_rate; /* the largest CFL rate of the cells on the host, kept by velocities and pruning */

  /* cells 0 .. n_cells-1; arrays hold `capacity` cells */
  int32_t n_cells, capacity;
  int32_t *key;   /* dim per cell */
  double *prob;
  double *v;      /* dim per cell: velocity component i at the cell's + face in dimension i */
  double *rate;   /* sum_i |v_i| / dx_i: the cell's CFL rate */
  int32_t *nbr;   /* 2 dim per cell: [2i] = cell - e_i, [2i + 1] = cell + e_i, or GBEES_NONE */
  double *face;   /* dim per cell: (P - P(cell - e_i)) / (2 dx_i), 0 without that neighbour */
  double *flux;   /* dim per cell: total flux through the + face in dimension i */

  /* hash slots (a power of two), each a cell index or GBEES_NONE */
  int32_t *slot;
  int64_t n_slots;

  int steps_since_prune;
  double last_report; /* wall time of the last progress report */
  gs_gbees_info info;
  gbees_scratch *scratch;

  /* the grid's home on a GPU (gbees_cuda.cu): after gbees_gpu_start the
   * cells live there and the host arrays above are released */
  gbees_gpu *gpu;
};

/* The longest stable step, cfl over the largest CFL rate (the CPU step and
 * the GPU's choose_dt). */
static inline GS_HD double gbees_courant_step(double cfl, double max_rate)
{
  return max_rate > 0.0 ? cfl / max_rate : INFINITY;
}

/* The host arrays as the shared arithmetic sees them. */
gbees_cells gbees_host_cells(const gs_gbees *g);

/* GS_OK when the model's field can run on `device` (a GPU, or the CPU for
 * device < 0), else why not (gbees_monte_carlo.c). */
gs_status gbees_model_device_check(const gs_gbees_model *model, int device, char *msg);

/* Grid storage (gbees_grid.c) */
/* The capacity for `cells` cells when `current` is too small (doubling from
 * 1024) and its hash slots (a power of two, at least twice the capacity). */
gs_status gbees_grid_size(int64_t current, int64_t cells, int64_t *capacity, int64_t *slots, char *msg);
gs_status gbees_grid_reserve(gs_gbees *g, int64_t cells, char *msg);
int32_t gbees_grid_find(const gs_gbees *g, const int32_t *key);
/* Links cells first .. n_cells-1 with their face neighbours (both ways). */
void gbees_grid_link(gs_gbees *g, int32_t first);
/* The box of keys |k_i| <= half_width[i] (the first key varying fastest)
 * with probabilities exp(-q/2), q the quadratic form of prec in the cell
 * centre's offset. */
gs_status gbees_grid_fill_box(gs_gbees *g, const double *prec, const int *half_width, char *msg);
double gbees_grid_bytes(const gs_gbees *g);
void gbees_grid_free(gs_gbees *g);

/* One time step and its parts on the CPU (gbees_grow.c, gbees_step_cpu.c,
 * gbees_prune.c) */
gs_status gbees_scratch_new(gs_gbees *g, char *msg);
void gbees_scratch_free(gs_gbees *g);
/* One time step on the CPU, shortened to end at t_end if it would pass it:
 * growth, velocities, the flux update and, when due, pruning. */
gs_status gbees_cpu_step(gs_gbees *g, double t_end, char *msg);
/* Velocities, rates and links of cells first .. n_cells-1 at time t, on
 * `threads` threads; with keys (dim per cell), the cells are stored and put
 * in the hash table first, else they are there already. */
gs_status gbees_settle(gs_gbees *g, int32_t first, const int32_t *keys, double t, int threads, char *msg);
/* The error for a field that is not finite at the cell with this key. */
gs_status gbees_nonfinite_field(const gs_gbees *g, const int32_t *key, char *msg);
void gbees_normalize(gs_gbees *g);
gs_status gbees_prune(gs_gbees *g, char *msg);

/* Adds the wall time since `since` to a phase (GS_GBEES_PHASES); returns now. */
double gbees_lap(gs_gbees *g, int phase, double since);

/* Refuses a propagation to t_end with Courant steps of dt: one that would
 * take more than GS_GBEES_MAX_STEPS steps, or whose steps are lost in the
 * rounding of the clock (GS_GBEES_MIN_STEP_ULPS). */
gs_status gbees_step_guard(const gs_gbees *g, double dt, double t_end, char *msg);

/* Reports progress from t_start towards t_end at most every 0.1 s (a report
 * runs R code, slow next to a step); non-zero if the user interrupted. */
int gbees_progress(gs_gbees *g, double t_start, double t_end);

/* The GPU path (gbees_cuda.cu; without CUDA, gbees_none.c explains). */
/* Moves the grid (built on the host) to the device and frees the host arrays. */
gs_status gbees_gpu_start(gs_gbees *g, int device, char *msg);
gs_status gbees_gpu_propagate(gs_gbees *g, double t_end, char *msg);
/* Keys and probabilities of every cell (either may be NULL). */
gs_status gbees_gpu_cells(const gs_gbees *g, int32_t *keys, double *prob, char *msg);
/* Replaces the probabilities, then normalizes, prunes and normalizes. */
gs_status gbees_gpu_reweighted(gs_gbees *g, const double *prob, char *msg);
void gbees_gpu_free(gbees_gpu *gpu);
/* The Monte Carlo states on a GPU: uploaded by start, advanced by
 * Runge-Kutta steps first .. first + count - 1 of h from time t0 (step s
 * starts at t0 + s h) by advance, which returns when they are done, and
 * downloaded by finish. */
typedef struct gbees_gpu_mc gbees_gpu_mc;
gs_status gbees_gpu_mc_start(int device, const gs_gbees_model *model, const double *x, size_t n, gbees_gpu_mc **out,
                             char *msg);
gs_status gbees_gpu_mc_advance(gbees_gpu_mc *mc, double t0, long first, long count, double h, char *msg);
gs_status gbees_gpu_mc_finish(gbees_gpu_mc *mc, double *x, char *msg);
void gbees_gpu_mc_free(gbees_gpu_mc *mc);

/* Where the grid's cells are (gbees_measure.c). */
gbees_geometry gbees_grid_geometry(const gs_gbees *g);
/* A measurement on a GPU (gbees_measure_cuda.cu): a user's measurement
 * function (source as gs_gbees_measurement_spec's device_source) compiled
 * for the device, or none (NULL source) for a measurement of states; the
 * log-likelihood of every cell of a grid on that device into loglik (host
 * memory), of the states index, or of the compiled function if index is
 * NULL. */
typedef struct gbees_gpu_measurement gbees_gpu_measurement;
gs_status gbees_gpu_measurement_start(int device, int dim, const char *source, gbees_gpu_measurement **out,
                                      char *msg);
gs_status gbees_gpu_measurement_loglik(const gs_gbees *g, const gbees_gpu_measurement *h, const int *index,
                                       const gbees_observation *obs, double *loglik, char *msg);
void gbees_gpu_measurement_free(gbees_gpu_measurement *h);

/* The groups of points in box order that a GPU warp sums together
 * (gbees_kde.c); group has room for n + 1 entries. */
size_t gbees_kde_groups(const gbees_kde_sources *s, const double *y, size_t n, int64_t *group);

/* Kernel sums from the sorted sources (gbees_kde_math.h) at the points of
 * eval, in the groups of gbees_kde_groups, on a GPU. */
gs_status gbees_gpu_kernel_sums(int device, const gbees_kde_sources *s, const double *eval, const int64_t *group,
                                size_t groups, gs_progress_fn progress, double *out, char *msg);

#ifdef __cplusplus
}
#endif

#endif
