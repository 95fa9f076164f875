/* GBEES grid storage: growable cell arrays and an open-addressing hash table
 * (linear probing, load at most 1/2) that is enlarged and rehashed as the
 * grid grows, so there is no fixed capacity. */
#include <stdlib.h>
#include <string.h>

#include "gbees_internal.h"
#include "gs_cpu.h"

static size_t cell_bytes(int dim)
{
  /* key, prob, v, rate, nbr, face, flux */
  return (size_t)dim * 4 + 8 + (size_t)dim * 8 + 8 + (size_t)2 * dim * 4 + (size_t)2 * dim * 8;
}

double gbees_grid_bytes(const gs_gbees *g)
{
  return (double)g->capacity * (double)cell_bytes(g->dim) + (double)g->n_slots * 4.0;
}

static void slot_put(int32_t *slot, int64_t n_slots, const gs_gbees *g, int32_t c)
{
  uint64_t mask = (uint64_t)n_slots - 1, s = gbees_key_hash(g->key + (size_t)c * g->dim, g->dim) & mask;
  while (slot[s] != GBEES_NONE) s = (s + 1) & mask;
  slot[s] = c;
}

static gs_status rehash(gs_gbees *g, int64_t n_slots, char *msg)
{
  int32_t *slot = (int32_t *)malloc((size_t)n_slots * sizeof(int32_t));
  if (!slot)
    return gs_set_msg(msg, GS_ERR_NOMEM, "the GBEES grid needs %d cells; its hash table (%.2f GB) could not be allocated",
                      g->n_cells, (double)n_slots * 4.0 / 1e9);
  memset(slot, 0xff, (size_t)n_slots * sizeof(int32_t)); /* all GBEES_NONE */
  for (int32_t c = 0; c < g->n_cells; c++) slot_put(slot, n_slots, g, c);
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

gs_status gbees_grid_reserve(gs_gbees *g, int64_t cells, char *msg)
{
  int64_t cap = g->capacity, slots = g->n_slots;
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
        !grow_array((void **)&g->face, n * d * sizeof(double)) || !grow_array((void **)&g->flux, n * d * sizeof(double)))
      return gs_set_msg(msg, GS_ERR_NOMEM, "the GBEES grid needs %.0f cells (%.2f GB); host memory ran out",
                        (double)cells, (double)cap * (double)cell_bytes(d) / 1e9);
    g->capacity = (int32_t)cap;
  }
  if (g->n_slots < slots) {
    gs_status st = rehash(g, slots, msg);
    if (st != GS_OK) return st;
  }
  double bytes = gbees_grid_bytes(g);
  if (bytes > g->info.peak_memory_bytes) g->info.peak_memory_bytes = bytes;
  return GS_OK;
}

int32_t gbees_grid_find(const gs_gbees *g, const int32_t *key)
{
  return gbees_table_find(g->slot, g->n_slots, g->key, g->dim, key);
}

int32_t gbees_grid_insert(gs_gbees *g, const int32_t *key, char *msg)
{
  int32_t c = gbees_grid_find(g, key);
  if (c != GBEES_NONE) return c;
  if (gbees_grid_reserve(g, (int64_t)g->n_cells + 1, msg) != GS_OK) return GBEES_NONE;
  int d = g->dim;
  c = g->n_cells++;
  memcpy(g->key + (size_t)c * d, key, d * sizeof(int32_t));
  g->prob[c] = 0.0;
  g->rate[c] = 0.0;
  for (int i = 0; i < d; i++) g->v[(size_t)c * d + i] = 0.0;
  for (int i = 0; i < 2 * d; i++) g->nbr[(size_t)c * 2 * d + i] = GBEES_NONE;
  slot_put(g->slot, g->n_slots, g, c);
  return c;
}

void gbees_grid_link(gs_gbees *g, int32_t first)
{
  int d = g->dim;
  /* A thread writes its own cell's links and the back-links of cells older
   * than `first`; links between two new cells are written by each side for
   * itself, so no two threads write the same entry. */
#pragma omp parallel for schedule(static) num_threads(gs_cpu_threads_for(g->opt.threads, g->n_cells - first))
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

void gbees_grid_compact(gs_gbees *g, const unsigned char *keep)
{
  int d = g->dim;
  int32_t n = g->n_cells, kept = 0;
  int32_t *new_index = (int32_t *)g->flux; /* scratch: flux is recomputed every step */
  for (int32_t c = 0; c < n; c++) new_index[c] = keep[c] ? kept++ : GBEES_NONE;
  for (int32_t c = 0; c < n; c++) {
    if (!keep[c]) continue;
    int32_t *nb = g->nbr + (size_t)c * 2 * d;
    for (int i = 0; i < 2 * d; i++) nb[i] = nb[i] == GBEES_NONE ? GBEES_NONE : new_index[nb[i]];
  }
  for (int32_t c = 0; c < n; c++) {
    int32_t to = new_index[c];
    if (to == GBEES_NONE || to == c) continue;
    memmove(g->key + (size_t)to * d, g->key + (size_t)c * d, d * sizeof(int32_t));
    memmove(g->v + (size_t)to * d, g->v + (size_t)c * d, d * sizeof(double));
    memmove(g->nbr + (size_t)to * 2 * d, g->nbr + (size_t)c * 2 * d, 2 * d * sizeof(int32_t));
    g->prob[to] = g->prob[c];
    g->rate[to] = g->rate[c];
  }
  g->n_cells = kept;
  memset(g->slot, 0xff, (size_t)g->n_slots * sizeof(int32_t));
  for (int32_t c = 0; c < kept; c++) slot_put(g->slot, g->n_slots, g, c);
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
