/* The GBEES CPU step: one parallel region per step (two for a field given
 * as an R function, which is called between them by the thread that entered
 * the core), so that a step pays for one start of its team and the barriers
 * its stages need, not a region per stage. Here: the step, velocities, the
 * step's size, the conservative flux update (gbees_math.h says how fluxes
 * are owned) and normalization, and the scratch the step keeps; growth is in
 * gbees_grow.c, pruning in gbees_prune.c, compaction in gbees_grid.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbees_cpu.h"

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

gs_status gbees_scratch_new(gs_gbees *g, char *msg)
{
  g->scratch = (gbees_scratch *)calloc(1, sizeof *g->scratch);
  return g->scratch ? GS_OK : gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
}

void gbees_scratch_free(gs_gbees *g)
{
  gbees_scratch *s = g->scratch;
  if (!s) return;
  for (int t = 0; t < GS_CPU_MAX_THREADS; t++) free(s->lane[t].keys);
  free(s->listed);
  free(s->first_of);
  free(s->index);
  free(s);
  g->scratch = NULL;
}

int gbees_scratch_fit(void **p, int64_t *capacity, int64_t n, size_t size)
{
  if (n <= *capacity) return 1;
  int64_t cap = *capacity > 0 ? *capacity : 1024;
  while (cap < n) cap *= 2;
  void *q = realloc(*p, (size_t)cap * size);
  if (!q) return 0;
  *p = q;
  *capacity = cap;
  return 1;
}

/* A built-in field, or a user field compiled for the CPU (one call per cell). */
GS_CPU_DISPATCH
void gbees_team_velocities(gs_gbees *g, int32_t first, double t)
{
  gbees_lane *lane = &g->scratch->lane[GBEES_THREAD_NUM()];
  double top = 0.0;
  int32_t bad = INT32_MAX;
#pragma omp for schedule(static) nowait
  for (int32_t c = first; c < g->n_cells; c++) {
    double x[GS_GBEES_MAX_DIM], *v = g->v + (size_t)c * g->dim;
    cell_center(g, c, x);
    double rate = g->model.kind != GS_GBEES_CALLBACK
                      ? gbees_builtin_velocity(g->model.kind, g->model.par, g->dim, g->opt.dx, x, v)
                      : g->model.velocities(t, g->opt.dx, x, v);
    g->rate[c] = rate;
    if (!isfinite(rate) && c < bad) bad = c;
    top = rate > top ? rate : top;
  }
  lane->max_rate = top;
  lane->bad = bad;
}

void gbees_lanes_reset(gs_gbees *g, int threads)
{
  for (int t = 0; t < threads; t++) {
    g->scratch->lane[t].max_rate = 0.0;
    g->scratch->lane[t].bad = INT32_MAX;
  }
}

