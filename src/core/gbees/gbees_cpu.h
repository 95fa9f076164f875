/* What the parallel parts of the GBEES CPU path share: the team of a step,
 * the fixed partition of the cells that orders every sum, per-thread lanes,
 * the scratch kept from step to step, and atomic hash-table inserts.
 *
 * Every result is the same on any number of threads: sums run over parts
 * whose bounds depend only on the number of cells, lists made by several
 * threads are joined in the order of their cells, and the hash tables
 * filled concurrently hold the same cells (in slots that may differ, which
 * no result depends on). */
#ifndef GBEES_CPU_H
#define GBEES_CPU_H

#include <stdint.h>

#include "gbees_internal.h"
#include "gs_cpu.h"

#ifdef _OPENMP
#include <omp.h>
#define GBEES_THREAD_NUM() omp_get_thread_num()
#define GBEES_TEAM_SIZE() omp_get_num_threads()
#else
#define GBEES_THREAD_NUM() 0
#define GBEES_TEAM_SIZE() 1
#endif

/* The team for work over `cells` cells: a cell's step costs about dim^2
 * units of work of the thread policy (dim fluxes of dim terms each, up to
 * dim^2 growth targets), so a step over a few thousand cells already runs
 * on every thread. */
static inline int gbees_team(const gs_gbees *g, double cells)
{
  return gs_cpu_threads_for(g->opt.threads, cells * g->dim * g->dim);
}

/* Sums over the cells are taken in an order that depends only on the
 * number of cells, so that a run rounds alike on any number of threads (an
 * OpenMP reduction adds the threads' sums in the order in which they
 * finish): the cells are cut into at most GBEES_MAX_PARTS ranges of at
 * least GBEES_MIN_PART cells, each range is summed in order, then the
 * ranges in order. The loops over the cells run over these parts, so that
 * a thread keeps the same cells from loop to loop. Parts are small enough
 * for a grid of a few thousand cells to give every thread several. */
#define GBEES_MAX_PARTS 4096
#define GBEES_MIN_PART 64

typedef struct {
  int32_t n, size, count;
} gbees_parts;

static inline gbees_parts gbees_parts_of(int32_t n)
{
  int32_t size = (n + GBEES_MAX_PARTS - 1) / GBEES_MAX_PARTS;
  if (size < GBEES_MIN_PART) size = GBEES_MIN_PART;
  gbees_parts p = {.n = n, .size = size, .count = (n + size - 1) / size};
  return p;
}

static inline int32_t gbees_part_begin(const gbees_parts *p, int k) { return k * p->size; }
static inline int32_t gbees_part_end(const gbees_parts *p, int k) { return k == p->count - 1 ? p->n : (k + 1) * p->size; }

static inline double gbees_parts_total(const double *part, int count)
{
  double s = 0.0;
  for (int k = 0; k < count; k++) s += part[k];
  return s;
}

/* What one thread of a team gathers (its growth targets, its largest CFL
 * rate, the first cell with a non-finite field), one cache line or more
 * each (128 bytes) so that threads never write the same line. */
typedef struct {
  int32_t *keys;         /* growth targets listed, dim each */
  int64_t count, capacity;
  int64_t found;         /* new cells in its range of the joined list */
  double max_rate;
  int32_t bad;           /* first cell with a non-finite rate, or INT32_MAX */
  int failed;            /* out of memory */
  char pad[80];          /* to 128 bytes, two cache lines */
} gbees_lane;

/* Scratch of the CPU path, kept from step to step so that a step allocates
 * (and the system zeroes) nothing. */
struct gbees_scratch {
  gbees_lane lane[GS_CPU_MAX_THREADS];
  int32_t *listed;       /* the growth targets of a step in cell order, dim each */
  int64_t listed_capacity;
  int32_t *first_of;     /* table of listed keys: the first listing of each; all
                            first_capacity slots are empty between growths */
  int64_t first_capacity;
  int32_t *index;        /* a flag, then a new index, per cell (pruning): as many as the grid holds */
  int64_t index_capacity;
  double part[4][GBEES_MAX_PARTS]; /* sums over parts */
  int64_t part_count[GBEES_MAX_PARTS + 1];
  int64_t part_start[GBEES_MAX_PARTS]; /* where a part's listings start in its lane */
  int32_t part_lane[GBEES_MAX_PARTS];  /* the lane that listed a part */
};

/* One time step on the CPU, shared by the threads of its team (one
 * parallel region; the callback of a field given as an R function runs
 * between two). A value a thread decides for all is written between two
 * barriers and read after the second; every other value here is set before
 * the region. The master thread times the phases after barriers. */
