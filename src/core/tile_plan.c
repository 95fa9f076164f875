/* The tile Cholesky schedule and its cache plan (see tile_plan.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gs_tile.h"
#include "tile_plan.h"

static tile_op make_op(int kind, int workers, int owners, int i, int j, int k, int a, int b)
{
  tile_op op;
  op.kind = (unsigned char)kind;
  op.worker = (unsigned char)(i == k ? workers : (i / owners) % workers);
  op.i = i;
  op.j = j;
  op.k = k;
  op.tile[0] = (int)gs_tile_index(i, k);
  op.tile[1] = a;
  op.tile[2] = b;
  op.slot[0] = op.slot[1] = op.slot[2] = -1;
  return op;
}

/* The compute and store ops of the rows that `owner` owns (i mod owners),
 * in schedule order, without loads. After the diagonal task of column k,
 * the rows below it go in rounds of `round` rows: first every update of the
 * round, then its solves. A stream thus issues the updates of all its rows
 * in the round before its first solve, which waits for POTRF(k): the GEMMs
 * keep the device busy while the diagonal tile is factored. A round's
 * accumulators stay in the cache until stored, so `round` is bounded by the
 * slots. */
static long schedule_fill(int nt, int workers, int round, int owners, int owner, tile_op *ops)
{
  long n = 0;
  for (int k = 0; k < nt; ++k) {
    if (k % owners == owner) {
      for (int j = 0; j < k; ++j)
        ops[n++] = make_op(TILE_OP_SYRK, workers, owners, k, j, k, (int)gs_tile_index(k, j), -1);
      ops[n++] = make_op(TILE_OP_POTRF, workers, owners, k, k, k, -1, -1);
      ops[n++] = make_op(TILE_OP_STORE, workers, owners, k, k, k, -1, -1);
    }
    int first = k + 1;
    while (first < nt && first % owners != owner) ++first;
    while (first < nt) {
      int last = first, count = 0; /* one past the round's last row */
      for (; last < nt && count < round; last += owners) ++count;
      if (last > nt) last = nt;
      for (int i = first; i < last; i += owners)
        for (int j = 0; j < k; ++j)
          ops[n++] = make_op(TILE_OP_GEMM, workers, owners, i, j, k, (int)gs_tile_index(i, j), (int)gs_tile_index(k, j));
      for (int i = first; i < last; i += owners) {
        ops[n++] = make_op(TILE_OP_TRSM, workers, owners, i, k, k, -1, (int)gs_tile_index(k, k));
        ops[n++] = make_op(TILE_OP_STORE, workers, owners, i, k, k, -1, -1);
      }
      first = last;
      while (first < nt && first % owners != owner) ++first;
    }
  }
  return n;
}

static long schedule_length(int nt)
{
  long n = 0;
  for (int k = 0; k < nt; ++k) n += (long)(nt - k) * (k + 2);
  return n;
}

/* next[3 p + r]: the index of the next op that uses tile ops[p].tile[r], or
 * LONG_MAX. */
static void next_uses(const tile_op *ops, long n, long ntiles, long *last, long *next)
{
  for (long t = 0; t < ntiles; ++t) last[t] = LONG_MAX;
  for (long p = n - 1; p >= 0; --p) {
    for (int r = 0; r < 3; ++r) {
      const int t = ops[p].tile[r];
      next[3 * p + r] = (t >= 0) ? last[t] : LONG_MAX;
    }
    for (int r = 0; r < 3; ++r)
      if (ops[p].tile[r] >= 0) last[ops[p].tile[r]] = p;
  }
}

static int op_uses(const tile_op *op, int t) { return op->tile[0] == t || op->tile[1] == t || op->tile[2] == t; }

typedef struct {
  tile_op *ops;
  long n, cap;
} op_list;

static int op_list_push(op_list *l, tile_op op)
{
  if (l->n == l->cap) {
    long cap = l->cap ? 2 * l->cap : 1024;
    tile_op *p = (tile_op *)realloc(l->ops, (size_t)cap * sizeof *p);
    if (!p) return 0;
    l->ops = p;
    l->cap = cap;
  }
  l->ops[l->n++] = op;
  return 1;
}

/* The slot for tile t before op: a free one, else that of the clean tile
 * (not the running accumulator) used furthest in the future. -1: none. */
static int choose_slot(int slots, int *used, const int *slot_tile, const long *tile_next, const unsigned char *dirty,
                       const tile_op *op)
{
  if (*used < slots) return (*used)++;
  int best = -1;
  long best_next = -1;
  for (int s = 0; s < slots; ++s) {
    const int t = slot_tile[s];
    if (dirty[t] || op_uses(op, t)) continue;
    if (tile_next[t] > best_next) {
      best_next = tile_next[t];
      best = s;
    }
  }
  return best;
}

