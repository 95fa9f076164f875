/* One GBEES time step on the CPU: growth, velocities, the CFL rate, the
 * conservative flux update (gbees_math.h says how fluxes are owned),
 * normalization and pruning. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbees_internal.h"
#include "gbees_math.h"
#include "gs_cpu.h"

gbees_cells gbees_host_cells(const gs_gbees *g)
{
  gbees_cells v = {g->dim, {0}, g->key, g->nbr, g->v, g->prob, g->face};
  for (int i = 0; i < g->dim; i++) v.dx[i] = g->opt.dx[i];
  return v;
}

static void cell_center(const gs_gbees *g, int32_t c, double *x)
{
  for (int i = 0; i < g->dim; i++) x[i] = g->opt.center[i] + g->opt.dx[i] * g->key[(size_t)c * g->dim + i];
}

gs_status gbees_nonfinite_field(const gs_gbees *g, const int32_t *key, char *msg)
{
  char at[160];
  int len = 0;
  for (int i = 0; i < g->dim && len < (int)sizeof at - 24; i++)
    len += snprintf(at + len, sizeof at - len, "%s%.6g", i ? ", " : "", g->opt.center[i] + g->opt.dx[i] * key[i]);
  return gs_set_msg(msg, GS_ERR_ARG, "the model's vector field is not finite near the state (%s) at time %.6g", at,
                    g->time);
}

static gs_status check_velocities(const gs_gbees *g, int32_t first, char *msg)
{
  for (int32_t c = first; c < g->n_cells; c++)
    if (!isfinite(g->rate[c])) return gbees_nonfinite_field(g, g->key + (size_t)c * g->dim, msg);
  return GS_OK;
}

GS_CPU_DISPATCH
static void builtin_velocities(gs_gbees *g, int32_t first)
{
#pragma omp parallel for schedule(static) num_threads(gs_cpu_threads_for(g->opt.threads, g->n_cells - first))
  for (int32_t c = first; c < g->n_cells; c++) {
    double x[GS_GBEES_MAX_DIM];
    cell_center(g, c, x);
    g->rate[c] = gbees_builtin_velocity(g->model.kind, g->model.par, g->dim, g->opt.dx, x, g->v + (size_t)c * g->dim);
  }
}

/* A user field compiled for the CPU: one call per cell, in parallel. */
static void compiled_velocities(gs_gbees *g, int32_t first, double t)
{
#pragma omp parallel for schedule(static) num_threads(gs_cpu_threads_for(g->opt.threads, g->n_cells - first))
  for (int32_t c = first; c < g->n_cells; c++) {
    double x[GS_GBEES_MAX_DIM];
    cell_center(g, c, x);
    g->rate[c] = g->model.velocities(t, g->opt.dx, x, g->v + (size_t)c * g->dim);
  }
}

/* A user field given as an R function is called once for all new cells: dim states per cell (one
 * per face centre), of which component i of the i-th is kept. */
static gs_status callback_velocities(gs_gbees *g, int32_t first, double t, char *msg)
{
  int d = g->dim;
  size_t n_new = (size_t)(g->n_cells - first), n_points = n_new * d;
  if (n_new == 0) return GS_OK;
  double *x = (double *)malloc(2 * n_points * d * sizeof(double));
  if (!x)
    return gs_set_msg(msg, GS_ERR_NOMEM, "%.0f model evaluations do not fit in host memory", (double)n_points);
  double *f = x + n_points * d;
  for (size_t k = 0; k < n_new; k++) {
    double center[GS_GBEES_MAX_DIM];
    cell_center(g, first + (int32_t)k, center);
    for (int i = 0; i < d; i++) {
      double *p = x + (k * d + i) * d;
      memcpy(p, center, d * sizeof(double));
      p[i] += 0.5 * g->opt.dx[i];
    }
  }
  gs_status st = g->model.field(g->model.ctx, t, x, n_points, f, msg);
  if (st != GS_OK) {
    free(x);
    return st;
  }
  for (size_t k = 0; k < n_new; k++) {
    int32_t c = first + (int32_t)k;
    double rate = 0.0;
    for (int i = 0; i < d; i++) {
      double v = f[(k * d + i) * d + i];
      g->v[(size_t)c * d + i] = v;
      rate += fabs(v) / g->opt.dx[i];
    }
    g->rate[c] = rate;
  }
  free(x);
  return GS_OK;
}

gs_status gbees_velocities(gs_gbees *g, int32_t first, double t, char *msg)
{
  gs_status st = GS_OK;
  if (g->model.kind != GS_GBEES_CALLBACK)
    builtin_velocities(g, first);
  else if (g->model.velocities)
    compiled_velocities(g, first, t);
  else
    st = callback_velocities(g, first, t, msg);
  return st != GS_OK ? st : check_velocities(g, first, msg);
}

