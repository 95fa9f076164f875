/* GBEES: Eulerian propagation of a probability density on a sparse grid
 * (Hanson, Rubio, García-Gutiérrez, Bewley). The density lives on cells of
 * width dx keyed by integer coordinates relative to a centre; each cell holds
 * its probability mass. A step grows the grid downwind of significant cells,
 * advects the mass with donor-cell fluxes plus corner-transport-upwind and
 * MC-limited second-order corrections, all in conservative flux form, and
 * every few steps prunes cells that hold negligible mass and receive none. */
#ifndef GS_GBEES_H
#define GS_GBEES_H

#include <stdint.h>

#include "gs_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_GBEES_MAX_DIM 8
/* The most time steps one propagation (or Runge-Kutta steps one Monte Carlo
 * segment) may take: far beyond any run that ends in reasonable time, so
 * that reaching it means a step size out of proportion to the time span (a
 * huge span or velocity, a tiny cfl or step), reported before stepping. */
#define GS_GBEES_MAX_STEPS 1e8
/* Cells must be at least this fraction of the distance of the initial mean
 * from the origin wide, so that double precision resolves cell centres. */
#define GS_GBEES_MIN_RELATIVE_DX 0x1p-32
/* The time step must be at least this many times the spacing of doubles near
 * the times involved, so that the clock advances by the step taken. */
#define GS_GBEES_MIN_STEP_ULPS 0x1p16

/* The kinds of model: code, the name R knows it by (a gbees_model's kind),
 * the code's value (0 is no model). Written once: the enum and the table R
 * reads at load (gs_r_tables) are generated from this list.
 *   lorenz63  par: sigma, b, r
 *   lorenz96  par: F; any dim >= 4
 *   pcr3bp    par: mu; state x, y, vx, vy (rotating frame)
 *   user      the field function below (and, for a GPU, device_source) */
#define GS_GBEES_MODEL_KINDS(X)              \
  X(GS_GBEES_LORENZ63, "lorenz63", 1)        \
  X(GS_GBEES_LORENZ96, "lorenz96", 2)        \
  X(GS_GBEES_PCR3BP, "pcr3bp", 3)            \
  X(GS_GBEES_CALLBACK, "user", 4)

#define GS_GBEES_MODEL_ENUM_ENTRY(code, name, value) code = value,
typedef enum { GS_GBEES_MODEL_KINDS(GS_GBEES_MODEL_ENUM_ENTRY) } gs_gbees_model_kind;
#undef GS_GBEES_MODEL_ENUM_ENTRY

/* The vector field at n_points states x (state p in x[p*dim .. p*dim+dim-1])
 * into f (same layout). Returns GS_OK, or the status of the failure with a
 * message in msg (GS_ERR_ARG: a user function failed or returned NaN;
 * GS_ERR_INTERRUPTED: the user interrupted it). Called from the thread that
 * entered the core. */
typedef gs_status (*gs_gbees_field_fn)(void *ctx, double t, const double *x, size_t n_points, double *f,
                                 char *msg);

/* A user's field compiled for the CPU (gs_gbees_field_program): the
 * velocities at the + face centres of the cell centred at x (x is restored)
 * returning the cell's CFL rate, and Runge-Kutta steps first .. first +
 * n_steps - 1 of h from t0 of the state y (gbees_field_math.h). Pure
 * functions, called from any thread. */
typedef double (*gs_gbees_velocities_fn)(double t, const double *dx, double *x, double *v);
typedef void (*gs_gbees_rk4_fn)(double *y, double t0, long long first, long long n_steps, double h);

typedef struct {
  int kind;       /* gs_gbees_model_kind */
  int dim;
  double par[4];
  int autonomous; /* non-zero: f does not depend on t (velocities are cached) */
  gs_gbees_field_fn field;
  void *ctx;
  /* The same field as source text for gs_gbees_field_program, defining
   *   static inline GS_HD double gbees_user_field(const void *ctx, double t, const double *x, int i)
   * (component i at the state x; ctx is NULL), compiled at run time for a
   * GPU; NULL: the callback model runs on the CPU only. Read while
   * gs_gbees_create or gs_gbees_monte_carlo runs, not kept. */
  const char *device_source;
  /* The same field compiled for the CPU (both set, or both NULL: then the
   * CPU calls `field`). */
  gs_gbees_velocities_fn velocities;
  gs_gbees_rk4_fn rk4;
} gs_gbees_model;

