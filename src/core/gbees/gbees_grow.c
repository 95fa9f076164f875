/* GBEES growth on the CPU. Every cell at or above the threshold lists its
 * growth targets (gbees_growth_targets) that are missing from the grid; the
 * new cells are the distinct targets, appended in the order of the cells
 * and their targets (a target listed twice is appended where it is first
 * listed), as on the GPU. Every stage runs on all threads of the step:
 *   1. the threads take parts of the cells (gbees_parts_of) as they come
 *      free, for the cells that list targets lie unevenly, and each lists
 *      the missing targets of its parts in its own lane;
 *   2. the parts' lists are joined in the order of the parts, which is the
 *      order of the cells (by one thread: the lists are short next to the
 *      grid);
 *   3. a table of the listed keys keeps each key's first listing: threads
 *      claim slots with compare-and-swap and lower a slot's listing with an
 *      atomic minimum;
 *   4. each thread counts the first listings in its range of the joined
 *      list, and writes their keys where the counts of the threads before it
 *      end;
 *   5. the new cells are stored, put in the grid's hash table, and get their
 *      velocities and links (gbees_settle). */
#include <stdlib.h>
#include <string.h>

#include "gbees_cpu.h"

/* Appends the missing growth targets of cell c to the lane; 0 when out of
 * memory. */
static int list_cell(const gs_gbees *g, const gbees_cells *cells, int32_t c, gbees_lane *lane)
{
  if (!(g->prob[c] >= g->opt.threshold)) return 1;
  int d = g->dim;
  unsigned char codes[GS_GBEES_MAX_DIM * GS_GBEES_MAX_DIM];
  int n_targets = gbees_growth_targets(cells, c, codes);
  if (n_targets == 0) return 1;
  if (!gbees_scratch_fit((void **)&lane->keys, &lane->capacity, lane->count + n_targets, d * sizeof(int32_t)))
    return 0;
  for (int t = 0; t < n_targets; t++) {
    int32_t *key = lane->keys + (size_t)lane->count * d;
    gbees_growth_key(cells, c, codes[t], key);
    if (gbees_grid_find(g, key) == GBEES_NONE) lane->count++;
  }
  return 1;
}

