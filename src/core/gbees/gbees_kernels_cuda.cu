/* The kernels of a GBEES step on a GPU (see gbees_cuda.cu for the method):
 * the hash table of the cells, growth, the block-ordered reductions and the
 * choice of dt, the flux update, and pruning. */
#include <math.h>
#include <stdint.h>

#include "gbees_gpu.cuh"

/* ---- hash table ----------------------------------------------------------- */

__global__ void table_insert_all(const gbees_gpu_state *st, const __grid_constant__ gbees_cells g, int32_t *slot,
                                        int64_t n_slots)
{
  uint64_t mask = (uint64_t)n_slots - 1;
  GRID_STRIDE(c, live_cells(st))
  {
    uint64_t s = gbees_key_hash(g.key + c * g.dim, g.dim) & mask;
    while (atomicCAS(slot + s, GBEES_NONE, (int32_t)c) != GBEES_NONE) s = (s + 1) & mask;
  }
}

/* ---- growth -------------------------------------------------------------- */

__global__ void growth_count(const __grid_constant__ gbees_cells g, const gbees_gpu_state *st, double threshold,
                                    int32_t n_bound, int32_t *count)
{
  int32_t n = st->step_on ? st->n_cells : 0;
  GRID_STRIDE(c, (int64_t)n_bound + 1)
  count[c] = c < n && g.prob[c] >= threshold ? gbees_growth_targets(&g, (int32_t)c, NULL) : 0;
}

__global__ void growth_list(const __grid_constant__ gbees_cells g, gbees_gpu_state *st, int32_t n_bound,
                                   const int32_t *offset, int32_t capacity, int32_t *target_cell,
                                   unsigned char *target_code)
{
  if (!st->step_on) return; /* n_targets may tell the host how much room a halted step needs */
  int32_t total = offset[n_bound];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    st->n_targets = total;
    if (total > st->most_targets) st->most_targets = total;
  }
  if (total > capacity) return;
  GRID_STRIDE(c, n_bound)
  {
    int32_t at = offset[c];
    if (offset[c + 1] == at) continue;
    unsigned char codes[GS_GBEES_MAX_DIM * GS_GBEES_MAX_DIM];
    int k = gbees_growth_targets(&g, (int32_t)c, codes);
    for (int t = 0; t < k; t++) {
      target_cell[at + t] = (int32_t)c;
      target_code[at + t] = codes[t];
    }
  }
}

__device__ static inline int32_t listed_targets(const gbees_gpu_state *st, int32_t capacity)
{
  return st->step_on && st->n_targets <= capacity ? st->n_targets : 0;
}

/* Marks the first listing of every key not in the grid: target_pos[p] is the
 * slot of p's key in the target table, or -1 if the cell exists. */
__global__ void growth_dedupe(const __grid_constant__ gbees_cells g, const gbees_gpu_state *st, int32_t capacity,
                                     const int32_t *slot, int64_t n_slots, const int32_t *target_cell,
                                     const unsigned char *target_code, int32_t *target_slot, int64_t n_target_slots,
                                     int32_t *target_pos)
{
  uint64_t mask = (uint64_t)n_target_slots - 1;
  GRID_STRIDE(p, listed_targets(st, capacity))
  {
    int32_t key[GS_GBEES_MAX_DIM], other[GS_GBEES_MAX_DIM];
    gbees_growth_key(&g, target_cell[p], target_code[p], key);
    if (gbees_table_find(slot, n_slots, g.key, g.dim, key) != GBEES_NONE) {
      target_pos[p] = -1;
      continue;
    }
    uint64_t s = gbees_key_hash(key, g.dim) & mask;
    for (;;) {
      int32_t q = atomicCAS(target_slot + s, GBEES_NONE, (int32_t)p);
      if (q == GBEES_NONE) break;
      gbees_growth_key(&g, target_cell[q], target_code[q], other);
      if (gbees_key_equal(key, other, g.dim)) {
        atomicMin(target_slot + s, (int32_t)p);
        break;
      }
      s = (s + 1) & mask;
    }
    target_pos[p] = (int32_t)s;
  }
}