/* The growth targets of cell c that are not in the grid (before this
 * step's growth), in target order, into keys (dim each); returns how many
 * (at most dim^2; keys may be NULL to count). */
static int missing_targets(const gs_gbees *g, const gbees_cells *cells, int32_t c, int32_t *keys)
{
  if (!(g->prob[c] >= g->opt.threshold)) return 0;
  unsigned char codes[GS_GBEES_MAX_DIM * GS_GBEES_MAX_DIM];
  int n_targets = gbees_growth_targets(cells, c, codes), n = 0;
  for (int t = 0; t < n_targets; t++) {
    int32_t key[GS_GBEES_MAX_DIM];
    gbees_growth_key(cells, c, codes[t], key);
    if (gbees_grid_find(g, key) != GBEES_NONE) continue;
    if (keys) memcpy(keys + (size_t)n * g->dim, key, g->dim * sizeof(int32_t));
    n++;
  }
  return n;
}

/* Lists the missing targets of every cell in cell order, into *keys
 * (allocated here); returns their number, or -1 out of memory. The search
 * runs in parallel over the cells: a count per cell, offsets from their
 * running sum, then the keys at the offsets. */
static int64_t list_missing_targets(const gs_gbees *g, int32_t **keys)
{
  int32_t n = g->n_cells;
  int d = g->dim;
  gbees_cells cells = gbees_host_cells(g);
  int64_t *offset = (int64_t *)malloc(((size_t)n + 1) * sizeof(int64_t));
  if (!offset) return -1;
  int threads = gs_cpu_threads_for(g->opt.threads, n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int32_t c = 0; c < n; c++) offset[c + 1] = missing_targets(g, &cells, c, NULL);
  offset[0] = 0;
  for (int32_t c = 0; c < n; c++) offset[c + 1] += offset[c];
  int64_t total = offset[n];
  *keys = (int32_t *)malloc((size_t)total * d * sizeof(int32_t) + 1);
  if (!*keys) {
    free(offset);
    return -1;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int32_t c = 0; c < n; c++)
    if (offset[c + 1] > offset[c]) missing_targets(g, &cells, c, *keys + (size_t)offset[c] * d);
  free(offset);
  return total;
}

/* New cells at the growth targets (gbees_growth_targets) of every cell at
 * or above the threshold, appended in the order of the cells and their
 * targets (a target listed twice is appended once, where it is first
 * listed). */
gs_status gbees_grow(gs_gbees *g, char *msg)
{
  int32_t first = g->n_cells, *keys = NULL;
  int64_t total = list_missing_targets(g, &keys);
  if (total < 0) return gs_set_msg(msg, GS_ERR_NOMEM, "growing %d GBEES cells ran out of host memory", first);
  for (int64_t k = 0; k < total; k++) {
    if (gbees_grid_insert(g, keys + (size_t)k * g->dim, msg) == GBEES_NONE) {
      free(keys);
      return GS_ERR_NOMEM;
    }
  }
  free(keys);
  if (g->n_cells == first) return GS_OK;
  gs_status st = gbees_velocities(g, first, g->time, msg);
  if (st != GS_OK) return st;
  gbees_grid_link(g, first);
  return GS_OK;
}

double gbees_max_rate(const gs_gbees *g)
{
  double m = 0.0;
#pragma omp parallel for schedule(static) reduction(max : m) num_threads(gs_cpu_threads_for(g->opt.threads, g->n_cells))
  for (int32_t c = 0; c < g->n_cells; c++) m = fmax(m, g->rate[c]);
  return m;
}

/* Sums over the cells are taken in an order that depends only on the number
 * of cells, so that a run rounds as the one before it did, on any number of
 * threads (an OpenMP reduction adds the threads' sums in the order in which
 * they finish): the cells are cut into at most GBEES_SUM_PARTS ranges of at
 * least GBEES_SUM_MIN_PART cells, each range is summed in order, then the
 * ranges in order. */
#define GBEES_SUM_PARTS 1024
#define GBEES_SUM_MIN_PART 1024

typedef struct {
  int32_t n, size, count;
} cell_parts;

static cell_parts cell_parts_of(int32_t n)
{
  int32_t size = (n + GBEES_SUM_PARTS - 1) / GBEES_SUM_PARTS;
  if (size < GBEES_SUM_MIN_PART) size = GBEES_SUM_MIN_PART;
  cell_parts p = {n, size, (n + size - 1) / size};
  return p;
}

static int32_t part_begin(const cell_parts *p, int k) { return k * p->size; }
static int32_t part_end(const cell_parts *p, int k) { return k == p->count - 1 ? p->n : (k + 1) * p->size; }

static double parts_total(const double *part, int count)
{
  double s = 0.0;
  for (int k = 0; k < count; k++) s += part[k];
  return s;
}

