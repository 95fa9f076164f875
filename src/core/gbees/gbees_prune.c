/* GBEES pruning on the CPU. The candidates are the cells below the
 * threshold that receive no significant inflow; they are removed smallest
 * first while each removed mass stays below the threshold relative to the
 * mass that remains (gbees_prune_removable), then the cells are compacted.
 *
 * Sorting every candidate would be a serial pass. With S the mass of all
 * candidates, a candidate that would be removable after S is removed is
 * removable after any part of it, and those candidates are the smallest
 * ones (the test grows with the probability): they all go, found in
 * parallel. Only the candidates between that bound and the threshold,
 * usually none, are sorted (by probability, then cell) and go in order
 * while they pass, counting the mass removed before them. The sums run over
 * the fixed parts of the cells, so the cut is the same on any number of
 * threads; the removed mass is summed as the sure part, then the sorted
 * ones in order. */
#include <stdlib.h>

#include "gbees_cpu.h"

/* Marks of the cells (0 is removed, anything else kept by gbees_team_compact) */
#define PRUNE_GONE 0
#define PRUNE_KEEP 1
#define PRUNE_CANDIDATE 2

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

/* Marks every cell kept or candidate and removes the sure candidates;
 * part k's removed mass goes to gone[k] and its candidates left to left[k]. */
static void team_mark_cells(gs_gbees *g, const gbees_parts *parts, int32_t *mark, double *gone, int64_t *left)
{
  gbees_cells cells = gbees_host_cells(g);
  double threshold = g->opt.threshold, *mass = g->scratch->part[2];
#pragma omp for schedule(static)
  for (int k = 0; k < parts->count; k++) {
    double m = 0.0;
    for (int32_t c = gbees_part_begin(parts, k); c < gbees_part_end(parts, k); c++) {
      int candidate = g->prob[c] < threshold && !gbees_receives_inflow(&cells, c, threshold);
      mark[c] = candidate ? PRUNE_CANDIDATE : PRUNE_KEEP;
      if (candidate) m += g->prob[c];
    }
    mass[k] = m;
  }
  /* every thread adds the parts in the same order */
  double all = gbees_parts_total(mass, parts->count);
  int bounded = all < 1.0;
#pragma omp for schedule(static)
  for (int k = 0; k < parts->count; k++) {
    double m = 0.0;
    int64_t l = 0;
    for (int32_t c = gbees_part_begin(parts, k); c < gbees_part_end(parts, k); c++) {
      if (mark[c] != PRUNE_CANDIDATE) continue;
      if (bounded && gbees_prune_removable(g->prob[c], all, threshold)) {
        mark[c] = PRUNE_GONE;
        m += g->prob[c];
      } else {
        l++;
      }
    }
    gone[k] = m;
    left[k] = l;
  }
}

/* The n_left candidates left, smallest first, while they pass; *removed
 * holds the mass removed before them and gets theirs. */
static gs_status cut_in_order(gs_gbees *g, int32_t *mark, int64_t n_left, double *removed, char *msg)
{
  prune_candidate *cand = (prune_candidate *)malloc((size_t)n_left * sizeof *cand);
  if (!cand) return gs_set_msg(msg, GS_ERR_NOMEM, "pruning %d GBEES cells ran out of host memory", g->n_cells);
  int64_t n = 0;
  for (int32_t c = 0; c < g->n_cells; c++)
    if (mark[c] == PRUNE_CANDIDATE) cand[n++] = (prune_candidate){.prob = g->prob[c], .cell = c};
  qsort(cand, (size_t)n, sizeof *cand, candidate_order);
  for (int64_t k = 0; k < n; k++) {
    double total = *removed + cand[k].prob;
    if (!gbees_prune_removable(cand[k].prob, total, g->opt.threshold)) break;
    *removed = total;
    mark[cand[k].cell] = PRUNE_GONE;
  }
  free(cand);
  return GS_OK;
}

void gbees_team_prune(gs_gbees *g, gs_status *status, char *msg)
{
  gbees_scratch *s = g->scratch;
  gbees_parts parts = gbees_parts_of(g->n_cells);
  team_mark_cells(g, &parts, s->index, s->part[0], s->part_count);
  /* the candidates left after the sure cut are usually none */
#pragma omp single
  {
    double removed = gbees_parts_total(s->part[0], parts.count);
    int64_t n_left = 0;
    for (int k = 0; k < parts.count; k++) n_left += s->part_count[k];
    if (n_left > 0) *status = cut_in_order(g, s->index, n_left, &removed, msg);
    g->info.pruned_mass += removed;
    g->steps_since_prune = 0;
  }
  if (*status == GS_OK) gbees_team_compact(g, s->index);
}

gs_status gbees_prune(gs_gbees *g, char *msg)
{
  gs_status st = GS_OK;
#pragma omp parallel num_threads(gbees_team(g, g->n_cells))
  gbees_team_prune(g, &st, msg);
  return st;
}