__global__ void growth_flag(const gbees_gpu_state *st, int32_t capacity, const int32_t *target_slot,
                                   const int32_t *target_pos, int32_t *target_flag)
{
  int32_t n = listed_targets(st, capacity);
  GRID_STRIDE(p, (int64_t)capacity + 1)
  target_flag[p] = p < n && target_pos[p] >= 0 && target_slot[target_pos[p]] == (int32_t)p;
}

/* Appends the new cells if they fit (else the step halts: the host enlarges
 * the arrays and repeats growth) and clears the target table. */
__global__ void growth_commit(const __grid_constant__ gbees_cells g, gbees_gpu_state *st, int32_t capacity,
                                     int32_t cell_capacity, int32_t *slot, int64_t n_slots, const int32_t *target_cell,
                                     const unsigned char *target_code, int32_t *target_slot, const int32_t *target_pos,
                                     const int32_t *target_flag, const int32_t *target_rank, gbees_gpu_arrays cell)
{
  if (!st->step_on) return;
  int32_t n_targets = listed_targets(st, capacity), n = st->n_cells, n_new = target_rank[n_targets];
  int fits = st->n_targets <= capacity && (int64_t)n + n_new <= cell_capacity;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    st->n_wanted = n_new;
    st->n_new = fits ? n_new : 0;
    st->halted = !fits;
    if (n_new > st->most_new) st->most_new = n_new;
  }
  uint64_t mask = (uint64_t)n_slots - 1;
  GRID_STRIDE(p, n_targets)
  {
    if (target_pos[p] >= 0) target_slot[target_pos[p]] = GBEES_NONE;
    if (!fits || !target_flag[p]) continue;
    int32_t c = n + target_rank[p], d = g.dim;
    gbees_growth_key(&g, target_cell[p], target_code[p], cell.key + (size_t)c * d);
    cell.prob[c] = 0.0;
    cell.rate[c] = 0.0;
    for (int i = 0; i < d; i++) cell.v[(size_t)c * d + i] = 0.0;
    for (int i = 0; i < 2 * d; i++) cell.nbr[(size_t)c * 2 * d + i] = GBEES_NONE;
    uint64_t s = gbees_key_hash(cell.key + (size_t)c * d, d) & mask;
    while (atomicCAS(slot + s, GBEES_NONE, c) != GBEES_NONE) s = (s + 1) & mask;
  }
}

/* Velocities of the new cells and their links with their face neighbours
 * (both ways, as gbees_grid_link), one thread per link: the lookups are
 * latency-bound, so they run side by side rather than one after another.
 * The built-in fields do not depend on time, so older cells keep theirs. A
 * user's field is evaluated by its own kernel (field_velocities). */
__global__ void growth_settle(const __grid_constant__ gbees_cells g,
                                     const __grid_constant__ gbees_gpu_params par, gbees_gpu_state *st,
                                     const int32_t *slot, int64_t n_slots, gbees_gpu_arrays cell)
{
  int d = g.dim;
  int32_t first = st->n_cells;
  GRID_STRIDE(t, (int64_t)st->n_new * 2 * d)
  {
    int32_t c = first + (int32_t)(t / (2 * d)), link = (int32_t)(t % (2 * d)), i = link / 2, side = link % 2;
    int32_t key[GS_GBEES_MAX_DIM];
    for (int k = 0; k < d; k++) key[k] = g.key[(size_t)c * d + k];
    if (link == 0 && par.kind != GS_GBEES_CALLBACK) {
      double x[GS_GBEES_MAX_DIM];
      for (int k = 0; k < d; k++) x[k] = par.center[k] + g.dx[k] * key[k];
      double r = gbees_builtin_velocity(par.kind, par.par, d, g.dx, x, cell.v + (size_t)c * d);
      cell.rate[c] = r;
      if (!isfinite(r)) atomicMin(&st->bad_cell, c);
    }
    key[i] += side ? 1 : -1;
    int32_t m = gbees_table_find(slot, n_slots, g.key, d, key);
    cell.nbr[(size_t)c * 2 * d + link] = m;
    if (m != GBEES_NONE && m < first) cell.nbr[(size_t)m * 2 * d + 2 * i + 1 - side] = c;
  }
}

/* ---- reductions ------------------------------------------------------------ */

__device__ static double warp_reduce(double x, int max)
{
  for (int o = 16; o > 0; o /= 2) {
    double y = __shfl_down_sync(0xffffffffu, x, o);
    x = max ? fmax(x, y) : x + y;
  }
  return x;
}