GS_CPU_DISPATCH
void gbees_advect(gs_gbees *g, double dt)
{
  int d = g->dim;
  int32_t n = g->n_cells;
  gbees_cells cells = gbees_host_cells(g);
  cell_parts parts = cell_parts_of(n);
  double before[GBEES_SUM_PARTS], after[GBEES_SUM_PARTS], clipped[GBEES_SUM_PARTS];

#pragma omp parallel num_threads(gs_cpu_threads_for(g->opt.threads, n))
  {
#pragma omp for schedule(static)
    for (int k = 0; k < parts.count; k++) {
      double s = 0.0;
      for (int32_t c = part_begin(&parts, k); c < part_end(&parts, k); c++) {
        s += g->prob[c];
        gbees_face_jumps(&cells, c, g->face + (size_t)c * d);
      }
      before[k] = s;
    }
#pragma omp for schedule(static)
    for (int32_t c = 0; c < n; c++)
      for (int j = 0; j < d; j++) g->flux[(size_t)c * d + j] = gbees_upper_face_flux(&cells, c, j, dt);
    /* a cell's update reads only its own probability and the fluxes */
#pragma omp for schedule(static)
    for (int k = 0; k < parts.count; k++) {
      double a = 0.0, cl = 0.0;
      for (int32_t c = part_begin(&parts, k); c < part_end(&parts, k); c++) {
        double p = gbees_updated_prob(&cells, g->flux, c, dt);
        a += p;
        if (p < 0.0) {
          cl -= p;
          p = 0.0;
        }
        g->prob[c] = p;
      }
      after[k] = a;
      clipped[k] = cl;
    }
  }
  g->info.mass_error = fmax(g->info.mass_error, fabs(parts_total(after, parts.count) - parts_total(before, parts.count)));
  g->info.clipped_mass += parts_total(clipped, parts.count);
}

void gbees_normalize(gs_gbees *g)
{
  int32_t n = g->n_cells;
  cell_parts parts = cell_parts_of(n);
  double part[GBEES_SUM_PARTS];
  /* one team for the sum and the division: a parallel region per step costs as much as a small grid's loop */
#pragma omp parallel num_threads(gs_cpu_threads_for(g->opt.threads, n))
  {
#pragma omp for schedule(static)
    for (int k = 0; k < parts.count; k++) {
      double s = 0.0;
      for (int32_t c = part_begin(&parts, k); c < part_end(&parts, k); c++) s += g->prob[c];
      part[k] = s;
    }
    /* after the loop's barrier every thread adds the parts in the same order,
     * so all get the same total and all or none share the division */
    double total = parts_total(part, parts.count);
    if (total > 0.0) {
#pragma omp for schedule(static)
      for (int32_t c = 0; c < n; c++) g->prob[c] /= total;
    }
  }
}

typedef struct {
  double prob;
  int32_t cell;
} prune_candidate;

static int candidate_order(const void *a, const void *b)
{
  double pa = ((const prune_candidate *)a)->prob, pb = ((const prune_candidate *)b)->prob;
  if (pa != pb) return pa < pb ? -1 : 1;
  int32_t ca = ((const prune_candidate *)a)->cell, cb = ((const prune_candidate *)b)->cell;
  return (ca > cb) - (ca < cb);
}

/* Removes cells below the threshold that receive no significant inflow, the
 * smallest first, while each removed mass stays below the threshold
 * relative to the mass that remains. */
gs_status gbees_prune(gs_gbees *g, char *msg)
{
  int32_t n = g->n_cells;
  g->steps_since_prune = 0;
  unsigned char *keep = (unsigned char *)malloc((size_t)n);
  prune_candidate *cand = (prune_candidate *)malloc((size_t)n * sizeof(prune_candidate));
  if (!keep || !cand) {
    free(keep);
    free(cand);
    return gs_set_msg(msg, GS_ERR_NOMEM, "pruning %d GBEES cells ran out of host memory", n);
  }
  gbees_cells cells = gbees_host_cells(g);
#pragma omp parallel for schedule(static) num_threads(gs_cpu_threads_for(g->opt.threads, n))
  for (int32_t c = 0; c < n; c++) keep[c] = !(g->prob[c] < g->opt.threshold) || gbees_receives_inflow(&cells, c, g->opt.threshold);
  int32_t n_cand = 0;
  for (int32_t c = 0; c < n; c++)
    if (!keep[c]) cand[n_cand++] = (prune_candidate){g->prob[c], c};
  for (int32_t c = 0; c < n; c++) keep[c] = 1;
  qsort(cand, (size_t)n_cand, sizeof *cand, candidate_order);
  double removed = 0.0;
  for (int32_t k = 0; k < n_cand; k++) {
    double total = removed + cand[k].prob;
    if (!gbees_prune_removable(cand[k].prob, total, g->opt.threshold)) break;
    removed = total;
    keep[cand[k].cell] = 0;
  }
  g->info.pruned_mass += removed;
  gbees_grid_compact(g, keep);
  free(keep);
  free(cand);
  return GS_OK;
}
