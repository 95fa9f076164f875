/* GBEES grid storage: growable cell arrays and an open-addressing hash table
 * (linear probing, load at most 1/2) that is enlarged and rehashed as the
 * grid grows, so there is no fixed capacity. The table is filled, and the
 * cells compacted, by all threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbees_cpu.h"

static size_t cell_bytes(int dim)
{
  /* key, prob, v, rate, nbr, face, flux */
  return (size_t)dim * 4 + 8 + (size_t)dim * 8 + 8 + (size_t)2 * dim * 4 + (size_t)2 * dim * 8;
}

double gbees_grid_bytes(const gs_gbees *g)
{
  return (double)g->capacity * (double)cell_bytes(g->dim) + (double)g->n_slots * 4.0;
}

void gbees_team_clear_slots(int32_t *slot, int64_t n_slots)
{
  const int64_t chunk = 16384;
#pragma omp for schedule(static) nowait
  for (int64_t s = 0; s < n_slots; s += chunk)
    memset(slot + s, 0xff, (size_t)(n_slots - s < chunk ? n_slots - s : chunk) * sizeof(int32_t)); /* GBEES_NONE */
}

void gbees_team_fill_table(gs_gbees *g, int32_t n)
{
  int d = g->dim;
  gbees_team_clear_slots(g->slot, g->n_slots);
#pragma omp barrier
#pragma omp for schedule(static)
  for (int32_t c = 0; c < n; c++) gbees_slot_claim(g->slot, g->n_slots, g->key + (size_t)c * d, d, c);
}

/* A new, empty table of n_slots slots, filled by the caller. */
static gs_status new_table(gs_gbees *g, int64_t n_slots, char *msg)
{
  int32_t *slot = (int32_t *)malloc((size_t)n_slots * sizeof(int32_t));
  if (!slot)
    return gs_set_msg(msg, GS_ERR_NOMEM, "the GBEES grid needs %d cells; its hash table (%.2f GB) could not be allocated",
                      g->n_cells, (double)n_slots * 4.0 / 1e9);
  free(g->slot);
  g->slot = slot;
  g->n_slots = n_slots;
  return GS_OK;
}

static int grow_array(void **p, size_t bytes)
{
  void *q = realloc(*p, bytes);
  if (!q) return 0;
  *p = q;
  return 1;
}

gs_status gbees_grid_size(int64_t current, int64_t cells, int64_t *capacity, int64_t *slots, char *msg)
{
  int64_t cap = current > 0 ? current : 1024;
  while (cap < cells) cap *= 2;
  if (cap > INT32_MAX / 2) cap = INT32_MAX / 2;
  if (cells > cap)
    return gs_set_msg(msg, GS_ERR_NOMEM, "the GBEES grid needs %.0f cells, more than the %d it can index",
                      (double)cells, (int)cap);
  int64_t s = 2048;
  while (s < 2 * cap) s *= 2;
  *capacity = cap;
  *slots = s;
  return GS_OK;
}

gs_status gbees_grid_reserve_unfilled(gs_gbees *g, int64_t cells, int *refill, char *msg)
{
  int64_t cap = g->capacity, slots = g->n_slots;
  *refill = 0;
  if (cells > g->capacity || g->n_slots < 2 * (int64_t)g->capacity) {
    gs_status st = gbees_grid_size(g->capacity, cells, &cap, &slots, msg);
    if (st != GS_OK) return st;
  }
  if (cells > g->capacity) {
    int d = g->dim;
    size_t n = (size_t)cap;
    /* refused here rather than left to the system, which may grant the
     * arrays and then stop the process when they are touched */
    double need = (double)cap * (double)cell_bytes(d) + (double)slots * 4.0, have = gs_host_memory_bytes();
    if (have > 0.0 && need > have)
      return gs_set_msg(msg, GS_ERR_NOMEM,
                        "the GBEES grid needs %.0f cells (%.3g GB), more than the host's %.3g GB of memory: use "
                        "wider cells or a larger threshold",
                        (double)cells, need / 1e9, have / 1e9);
    if (!grow_array((void **)&g->key, n * d * sizeof(int32_t)) || !grow_array((void **)&g->prob, n * sizeof(double)) ||
        !grow_array((void **)&g->v, n * d * sizeof(double)) || !grow_array((void **)&g->rate, n * sizeof(double)) ||
        !grow_array((void **)&g->nbr, n * 2 * d * sizeof(int32_t)) ||
        !grow_array((void **)&g->face, n * d * sizeof(double)) || !grow_array((void **)&g->flux, n * d * sizeof(double)) ||
        !gbees_scratch_fit((void **)&g->scratch->index, &g->scratch->index_capacity, cap, sizeof(int32_t)))
      return gs_set_msg(msg, GS_ERR_NOMEM, "the GBEES grid needs %.0f cells (%.2f GB); host memory ran out",
                        (double)cells, (double)cap * (double)cell_bytes(d) / 1e9);
    g->capacity = (int32_t)cap;
  }
  if (g->n_slots < slots) {
    gs_status st = new_table(g, slots, msg);
    if (st != GS_OK) return st;
    *refill = 1;
  }
  double bytes = gbees_grid_bytes(g);
  if (bytes > g->info.peak_memory_bytes) g->info.peak_memory_bytes = bytes;
  return GS_OK;
}