/* Sum (max = 0) or maximum of a block's values, in every thread, in a fixed
 * order (0 pads the last warp: the maxima taken are of rates, which are not
 * negative). */
__device__ static double block_reduce(double x, int max)
{
  __shared__ double part[GBEES_THREADS / 32], result;
  x = warp_reduce(x, max);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = x;
  __syncthreads();
  if (threadIdx.x < 32) {
    x = warp_reduce(threadIdx.x < GBEES_THREADS / 32 ? part[threadIdx.x] : 0.0, max);
    if (threadIdx.x == 0) result = x;
  }
  __syncthreads();
  double r = result;
  __syncthreads(); /* before a next call overwrites part and result */
  return r;
}

/* Called by every thread after thread 0 has written the block's partials:
 * true in the block that finishes last, which may then read all of them.
 * The partials are reduced in block order, so sums do not depend on timing. */
__device__ static bool last_block(gbees_gpu_state *st)
{
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(&st->blocks_done, 1u) == gridDim.x - 1;
    if (last) st->blocks_done = 0;
  }
  __syncthreads();
  return last;
}

/* The reduction of the grid's partials (one per block), in every thread of
 * the last block. */
__device__ static double reduce_partials(const double *partial, int max)
{
  double x = 0.0; /* sums, and maxima of rates, which are not negative */
  for (int b = threadIdx.x; b < gridDim.x; b += blockDim.x)
    x = max ? fmax(x, __ldcg(partial + b)) : x + __ldcg(partial + b);
  return block_reduce(x, max);
}

/* dt = cfl / (largest rate), shortened to land on t_end, as the CPU path;
 * and the face jumps, in the same pass over the cells. The step is counted
 * here, where it moves the time. */
__global__ void choose_dt(const __grid_constant__ gbees_cells g, gbees_gpu_state *st, double cfl,
                                 const double *rate, double *face, double *partial)
{
  if (!advancing(st)) return;
  double m = 0.0;
  GRID_STRIDE(c, live_cells(st))
  {
    m = fmax(m, rate[c]);
    gbees_face_jumps(&g, (int32_t)c, face + c * g.dim);
  }
  m = block_reduce(m, 1);
  if (threadIdx.x == 0) partial[blockIdx.x] = m;
  if (!last_block(st)) return;
  double top = reduce_partials(partial, 1);
  if (threadIdx.x != 0) return;
  st->courant_dt = gbees_courant_step(cfl, top);
  int32_t n = live_cells(st);
  st->steps++;
  st->cell_updates += n;
  if (n > st->peak_cells) st->peak_cells = n;
  double dt = st->t_end - st->time;
  if (st->courant_dt < dt) {
    st->dt = st->courant_dt;
    st->time += st->dt;
  } else {
    st->dt = dt;
    st->time = st->t_end;
  }
}

/* The mass of the grid into st->norm. */
__global__ void mass_total(gbees_gpu_state *st, const double *prob, double *partial)
{
  double s = 0.0;
  GRID_STRIDE(c, live_cells(st)) s += prob[c];
  s = block_reduce(s, 0);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
  if (!last_block(st)) return;
  s = reduce_partials(partial, 0);
  if (threadIdx.x == 0) st->norm = s;
}

/* Divides by st->norm (in a step, only one that advances); then the cells
 * appended by growth become part of the grid, and whether the next step runs
 * is settled (by the last block, when no block reads the state any more). */
__global__ void scale_prob(gbees_gpu_state *st, double *prob, int in_step)
{
  double s = st->norm;
  if (s > 0.0 && (!in_step || advancing(st))) GRID_STRIDE(c, live_cells(st)) prob[c] /= s;
  if (!last_block(st) || threadIdx.x != 0) return;
  st->n_cells += st->n_new;
  st->n_new = 0;
  st->step_on = !st->halted && st->time < st->t_end && st->bad_cell == INT32_MAX;
}

/* Steps run again (towards a new t_end, or after the arrays were enlarged). */
__global__ void steps_resume(gbees_gpu_state *st)
{
  st->halted = 0;
  st->step_on = st->time < st->t_end && st->bad_cell == INT32_MAX;
}

/* ---- the flux update ---------------------------------------------------- */