typedef struct {
  double center[GS_GBEES_MAX_DIM]; /* cell key 0 is centred here */
  double dx[GS_GBEES_MAX_DIM];
  double threshold;                /* cells below it may be pruned; cells above it grow */
  double cfl;                      /* dt = cfl / max over cells of sum_i |v_i| / dx_i */
  int prune_every;                 /* steps between prunes */
  int threads;
  int device;                      /* a GPU's index, or -1 for the CPU */
  gs_progress_fn progress;
} gs_gbees_options;

/* The phases whose wall time gs_gbees_info reports: code, the name R knows
 * it by. Written once: the enum and the names R reads come from this list.
 *   setup      the initial grid (gs_gbees_create)
 *   growth     the search for the growth targets missing from the grid and
 *              their numbering (CPU)
 *   new_cells  the new cells: storage, hash-table inserts, velocities, links
 *              (CPU)
 *   field      the velocities of every cell, each step, for a field that
 *              depends on time (CPU)
 *   advect     the flux update and the normalization (CPU)
 *   prune      pruning: the cut, the compaction of the cells, the rebuilt
 *              hash table, the renormalization (CPU)
 *   update     measurement updates: likelihoods, Bayes' rule, its pruning
 *   progress   between the steps: the progress report (R code, at most
 *              every 0.1 s) and the interrupt check (CPU)
 * A grid on a GPU reports its set-up and
 * updates; its steps run there. */
#define GS_GBEES_PHASES(X)                 \
  X(GS_GBEES_PHASE_SETUP, "setup")         \
  X(GS_GBEES_PHASE_GROWTH, "growth")       \
  X(GS_GBEES_PHASE_NEW_CELLS, "new_cells") \
  X(GS_GBEES_PHASE_FIELD, "field")         \
  X(GS_GBEES_PHASE_ADVECT, "advect")       \
  X(GS_GBEES_PHASE_PRUNE, "prune")         \
  X(GS_GBEES_PHASE_UPDATE, "update")       \
  X(GS_GBEES_PHASE_PROGRESS, "progress")

#define GS_GBEES_PHASE_ENUM_ENTRY(code, name) code,
typedef enum { GS_GBEES_PHASES(GS_GBEES_PHASE_ENUM_ENTRY) GS_GBEES_PHASE_COUNT } gs_gbees_phase;
#undef GS_GBEES_PHASE_ENUM_ENTRY

typedef struct {
  size_t cells;
  size_t peak_cells;
  double time;
  long steps;
  double cell_updates;    /* sum over steps of the cells advanced */
  double memory_bytes;    /* memory (host or GPU) held by the grid now */
  double peak_memory_bytes;
  double mass_error;      /* largest |sum P after - sum P before| of one flux update */
  double clipped_mass;    /* total mass added by setting negative cells to zero */
  double pruned_mass;     /* total mass removed by pruning (before renormalization) */
  double phase_seconds[GS_GBEES_PHASE_COUNT]; /* wall time of each phase (GS_GBEES_PHASES) */
} gs_gbees_info;

typedef struct gs_gbees gs_gbees;

/* A grid at time t0 holding exp(-(x - center)' prec (x - center) / 2) on
 * the box of keys |k_i| <= half_width[i], normalized to mass 1. prec is the
 * dim x dim inverse covariance (column-major). */
gs_status gs_gbees_create(const gs_gbees_model *model, const gs_gbees_options *opt, const double *prec,
                          const int *half_width, double t0, gs_gbees **out, char *msg);
void gs_gbees_free(gs_gbees *g);

/* Advances the density to t_end (>= the current time). */
gs_status gs_gbees_propagate(gs_gbees *g, double t_end, char *msg);

/* Bayes' rule with the log-likelihood of each cell (in the order of
 * gs_gbees_cells): P <- P exp(loglik), normalized, then pruned. */
gs_status gs_gbees_reweight(gs_gbees *g, const double *loglik, char *msg);

/* A measurement y = h(x) + e with Gaussian noise e ~ N(0, L L') of m
 * quantities, prepared for the grids of one device: h observes states, or
 * is a user's function compiled at run time (gs_gbees_field_program with
 * gs_gbees_measurement_entries for the CPU, by NVRTC for a GPU). The
 * log-likelihood of every cell centre is computed on the grid's device
 * (gbees_measurement_loglik in gbees_field_math.h); the cells never leave
 * the native code. */