gs_status gbees_grid_reserve(gs_gbees *g, int64_t cells, char *msg)
{
  int refill;
  gs_status st = gbees_grid_reserve_unfilled(g, cells, &refill, msg);
  /* a unit of work per slot: a table is enlarged before the cells arrive */
  if (refill) {
#pragma omp parallel num_threads(gs_cpu_threads_for(g->opt.threads, (double)g->n_slots))
    gbees_team_fill_table(g, g->n_cells);
  }
  return st;
}

int32_t gbees_grid_find(const gs_gbees *g, const int32_t *key)
{
  return gbees_table_find(g->slot, g->n_slots, g->key, g->dim, key);
}

gs_status gbees_grid_fill_box(gs_gbees *g, const double *prec, const int *half_width, char *msg)
{
  int d = g->dim;
  double total = 1.0;
  for (int i = 0; i < d; i++) {
    if (half_width[i] < 0) return gs_set_msg(msg, GS_ERR_ARG, "negative initial box half-width");
    total *= 2.0 * half_width[i] + 1.0;
  }
  gs_status st = gbees_grid_reserve(g, (int64_t)fmin(total, 4e9), msg);
  if (st != GS_OK) return st;
  int32_t n = (int32_t)total;
  const double *dx = g->opt.dx;
  g->n_cells = n;
#pragma omp parallel for schedule(static) num_threads(gbees_team(g, n))
  for (int32_t c = 0; c < n; c++) {
    int32_t *key = g->key + (size_t)c * d, rest = c;
    for (int i = 0; i < d; i++) {
      int32_t side = 2 * half_width[i] + 1;
      key[i] = rest % side - half_width[i];
      rest /= side;
    }
    double q = 0.0;
    for (int a = 0; a < d; a++)
      for (int b = 0; b < d; b++) q += key[a] * dx[a] * prec[a + b * d] * key[b] * dx[b];
    g->prob[c] = exp(-0.5 * q);
    g->rate[c] = 0.0;
    for (int i = 0; i < d; i++) g->v[(size_t)c * d + i] = 0.0;
    for (int i = 0; i < 2 * d; i++) g->nbr[(size_t)c * 2 * d + i] = GBEES_NONE;
    gbees_slot_claim(g->slot, g->n_slots, key, d, c);
  }
  return GS_OK;
}

void gbees_team_store(gs_gbees *g, int32_t first, const int32_t *keys)
{
  int d = g->dim;
#pragma omp for schedule(static)
  for (int32_t c = first; c < g->n_cells; c++) {
    int32_t *key = g->key + (size_t)c * d;
    memcpy(key, keys + (size_t)(c - first) * d, d * sizeof(int32_t));
    g->prob[c] = 0.0;
    g->rate[c] = 0.0;
    for (int i = 0; i < d; i++) g->v[(size_t)c * d + i] = 0.0;
    for (int i = 0; i < 2 * d; i++) g->nbr[(size_t)c * 2 * d + i] = GBEES_NONE;
    gbees_slot_claim(g->slot, g->n_slots, key, d, c);
  }
}

void gbees_team_link(gs_gbees *g, int32_t first)
{
  int d = g->dim;
  /* A thread writes its own cell's links and the back-links of cells older
   * than `first`; links between two new cells are written by each side for
   * itself, so no two threads write the same entry. */
#pragma omp for schedule(static)
  for (int32_t c = first; c < g->n_cells; c++) {
    int32_t key[GS_GBEES_MAX_DIM];
    memcpy(key, g->key + (size_t)c * d, d * sizeof(int32_t));
    for (int i = 0; i < d; i++) {
      for (int side = 0; side < 2; side++) {
        key[i] += side ? 1 : -1;
        int32_t m = gbees_grid_find(g, key);
        key[i] -= side ? 1 : -1;
        g->nbr[(size_t)c * 2 * d + 2 * i + side] = m;
        if (m != GBEES_NONE && m < first) g->nbr[(size_t)m * 2 * d + 2 * i + 1 - side] = c;
      }
    }
  }
}

