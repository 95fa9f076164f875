/* GBEES growth on the CPU. Every cell at or above the threshold lists its
 * growth targets (gbees_growth_targets) that are missing from the grid; the
 * new cells are the distinct targets, appended in the order of the cells
 * and their targets (a target listed twice is appended where it is first
 * listed), as on the GPU. Every stage runs on the step's team:
 *   1. the threads take parts of the cells (gbees_parts_of) as they come
 *      free, for the cells that list targets lie unevenly (guided: runs of
 *      parts that shrink to one, so that a few atomic updates of the loop's
 *      counter per thread hand them out), and each lists the missing targets
 *      of its parts in its own lane;
 *   2. each thread copies the lists of its parts to where they start in the
 *      order of the parts, which is the order of the cells, and claims each
 *      listing in a table of the listed keys that keeps each key's first
 *      listing: threads claim slots with compare-and-swap and lower a slot's
 *      listing with an atomic minimum;
 *   3. each thread counts the first listings in its range of the joined
 *      list, then stores them as cells where the counts of the threads
 *      before it end, and puts them in the grid's hash table;
 *   4. the new cells get their links (and, for an autonomous field, their
 *      velocities), and the table of listed keys is emptied for the next
 *      step. */
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

/* Stage 1: each thread's lane lists the missing targets of the parts it takes. */
static void team_list(gs_gbees *g, const gbees_parts *parts)
{
  gbees_scratch *s = g->scratch;
  gbees_cells cells = gbees_host_cells(g);
  int me = GBEES_THREAD_NUM();
  gbees_lane *lane = &s->lane[me];
  lane->count = 0;
  lane->failed = 0;
#pragma omp for schedule(guided)
  for (int k = 0; k < parts->count; k++) {
    s->part_lane[k] = me;
    s->part_start[k] = lane->count;
    for (int32_t c = gbees_part_begin(parts, k); c < gbees_part_end(parts, k) && !lane->failed; c++)
      if (!list_cell(g, &cells, c, lane)) lane->failed = 1;
    s->part_count[k] = lane->count - s->part_start[k];
  }
}

/* Makes listing k the one kept in the table for its key if it comes first.
 * A listing's key is written before the listing is claimed, and a claim
 * publishes it (release) to a thread that reads the slot (acquire). */