/* A user's measurement function compiled for the CPU: the log-likelihood of
 * the observation (a gbees_observation) at the centre of the cell with this
 * key in the geometry (a gbees_geometry). Pure, called from any thread. */
typedef double (*gs_gbees_loglik_fn)(const void *observation, const void *geometry, const int32_t *key);

typedef struct {
  int dim;          /* the model's states */
  int m;            /* observed quantities, 1 to GS_GBEES_MAX_DIM */
  const int *index; /* h(x)_j = x[index[j]] (0-based), or NULL for a user's function */
  const double *L;  /* the lower Cholesky factor of the noise covariance, column-major m x m */
  /* A user's function as source text, defining
   *   static inline GS_HD double gbees_user_measurement(const void *ctx, double t, const double *x, int j)
   * (quantity j at the state x and time t; ctx is NULL), compiled here for a
   * GPU; read while gs_gbees_measurement_create runs, not kept. */
  const char *device_source;
  gs_gbees_loglik_fn loglik; /* the same compiled for the CPU */
  int device;                /* a GPU's index, or -1 for the CPU */
} gs_gbees_measurement_spec;

typedef struct gs_gbees_measurement gs_gbees_measurement;

gs_status gs_gbees_measurement_create(const gs_gbees_measurement_spec *spec, gs_gbees_measurement **out, char *msg);
void gs_gbees_measurement_free(gs_gbees_measurement *h);

/* Bayes' rule for the observation y (m quantities, as the measurement's)
 * at time t: the log-likelihood of each cell centre, then
 * gs_gbees_reweight. The measurement must be prepared for the grid's
 * dimension and device. */
gs_status gs_gbees_measure(gs_gbees *g, const gs_gbees_measurement *h, double t, int m, const double *y, char *msg);

size_t gs_gbees_cell_count(const gs_gbees *g);
int gs_gbees_dim(const gs_gbees *g);
/* Keys (cell c in keys[c*dim ..]) and probabilities of every cell. */
gs_status gs_gbees_cells(const gs_gbees *g, int32_t *keys, double *prob, char *msg);
void gs_gbees_get_info(const gs_gbees *g, gs_gbees_info *info);

/* Monte Carlo reference: advances the n states x (state p in
 * x[p*dim ..], in place) from t0 to t1 with classical Runge-Kutta steps of
 * at most `step`, on the CPU (device < 0) or a GPU (built-in models and
 * callback models with device_source). The steps run in batches, with
 * progress (may be NULL) called between them. */
gs_status gs_gbees_monte_carlo(const gs_gbees_model *model, int threads, int device, double *x, size_t n, double t0,
                               double t1, double step, gs_progress_fn progress, char *msg);

/* The program that compiles a user's field or measurement function
 * (source as device_source) on a grid of dim states, for the C compiler or
 * NVRTC: the shared field arithmetic, the source, then `entries`. Allocated
 * with malloc; NULL when out of memory. */
char *gs_gbees_field_program(const char *source, int dim, const char *entries);
/* The CPU's entry points: of a field, gbees_user_velocities and
 * gbees_user_rk4 (gs_gbees_velocities_fn, gs_gbees_rk4_fn); of a
 * measurement function, gbees_user_loglik (gs_gbees_loglik_fn). */
extern const char gs_gbees_field_entries[], gs_gbees_measurement_entries[];

/* Gaussian kernel sums in whitened coordinates (the kernel covariance is the
 * identity): out[i] = sum_j w_j exp(-|y_i - z_j|^2 / 2) over the sources z_j
 * (n_src rows of dim, weights w, or all 1 for NULL) within `radius` of the
 * point y_i (n_eval rows of dim). Exact sums over the sources in boxes of
 * side `radius` around each point, on the CPU (device < 0) or a GPU, in
 * batches of points with progress (may be NULL) called between them. */
gs_status gs_gbees_kernel_sums(int dim, const double *src, const double *weight, size_t n_src, const double *eval,
                               size_t n_eval, double radius, int threads, int device, gs_progress_fn progress,
                               double *out, char *msg);

#ifdef __cplusplus
}
#endif

#endif