typedef struct {
  gs_gbees *g;
  double t_end;
  char *msg;              /* the caller's, written by one thread */
  gs_status status;       /* of the step so far, the same for every thread after a barrier */
  int32_t first;          /* the cells before growth */
  double top;             /* the largest CFL rate of the cells before first (or of all, for an R field) */
  int64_t listed_capacity, first_capacity, capacity; /* the scratch's and grid's when the step began */
  int velocities_of_all;  /* 1: every cell's velocities, each step (a field that depends on time) */
  int r_field;            /* 1: a field given as an R function (called between two regions) */
  int prune;              /* 1: the step ends with pruning */
  int64_t fresh;          /* the new cells */
  double dt;              /* the step taken */
  int32_t cells;          /* the cells advanced */
  double since;           /* the master thread's clock at its last lap */
} gbees_step;

/* Parts of a step, on its team (orphaned work sharing). */
/* Lists the growth targets missing from the grid and adds them as cells,
 * stored and linked (gbees_grow.c); velocities of the new cells too for a
 * compiled or built-in autonomous field. */
void gbees_team_grow(gbees_step *s);
/* Velocities of every cell for a compiled field that depends on time,
 * the step's size (and its check), the flux update with the normalization,
 * and the pruning when it is due (gbees_step_cpu.c). */
void gbees_team_advance(gbees_step *s);
/* The flux update of a step of dt and the normalization. */
void gbees_team_advect(gs_gbees *g, double dt);
/* Divides the probabilities by their sum (when positive). */
void gbees_team_normalize(gs_gbees *g);
/* Pruning and the compaction of the cells (gbees_prune.c); an error (out of
 * memory) goes to *status for every thread. */
void gbees_team_prune(gs_gbees *g, gs_status *status, char *msg);
/* Compaction of the grid (gbees_grid.c): keeps the cells with index[c] != 0
 * in order, renumbers links, rebuilds the hash table and the largest CFL
 * rate. */
void gbees_team_compact(gs_gbees *g, int32_t *index);
/* Empties the hash table and puts cells 0 .. n-1 in it. */
void gbees_team_fill_table(gs_gbees *g, int32_t n);
/* gbees_grid_reserve without refilling a replaced hash table: *refill is
 * set then, and the caller refills it (gbees_team_fill_table). */
gs_status gbees_grid_reserve_unfilled(gs_gbees *g, int64_t cells, int *refill, char *msg);

/* Grows the array *p of *capacity elements of `size` bytes to at least n
 * (doubling); 0 when out of memory. */
int gbees_scratch_fit(void **p, int64_t *capacity, int64_t n, size_t size);

/* Claims slot after slot from the hash of key until it finds a free one for
 * cell c (a key not in the table). Safe while other threads claim. */
static inline void gbees_slot_claim(int32_t *slot, int64_t n_slots, const int32_t *key, int dim, int32_t c)
{
  uint64_t mask = (uint64_t)n_slots - 1, s = gbees_key_hash(key, dim) & mask;
  for (;;) {
    int32_t expected = GBEES_NONE;
    if (__atomic_load_n(slot + s, __ATOMIC_RELAXED) == GBEES_NONE &&
        __atomic_compare_exchange_n(slot + s, &expected, c, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return;
    s = (s + 1) & mask;
  }
}

/* Orphaned worksharing: these run on the team of the enclosing parallel
 * region (or alone outside one). */
/* Empties the n_slots slots (no barrier at its end). */
void gbees_team_clear_slots(int32_t *slot, int64_t n_slots);
/* Stores cells first .. n_cells-1 with these keys (dim each, from cell
 * first on), probability and velocities 0 and no links, and puts them in
 * the hash table (the grid has room for them). */
void gbees_team_store(gs_gbees *g, int32_t first, const int32_t *keys);
/* Velocities and CFL rates of cells first .. n_cells-1 at time t for a
 * built-in or compiled field; each thread's largest rate and first
 * non-finite cell go to its lane. No barrier at its end. */
void gbees_team_velocities(gs_gbees *g, int32_t first, double t);
/* Links cells first .. n_cells-1 with their face neighbours (both ways). */
void gbees_team_link(gs_gbees *g, int32_t first);
/* Clears the rates of the lanes of a team of `threads` (a team granted
 * fewer threads leaves the rest clear), before gbees_team_velocities. */
void gbees_lanes_reset(gs_gbees *g, int threads);
/* Folds the lanes of a team of `threads` after gbees_team_velocities: the
 * grid's largest rate, and the error of the first non-finite cell. */
gs_status gbees_lanes_rates(gs_gbees *g, int threads, int32_t first, char *msg);

#endif