gs_status gbees_lanes_rates(gs_gbees *g, int threads, int32_t first, char *msg)
{
  double top = first > 0 ? g->max_rate : 0.0;
  int32_t bad = INT32_MAX;
  for (int t = 0; t < threads; t++) {
    const gbees_lane *lane = &g->scratch->lane[t];
    top = lane->max_rate > top ? lane->max_rate : top;
    bad = lane->bad < bad ? lane->bad : bad;
  }
  g->max_rate = top;
  return bad == INT32_MAX ? GS_OK : gbees_nonfinite_field(g, g->key + (size_t)bad * g->dim, msg);
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

/* The largest rate of cells first .. n_cells-1 after the callback, and the first non-finite one. */
static gs_status callback_rates(gs_gbees *g, int32_t first, char *msg)
{
  double top = first > 0 ? g->max_rate : 0.0;
  for (int32_t c = first; c < g->n_cells; c++) {
    if (!isfinite(g->rate[c])) return gbees_nonfinite_field(g, g->key + (size_t)c * g->dim, msg);
    top = g->rate[c] > top ? g->rate[c] : top;
  }
  g->max_rate = top;
  return GS_OK;
}

gs_status gbees_settle(gs_gbees *g, int32_t first, const int32_t *keys, double t, int threads, char *msg)
{
  int compiled = g->model.kind != GS_GBEES_CALLBACK || g->model.velocities;
  gbees_lanes_reset(g, threads);
#pragma omp parallel num_threads(threads)
  {
    if (keys) gbees_team_store(g, first, keys);
    if (compiled) gbees_team_velocities(g, first, t);
    gbees_team_link(g, first);
  }
  if (compiled) return gbees_lanes_rates(g, threads, first, msg);
  gs_status st = callback_velocities(g, first, t, msg);
  return st != GS_OK ? st : callback_rates(g, first, msg);
}

/* The loops over the parts hand them out in turn (static, 1): the cells of
 * the grid's edge, with fewer neighbours and cheaper updates, come last in
 * cell order (16 contiguous ranges of a Lorenz '63 grid differ by up to 6 %
 * from their mean, in neighbours to read), so every thread gets old and new
 * cells alike, and keeps its parts from loop to loop. */
GS_CPU_DISPATCH
void gbees_team_advect(gs_gbees *g, double dt)
{
  int d = g->dim;
  int32_t n = g->n_cells;
  gbees_cells cells = gbees_host_cells(g);
  gbees_parts parts = gbees_parts_of(n);
  double *before = g->scratch->part[0], *after = g->scratch->part[1], *clipped = g->scratch->part[2],
         *mass = g->scratch->part[3];
#pragma omp for schedule(static, 1)
  for (int k = 0; k < parts.count; k++) {
    double s = 0.0;
    for (int32_t c = gbees_part_begin(&parts, k); c < gbees_part_end(&parts, k); c++) {
      s += g->prob[c];
      gbees_face_jumps(&cells, c, g->face + (size_t)c * d);
    }
    before[k] = s;
  }
#pragma omp for schedule(static, 1)
  for (int k = 0; k < parts.count; k++)
    for (int32_t c = gbees_part_begin(&parts, k); c < gbees_part_end(&parts, k); c++)
      for (int j = 0; j < d; j++) g->flux[(size_t)c * d + j] = gbees_upper_face_flux(&cells, c, j, dt);
  /* a cell's update reads only its own probability and the fluxes */
#pragma omp for schedule(static, 1)
  for (int k = 0; k < parts.count; k++) {
    double a = 0.0, cl = 0.0, m = 0.0;
    for (int32_t c = gbees_part_begin(&parts, k); c < gbees_part_end(&parts, k); c++) {
      double p = gbees_updated_prob(&cells, g->flux, c, dt);
      a += p;
      if (p < 0.0) {
        cl -= p;
        p = 0.0;
      }
      g->prob[c] = p;
      m += p;
    }
    after[k] = a;
    clipped[k] = cl;
    mass[k] = m;
  }
#pragma omp master
  {
    g->info.mass_error =
        fmax(g->info.mass_error, fabs(gbees_parts_total(after, parts.count) - gbees_parts_total(before, parts.count)));
    g->info.clipped_mass += gbees_parts_total(clipped, parts.count);
  }
  /* the normalization, as gbees_team_normalize: after the loop's barrier
   * every thread adds the parts in the same order, so all get the same
   * total and all or none share the division; its barrier keeps the sums
   * of the parts until the master has read them */
  double total = gbees_parts_total(mass, parts.count);
  if (total > 0.0) {
#pragma omp for schedule(static, 1)
    for (int k = 0; k < parts.count; k++)
      for (int32_t c = gbees_part_begin(&parts, k); c < gbees_part_end(&parts, k); c++) g->prob[c] /= total;
  } else {
#pragma omp barrier
  }
}

void gbees_team_normalize(gs_gbees *g)
{
  int32_t n = g->n_cells;
  gbees_parts parts = gbees_parts_of(n);
  double *part = g->scratch->part[0];
#pragma omp for schedule(static)
  for (int k = 0; k < parts.count; k++) {
    double s = 0.0;
    for (int32_t c = gbees_part_begin(&parts, k); c < gbees_part_end(&parts, k); c++) s += g->prob[c];
    part[k] = s;
  }
  /* after the loop's barrier every thread adds the parts in the same order,
   * so all get the same total and all or none share the division */
  double total = gbees_parts_total(part, parts.count);
  if (total > 0.0) {
#pragma omp for schedule(static)
    for (int k = 0; k < parts.count; k++)
      for (int32_t c = gbees_part_begin(&parts, k); c < gbees_part_end(&parts, k); c++) g->prob[c] /= total;
  }
}

void gbees_normalize(gs_gbees *g)
{
#pragma omp parallel num_threads(gbees_team(g, g->n_cells))
  gbees_team_normalize(g);
}

/* The step's size, by every thread alike from the lanes of the velocities
 * computed in this step (none: the rate st->top stands); the error of a
 * non-finite field or of a step the clock cannot take, its message written
 * by the master thread. */
static gs_status team_courant(gbees_step *st, int folded, double *dt)
{
  gs_gbees *g = st->g;
  char *msg = GBEES_THREAD_NUM() == 0 ? st->msg : NULL;
  double top = st->top;
  int32_t bad = INT32_MAX;
  for (int t = 0; folded && t < GBEES_TEAM_SIZE(); t++) {
    const gbees_lane *lane = &g->scratch->lane[t];
    top = lane->max_rate > top ? lane->max_rate : top;
    bad = lane->bad < bad ? lane->bad : bad;
  }
  if (bad != INT32_MAX) return gbees_nonfinite_field(g, g->key + (size_t)bad * g->dim, msg);
  *dt = gbees_courant_step(g->opt.cfl, top);
  gs_status st_guard = gbees_step_guard(g, *dt, st->t_end, msg);
  if (st_guard != GS_OK) return st_guard;
  /* no thread reads these in the region */
#pragma omp master
  {
    g->max_rate = top;
    g->dt = *dt;
  }
  if (st->t_end - g->time <= *dt) *dt = st->t_end - g->time;
  return GS_OK;
}

void gbees_team_advance(gbees_step *st)
{
  gs_gbees *g = st->g;
  if (st->status != GS_OK) return;
  int compiled = !st->r_field;
  if (st->velocities_of_all && compiled) {
    gbees_team_velocities(g, 0, g->time);
#pragma omp barrier
#pragma omp master
    st->since = gbees_lap(g, GS_GBEES_PHASE_FIELD, st->since);
  }
  double dt = 0.0;
  gs_status status = team_courant(st, compiled && (st->velocities_of_all || st->fresh > 0), &dt);
  if (status != GS_OK) {
#pragma omp master
    st->status = status;
    return;
  }
  gbees_team_advect(g, dt);
#pragma omp master
  {
    st->dt = dt;
    st->cells = g->n_cells;
    st->since = gbees_lap(g, GS_GBEES_PHASE_ADVECT, st->since);
  }
  if (!st->prune) return;
  gbees_team_prune(g, &st->status, st->msg);
  if (st->status == GS_OK) gbees_team_normalize(g);
#pragma omp master
  st->since = gbees_lap(g, GS_GBEES_PHASE_PRUNE, st->since);
}

/* The callback of a field given as an R function, between the growth and
 * the rest of the step, by the thread that entered the core. */
static gs_status r_field_velocities(gbees_step *st)
{
  gs_gbees *g = st->g;
  int32_t first = st->velocities_of_all ? 0 : st->first;
  if (first == g->n_cells) return GS_OK;
  gs_status status = callback_velocities(g, first, g->time, st->msg);
  if (status == GS_OK) status = callback_rates(g, first, st->msg);
  st->top = g->max_rate;
  st->since = gbees_lap(g, st->velocities_of_all ? GS_GBEES_PHASE_FIELD : GS_GBEES_PHASE_NEW_CELLS, st->since);
  return status;
}

gs_status gbees_cpu_step(gs_gbees *g, double t_end, char *msg)
{
  gbees_scratch *s = g->scratch;
  gbees_step st = {.g = g, .t_end = t_end, .msg = msg, .status = GS_OK, .first = g->n_cells, .top = g->max_rate,
                   .listed_capacity = s->listed_capacity, .first_capacity = s->first_capacity,
                   .capacity = g->capacity, .velocities_of_all = !g->model.autonomous,
                   .r_field = g->model.kind == GS_GBEES_CALLBACK && !g->model.velocities,
                   .prune = g->steps_since_prune + 1 >= g->opt.prune_every, .since = gs_wall_seconds()};
  if (st.velocities_of_all) st.top = 0.0;
  int threads = gbees_team(g, g->n_cells);
#pragma omp parallel num_threads(threads)
  {
    gbees_team_grow(&st);
    if (!st.r_field) gbees_team_advance(&st);
  }
  if (st.r_field && st.status == GS_OK) {
    st.status = r_field_velocities(&st);
#pragma omp parallel num_threads(threads)
    gbees_team_advance(&st);
  }
  if (st.status != GS_OK) return st.status;
  g->time = st.t_end - g->time <= st.dt ? st.t_end : g->time + st.dt;
  g->info.steps++;
  g->info.cell_updates += st.cells;
  if ((size_t)st.cells > g->info.peak_cells) g->info.peak_cells = (size_t)st.cells;
  if (!st.prune) g->steps_since_prune++;
  return GS_OK;
}