static void claim_first(int32_t *table, int64_t n_slots, const int32_t *listed, int d, int32_t k)
{
  const int32_t *key = listed + (size_t)k * d;
  uint64_t mask = (uint64_t)n_slots - 1, s = gbees_key_hash(key, d) & mask;
  for (;;) {
    int32_t held = __atomic_load_n(table + s, __ATOMIC_ACQUIRE);
    if (held == GBEES_NONE) {
      if (__atomic_compare_exchange_n(table + s, &held, k, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return;
      /* another listing took the slot: held is now that listing */
    }
    /* a slot only ever passes between listings of one key */
    if (gbees_key_equal(listed + (size_t)held * d, key, d)) {
      while (k < held && !__atomic_compare_exchange_n(table + s, &held, k, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      }
      return;
    }
    s = (s + 1) & mask;
  }
}

/* The slots of the table of listed keys for `total` listings (a power of
 * two, at least twice as many). */
static int64_t first_slots(int64_t total)
{
  int64_t slots = 1024;
  while (slots < 2 * total) slots *= 2;
  return slots;
}

/* The listings of the step, the same for every thread after stage 1; -1
 * when a lane ran out of memory. */
static int64_t listings(const gbees_scratch *s, int threads)
{
  int64_t total = 0;
  for (int t = 0; t < threads; t++) {
    if (s->lane[t].failed) return -1;
    total += s->lane[t].count;
  }
  return total;
}

/* Room for `total` listings, by one thread, when the step began with too
 * little (every thread takes the same decision); 0 when out of memory. */
static int fit_listings(gbees_step *st, int64_t total)
{
  gbees_scratch *s = st->g->scratch;
  int64_t slots = first_slots(total);
  if (total <= st->listed_capacity && slots <= st->first_capacity) return 1;
  int ok = 1;
#pragma omp single copyprivate(ok)
  {
    int64_t held = s->first_capacity;
    ok = gbees_scratch_fit((void **)&s->listed, &s->listed_capacity, total, st->g->dim * sizeof(int32_t)) &&
         gbees_scratch_fit((void **)&s->first_of, &s->first_capacity, slots, sizeof(int32_t));
    if (ok && s->first_capacity > held) memset(s->first_of, 0xff, (size_t)s->first_capacity * sizeof(int32_t));
  }
  return ok;
}

/* Stage 2: the lists of this thread's parts into scratch->listed, in the
 * order of the parts, each listing claimed as it is written. */
static void join_and_claim(gbees_scratch *s, const gbees_parts *parts, int d, int64_t slots)
{
  int me = GBEES_THREAD_NUM();
  int64_t at = 0;
  for (int k = 0; k < parts->count; at += s->part_count[k], k++) {
    if (s->part_lane[k] != me) continue;
    memcpy(s->listed + (size_t)at * d, s->lane[me].keys + (size_t)s->part_start[k] * d,
           (size_t)s->part_count[k] * d * sizeof(int32_t));
    for (int64_t j = at; j < at + s->part_count[k]; j++) claim_first(s->first_of, slots, s->listed, d, (int32_t)j);
  }
}

/* Whether listing k is the first of its key. */
static int first_listing(const gbees_scratch *s, int64_t slots, int d, int64_t k)
{
  return gbees_table_find(s->first_of, slots, s->listed, d, s->listed + (size_t)k * d) == k;
}

/* Stage 3: this thread's new cells, from listings lo .. hi-1, stored from cell `cell` on. */
static void store_new(gs_gbees *g, int64_t slots, int64_t lo, int64_t hi, int32_t cell)
{
  const gbees_scratch *s = g->scratch;
  int d = g->dim;
  for (int64_t k = lo; k < hi; k++) {
    if (!first_listing(s, slots, d, k)) continue;
    int32_t c = cell++, *key = g->key + (size_t)c * d;
    memcpy(key, s->listed + (size_t)k * d, d * sizeof(int32_t));
    g->prob[c] = 0.0;
    g->rate[c] = 0.0;
    for (int i = 0; i < d; i++) g->v[(size_t)c * d + i] = 0.0;
    for (int i = 0; i < 2 * d; i++) g->nbr[(size_t)c * 2 * d + i] = GBEES_NONE;
    gbees_slot_claim(g->slot, g->n_slots, key, d, c);
  }
}

/* Room for the new cells in the grid, by one thread when the step began
 * with too little, and the hash table refilled by all if it was replaced. */
static void team_reserve(gbees_step *st, int64_t cells)
{
  if (cells <= st->capacity) return;
  int refill = 0;
#pragma omp single copyprivate(refill)
  st->status = gbees_grid_reserve_unfilled(st->g, cells, &refill, st->msg);
  if (refill) gbees_team_fill_table(st->g, st->first);
}

/* Stages 2 and 3 after the listing; returns the new cells, or -1 out of memory. */
static int64_t team_add(gbees_step *st, const gbees_parts *parts, int64_t total)
{
  gs_gbees *g = st->g;
  gbees_scratch *s = g->scratch;
  int d = g->dim, me = GBEES_THREAD_NUM(), threads = GBEES_TEAM_SIZE();
  int64_t slots = first_slots(total);
  join_and_claim(s, parts, d, slots);
  int64_t lo = total * me / threads, hi = total * (me + 1) / threads, found = 0;
#pragma omp barrier
  for (int64_t k = lo; k < hi; k++) found += first_listing(s, slots, d, k);
  s->lane[me].found = found;
#pragma omp barrier
  int64_t fresh = 0, at = 0;
  for (int t = 0; t < threads; t++) {
    if (t == me) at = fresh;
    fresh += s->lane[t].found;
  }
#pragma omp master
  st->since = gbees_lap(g, GS_GBEES_PHASE_GROWTH, st->since);
  team_reserve(st, st->first + fresh);
  if (st->status != GS_OK) return -1;
  store_new(g, slots, lo, hi, st->first + (int32_t)at);
  return fresh;
}

void gbees_team_grow(gbees_step *st)
{
  gs_gbees *g = st->g;
  gbees_parts parts = gbees_parts_of(st->first);
  team_list(g, &parts);
  int64_t total = listings(g->scratch, GBEES_TEAM_SIZE());
  if (total < 0 || !fit_listings(st, total)) {
#pragma omp single
    st->status = gs_set_msg(st->msg, GS_ERR_NOMEM, "growing %d GBEES cells ran out of host memory", st->first);
    return;
  }
  if (total == 0) {
#pragma omp master
    st->since = gbees_lap(g, GS_GBEES_PHASE_GROWTH, st->since);
    return;
  }
  int64_t fresh = team_add(st, &parts, total);
#pragma omp master
  if (fresh > 0) {
    st->fresh = fresh;
    g->n_cells = st->first + (int32_t)fresh;
  }
  /* the new cells are in the table, the table of listed keys is read no more */
#pragma omp barrier
  gbees_team_clear_slots(g->scratch->first_of, first_slots(total));
  if (fresh <= 0) return;
  if (!st->velocities_of_all && !st->r_field) gbees_team_velocities(g, st->first, g->time);
  gbees_team_link(g, st->first);
#pragma omp master
  st->since = gbees_lap(g, GS_GBEES_PHASE_NEW_CELLS, st->since);
}