void gbees_grid_link(gs_gbees *g, int32_t first)
{
#pragma omp parallel num_threads(gbees_team(g, g->n_cells - first))
  gbees_team_link(g, first);
}

/* Numbers the kept cells (index[c] != 0) in order: index[c] becomes the new
 * index or GBEES_NONE, part k's first new index goes to start[k] and the
 * number kept to start[count], which is returned. Runs on the caller's team. */
static int32_t team_number_kept(const gbees_parts *p, int32_t *index, int64_t *start)
{
#pragma omp for schedule(static)
  for (int k = 0; k < p->count; k++) {
    int64_t kept = 0;
    for (int32_t c = gbees_part_begin(p, k); c < gbees_part_end(p, k); c++) kept += index[c] != 0;
    start[k] = kept;
  }
#pragma omp single
  {
    int64_t sum = 0;
    for (int k = 0; k < p->count; k++) {
      int64_t kept = start[k];
      start[k] = sum;
      sum += kept;
    }
    start[p->count] = sum;
  }
#pragma omp for schedule(static)
  for (int k = 0; k < p->count; k++) {
    int32_t next = (int32_t)start[k];
    for (int32_t c = gbees_part_begin(p, k); c < gbees_part_end(p, k); c++) index[c] = index[c] ? next++ : GBEES_NONE;
  }
  return (int32_t)start[p->count];
}

/* Moves the rows (`row` bytes each) of the kept cells of `array` to their
 * new indices, through `buffer`, renumbering links when `links`. */
static void team_move_rows(const gbees_parts *p, const int32_t *index, const int64_t *start, void *array, void *buffer,
                           size_t row, int links)
{
  char *a = (char *)array, *b = (char *)buffer;
#pragma omp for schedule(static)
  for (int k = 0; k < p->count; k++)
    for (int32_t c = gbees_part_begin(p, k); c < gbees_part_end(p, k); c++) {
      if (index[c] == GBEES_NONE) continue;
      memcpy(b + (size_t)index[c] * row, a + (size_t)c * row, row);
      if (!links) continue;
      int32_t *nb = (int32_t *)(b + (size_t)index[c] * row);
      for (size_t i = 0; i < row / sizeof(int32_t); i++) nb[i] = nb[i] == GBEES_NONE ? GBEES_NONE : index[nb[i]];
    }
#pragma omp for schedule(static)
  for (int k = 0; k < p->count; k++) {
    memcpy(a + (size_t)start[k] * row, b + (size_t)start[k] * row, (size_t)(start[k + 1] - start[k]) * row);
  }
}

void gbees_team_compact(gs_gbees *g, int32_t *index)
{
  int d = g->dim;
  gbees_parts parts = gbees_parts_of(g->n_cells);
  int64_t *start = g->scratch->part_count;
  double top = 0.0;
  /* face (dim doubles per cell, recomputed every step) holds a row of any array on its way */
  int32_t kept = team_number_kept(&parts, index, start);
  team_move_rows(&parts, index, start, g->key, g->face, d * sizeof(int32_t), 0);
  team_move_rows(&parts, index, start, g->v, g->face, d * sizeof(double), 0);
  team_move_rows(&parts, index, start, g->nbr, g->face, 2 * d * sizeof(int32_t), 1);
  team_move_rows(&parts, index, start, g->prob, g->face, sizeof(double), 0);
  team_move_rows(&parts, index, start, g->rate, g->face, sizeof(double), 0);
  gbees_team_clear_slots(g->slot, g->n_slots);
#pragma omp barrier
#pragma omp for schedule(static) nowait
  for (int32_t c = 0; c < kept; c++) {
    gbees_slot_claim(g->slot, g->n_slots, g->key + (size_t)c * d, d, c);
    top = g->rate[c] > top ? g->rate[c] : top;
  }
  g->scratch->lane[GBEES_THREAD_NUM()].max_rate = top;
#pragma omp barrier
#pragma omp single
  {
    for (int t = 0; t < GBEES_TEAM_SIZE(); t++) top = g->scratch->lane[t].max_rate > top ? g->scratch->lane[t].max_rate : top;
    g->max_rate = top;
    g->n_cells = kept;
  }
}

void gbees_grid_free(gs_gbees *g)
{
  free(g->key);
  free(g->prob);
  free(g->v);
  free(g->rate);
  free(g->nbr);
  free(g->face);
  free(g->flux);
  free(g->slot);
  g->key = g->nbr = g->slot = NULL;
  g->prob = g->v = g->rate = g->face = g->flux = NULL;
  g->capacity = 0;
  g->n_slots = 0;
}