gs_status tile_plan_build(int nt, int workers, int slots, int owners, int owner, tile_plan *p, char *msg)
{
  gs_status st = GS_OK;
  const long ntiles = gs_tile_count(nt);
  long n = schedule_length(nt);
  memset(p, 0, sizeof *p);
  if (nt < 1 || workers < 1 || workers > 254 || slots < 3 || owners < 1 || owner < 0 || owner >= owners)
    return gs_set_msg(msg, GS_ERR_ARG, "a tile plan needs at least one tile, 1 to 254 workers, 3 tile slots and an "
                                       "owner among the owners");
  p->nt = nt;
  p->workers = workers;
  p->slots = slots;
  op_list out = {NULL, 0, 0};
  tile_op *sched = (tile_op *)malloc((size_t)n * sizeof *sched);
  long *next = (long *)malloc((size_t)n * 3 * sizeof *next);
  long *tile_next = (long *)malloc((size_t)ntiles * sizeof *tile_next);
  int *tile_slot = (int *)malloc((size_t)ntiles * sizeof *tile_slot);
  int *slot_tile = (int *)malloc((size_t)slots * sizeof *slot_tile);
  unsigned char *dirty = (unsigned char *)calloc((size_t)ntiles, 1);
  p->column_end = (long *)malloc((size_t)nt * sizeof *p->column_end);
  if (!sched || !next || !tile_next || !tile_slot || !slot_tile || !dirty || !p->column_end) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for the tile schedule");
    goto done;
  }
  /* Half the slots hold a round's accumulators; the rest cache operands. */
  n = schedule_fill(nt, workers, slots / 2 - 1 > 1 ? slots / 2 - 1 : 1, owners, owner, sched);
  next_uses(sched, n, ntiles, tile_next, next);
  for (int k = 0; k < nt; ++k) p->column_end[k] = -1;
  for (long t = 0; t < ntiles; ++t) tile_slot[t] = -1;
  for (int s = 0; s < slots; ++s) slot_tile[s] = -1;
  {
    int used = 0;
    for (long q = 0; q < n; ++q) {
      tile_op op = sched[q];
      for (int r = 0; r < 3; ++r) {
        const int t = op.tile[r];
        if (t < 0 || tile_slot[t] >= 0) continue;
        const int s = choose_slot(slots, &used, slot_tile, tile_next, dirty, &op);
        if (s < 0) {
          st = gs_set_msg(msg, GS_ERR_ARG, "the tile cache has no slot to free");
          goto done;
        }
        if (slot_tile[s] >= 0) tile_slot[slot_tile[s]] = -1;
        slot_tile[s] = t;
        tile_slot[t] = s;
        tile_op load = op;
        load.kind = TILE_OP_LOAD;
        load.tile[0] = t;
        load.tile[1] = load.tile[2] = -1;
        load.slot[0] = s;
        load.slot[1] = load.slot[2] = -1;
        if (!op_list_push(&out, load)) goto nomem;
        p->loads++;
      }
      for (int r = 0; r < 3; ++r) {
        const int t = op.tile[r];
        if (t < 0) continue;
        op.slot[r] = tile_slot[t];
        tile_next[t] = next[3 * q + r];
      }
      if (op.kind == TILE_OP_STORE) {
        dirty[op.tile[0]] = 0;
        p->stores++;
      } else {
        dirty[op.tile[0]] = 1;
      }
      if (!op_list_push(&out, op)) goto nomem;
      if (op.kind == TILE_OP_STORE && (q + 1 == n || sched[q + 1].k != op.k)) p->column_end[op.k] = out.n;
    }
  }
  for (int k = 0; k < nt; ++k) /* a column without ops of this owner ends where the previous one did */
    if (p->column_end[k] < 0) p->column_end[k] = k ? p->column_end[k - 1] : 0;
  p->ops = out.ops;
  p->nops = out.n;
  out.ops = NULL;
  goto done;
nomem:
  st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for the tile schedule");
done:
  free(out.ops);
  free(sched);
  free(next);
  free(tile_next);
  free(tile_slot);
  free(slot_tile);
  free(dirty);
  if (st != GS_OK) tile_plan_free(p);
  return st;
}

void tile_plan_free(tile_plan *p)
{
  free(p->ops);
  free(p->column_end);
  memset(p, 0, sizeof *p);
}