/* One thread per face, for the same reason as in growth_settle. */
__global__ void advect_fluxes(const __grid_constant__ gbees_cells g, const gbees_gpu_state *st, double *flux)
{
  if (!advancing(st)) return;
  double dt = st->dt;
  GRID_STRIDE(f, (int64_t)live_cells(st) * g.dim)
  flux[f] = gbees_upper_face_flux(&g, (int32_t)(f / g.dim), (int)(f % g.dim), dt);
}

/* The update, and the mass before, after and clipped, and the mass kept
 * (what the scale divides by). */
__global__ void advect_update(const __grid_constant__ gbees_cells g, gbees_gpu_state *st, const double *flux,
                                     double *prob, double *partial)
{
  if (!advancing(st)) return;
  double dt = st->dt, before = 0.0, after = 0.0, clipped = 0.0, kept = 0.0;
  GRID_STRIDE(c, live_cells(st))
  {
    before += g.prob[c];
    double p = gbees_updated_prob(&g, flux, (int32_t)c, dt);
    after += p;
    if (p < 0.0) {
      clipped -= p;
      p = 0.0;
    }
    kept += p;
    prob[c] = p;
  }
  double s[4] = {before, after, clipped, kept};
  for (int k = 0; k < 4; k++) {
    double r = block_reduce(s[k], 0);
    if (threadIdx.x == 0) partial[k * GBEES_REDUCE_BLOCKS + blockIdx.x] = r;
  }
  if (!last_block(st)) return;
  for (int k = 0; k < 4; k++) s[k] = reduce_partials(partial + k * GBEES_REDUCE_BLOCKS, 0);
  if (threadIdx.x != 0) return;
  st->mass_error = fmax(st->mass_error, fabs(s[1] - s[0]));
  st->clipped_mass += s[2];
  st->norm = s[3];
}

/* ---- pruning --------------------------------------------------------------- */

__global__ void prune_candidates(const __grid_constant__ gbees_cells g, gbees_gpu_state *st, double threshold,
                                        int32_t n, double *sort_key, int32_t *sort_cell, int32_t *keep)
{
  if (blockIdx.x == 0 && threadIdx.x == 0) st->n_pruned = n;
  GRID_STRIDE(c, (int64_t)n + 1)
  {
    if (c == n) {
      keep[c] = 0;
      continue;
    }
    int candidate = g.prob[c] < threshold && !gbees_receives_inflow(&g, (int32_t)c, threshold);
    sort_key[c] = candidate ? g.prob[c] : INFINITY;
    sort_cell[c] = (int32_t)c;
    keep[c] = 1;
  }
}

__global__ void prune_cut(gbees_gpu_state *st, double threshold, int32_t n, const double *sorted,
                                 const double *cum)
{
  GRID_STRIDE(k, n)
  if (!(sorted[k] < INFINITY && gbees_prune_removable(sorted[k], cum[k], threshold)))
    atomicMin(&st->n_pruned, (int32_t)k);
}

__global__ void prune_mark(gbees_gpu_state *st, const int32_t *sorted_cell, const double *cum, int32_t *keep)
{
  int32_t m = st->n_pruned;
  if (blockIdx.x == 0 && threadIdx.x == 0 && m > 0) st->pruned_mass += cum[m - 1];
  GRID_STRIDE(k, m) keep[sorted_cell[k]] = 0;
}

/* The kept cells, in order and with their links renumbered, into `to`. */
__global__ void prune_scatter(int dim, gbees_gpu_state *st, int32_t n, const int32_t *keep,
                                     const int32_t *index, gbees_gpu_arrays from, gbees_gpu_arrays to)
{
  if (blockIdx.x == 0 && threadIdx.x == 0) st->n_cells = index[n];
  GRID_STRIDE(c, n)
  {
    if (!keep[c]) continue;
    int32_t t = index[c];
    for (int i = 0; i < dim; i++) {
      to.key[(size_t)t * dim + i] = from.key[c * dim + i];
      to.v[(size_t)t * dim + i] = from.v[c * dim + i];
    }
    for (int i = 0; i < 2 * dim; i++) {
      int32_t m = from.nbr[c * 2 * dim + i];
      to.nbr[(size_t)t * 2 * dim + i] = m == GBEES_NONE || !keep[m] ? GBEES_NONE : index[m];
    }
    to.prob[t] = from.prob[c];
    to.rate[t] = from.rate[c];
  }
}