/* Makes listing k the one kept in the table for its key if it comes first. */
static void claim_first(int32_t *table, int64_t n_slots, const int32_t *listed, int d, int32_t k)
{
  const int32_t *key = listed + (size_t)k * d;
  uint64_t mask = (uint64_t)n_slots - 1, s = gbees_key_hash(key, d) & mask;
  for (;;) {
    int32_t held = __atomic_load_n(table + s, __ATOMIC_RELAXED);
    if (held == GBEES_NONE) {
      if (__atomic_compare_exchange_n(table + s, &held, k, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
      /* another listing took the slot: held is now that listing */
    }
    /* a slot only ever passes between listings of one key */
    if (gbees_key_equal(listed + (size_t)held * d, key, d)) {
      while (k < held && !__atomic_compare_exchange_n(table + s, &held, k, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      }
      return;
    }
    s = (s + 1) & mask;
  }
}

/* Stage 2 by one thread: joins the parts' lists into scratch->listed and
 * empties the table of first listings (both a fraction of the step's work);
 * returns the number of listings, or -1 out of memory. */
static int64_t join_lists(gbees_scratch *s, const gbees_parts *parts, int threads, int d)
{
  int64_t total = 0;
  for (int t = 0; t < threads; t++) {
    if (s->lane[t].failed) return -1;
    total += s->lane[t].count;
  }
  int64_t slots = 1024;
  while (slots < 2 * total) slots *= 2;
  if (!gbees_scratch_fit((void **)&s->listed, &s->listed_capacity, total, d * sizeof(int32_t)) ||
      !gbees_scratch_fit((void **)&s->fresh, &s->fresh_capacity, total, d * sizeof(int32_t)) ||
      !gbees_scratch_fit((void **)&s->first_of, &s->first_capacity, slots, sizeof(int32_t)))
    return -1;
  int32_t *to = s->listed;
  for (int k = 0; k < parts->count; k++) {
    size_t len = (size_t)s->part_count[k] * d;
    memcpy(to, s->lane[s->part_lane[k]].keys + (size_t)s->part_start[k] * d, len * sizeof(int32_t));
    to += len;
  }
  s->first_slots = slots;
  memset(s->first_of, 0xff, (size_t)slots * sizeof(int32_t)); /* GBEES_NONE */
  return total;
}

/* Stages 3 and 4 on the caller's team of `threads`, after the lists are
 * joined. */
static void team_keep_first(gbees_scratch *s, int d, int64_t total, int threads)
{
  int me = GBEES_THREAD_NUM();
  gbees_lane *lane = &s->lane[me];
  int64_t lo = total * me / threads, hi = total * (me + 1) / threads;
#pragma omp for schedule(static)
  for (int64_t k = 0; k < total; k++) claim_first(s->first_of, s->first_slots, s->listed, d, (int32_t)k);
  int64_t found = 0;
  for (int64_t k = lo; k < hi; k++)
    found += gbees_table_find(s->first_of, s->first_slots, s->listed, d, s->listed + (size_t)k * d) == k;
  lane->found = found;
#pragma omp barrier
  int64_t at = 0;
  for (int t = 0; t < me; t++) at += s->lane[t].found;
  for (int64_t k = lo; k < hi; k++) {
    const int32_t *key = s->listed + (size_t)k * d;
    if (gbees_table_find(s->first_of, s->first_slots, s->listed, d, key) == k)
      memcpy(s->fresh + (size_t)(at++) * d, key, d * sizeof(int32_t));
  }
}

/* Stages 1 to 4: the keys of the new cells into scratch->fresh; returns
 * their number, or -1 out of memory. */
static int64_t list_new_keys(gs_gbees *g, int threads)
{
  gbees_scratch *s = g->scratch;
  gbees_cells cells = gbees_host_cells(g);
  gbees_parts parts = gbees_parts_of(g->n_cells);
  int64_t listed = 0;
#pragma omp parallel num_threads(threads)
  {
    int me = GBEES_THREAD_NUM();
    gbees_lane *lane = &s->lane[me];
    lane->count = 0;
    lane->failed = 0;
#pragma omp for schedule(dynamic, 1)
    for (int k = 0; k < parts.count; k++) {
      s->part_lane[k] = me;
      s->part_start[k] = lane->count;
      for (int32_t c = gbees_part_begin(&parts, k); c < gbees_part_end(&parts, k) && !lane->failed; c++)
        if (!list_cell(g, &cells, c, lane)) lane->failed = 1;
      s->part_count[k] = lane->count - s->part_start[k];
    }
#pragma omp single
    {
      threads = GBEES_TEAM_SIZE();
      listed = join_lists(s, &parts, threads, g->dim);
    }
    if (listed > 0) team_keep_first(s, g->dim, listed, threads);
  }
  if (listed <= 0) return listed;
  int64_t fresh = 0;
  for (int t = 0; t < threads; t++) fresh += s->lane[t].found;
  return fresh;
}

gs_status gbees_grow(gs_gbees *g, char *msg)
{
  int32_t first = g->n_cells;
  int threads = gbees_team(g, first);
  double since = gs_wall_seconds();
  int64_t fresh = list_new_keys(g, threads);
  since = gbees_lap(g, GS_GBEES_PHASE_GROWTH, since);
  if (fresh < 0) return gs_set_msg(msg, GS_ERR_NOMEM, "growing %d GBEES cells ran out of host memory", first);
  if (fresh == 0) return GS_OK;
  gs_status st = gbees_grid_reserve(g, (int64_t)first + fresh, msg);
  if (st != GS_OK) return st;
  g->n_cells = first + (int32_t)fresh;
  /* the team of the search: its threads are still awake */
  st = gbees_settle(g, first, g->scratch->fresh, g->time, threads, msg);
  gbees_lap(g, GS_GBEES_PHASE_NEW_CELLS, since);
  return st;
}
