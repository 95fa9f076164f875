/* The tile Cholesky schedule and its cache plan (see tile_plan.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tile_internal.h"
#include "tile_plan.h"

/* How many columns before its first use a device loads a finished tile of
 * another device's row, in core (prefetch_columns). */
#define TILE_PREFETCH_LEAD 6

/* What a device's schedule depends on. */
typedef struct {
  int nt, workers, owners, owner;
} tile_shape;

/* The worker of tile row i: (the rank of row i on its device) mod workers,
 * so a row's updates follow each other on one stream. */
static int row_worker(const tile_shape *sh, int i) { return ((sh->nt - 1 - i) / sh->owners) % sh->workers; }

/* Task (i, k) runs on the worker of row i below the diagonal, on the
 * diagonal worker (number `workers`) on it. */
static tile_op make_op(const tile_shape *sh, int kind, int i, int j, int k, int a, int b)
{
  tile_op op;
  op.kind = (unsigned char)kind;
  op.worker = (unsigned char)(i == k ? sh->workers : row_worker(sh, i));
  op.i = i;
  op.j = j;
  op.k = k;
  op.tile[0] = (int)gs_tile_index(i, k);
  op.tile[1] = a;
  op.tile[2] = b;
  op.slot[0] = op.slot[1] = op.slot[2] = -1;
  return op;
}

static int owns(const tile_shape *sh, int i) { return tile_row_owner(i, sh->nt, sh->owners) == sh->owner; }

/* Appends diagonal task k: its SYRKs with j >= `from`, POTRF and the store. */
static long diagonal_task(const tile_shape *sh, int k, int from, tile_op *ops, long n)
{
  for (int j = from; j < k; ++j) ops[n++] = make_op(sh, TILE_OP_SYRK, k, j, k, (int)gs_tile_index(k, j), -1);
  ops[n++] = make_op(sh, TILE_OP_POTRF, k, k, k, -1, -1);
  ops[n++] = make_op(sh, TILE_OP_STORE, k, k, k, -1, -1);
  return n;
}

static tile_op update_op(const tile_shape *sh, int i, int j, int k)
{
  return make_op(sh, TILE_OP_GEMM, i, j, k, (int)gs_tile_index(i, j), (int)gs_tile_index(k, j));
}

static tile_op on_worker(tile_op op, int worker)
{
  op.worker = (unsigned char)worker;
  return op;
}

/* Appends the solve of tile (i, k), on the diagonal worker or its row's,
 * and its store. */
static long solve_task(const tile_shape *sh, int i, int k, int diagonal, tile_op *ops, long n)
{
  const tile_op solve = make_op(sh, TILE_OP_TRSM, i, k, k, -1, (int)gs_tile_index(k, k));
  ops[n++] = diagonal ? on_worker(solve, sh->workers) : solve;
  ops[n++] = make_op(sh, TILE_OP_STORE, i, k, k, -1, -1);
  return n;
}

/* Column k's section out of core: the diagonal task, then the rows below it
 * in rounds of `round` rows, first every update of the round, then its
 * solves. A stream thus issues the updates of all its rows in the round
 * before its first solve, which waits for POTRF(k): the GEMMs keep the
 * device busy while the diagonal tile is factored. A round's accumulators
 * stay in the cache until stored, so `round` is bounded by the slots. */
static long column_in_rounds(const tile_shape *sh, int k, int round, tile_op *ops, long n)
{
  const int nt = sh->nt;
  if (owns(sh, k)) n = diagonal_task(sh, k, 0, ops, n);
  for (int first = k + 1; first < nt;) {
    int last = first, count = 0; /* the round: rows first..last-1 of this device, at most `round` */
    for (; last < nt && count < round; ++last) count += owns(sh, last);
    for (int i = first; i < last; ++i)
      if (owns(sh, i))
        for (int j = 0; j < k; ++j) ops[n++] = update_op(sh, i, j, k);
    for (int i = first; i < last; ++i)
      if (owns(sh, i)) n = solve_task(sh, i, k, 0, ops, n);
    first = last;
  }
  return n;
}

/* Column k's section in core, where every accumulator stays in device
 * memory. The diagonal worker runs the chain that sets the pace: diagonal
 * task k's last SYRK and POTRF, then the tile of row k + 1 (its last update
 * and its solve, which the next SYRK needs), then the other solves of column
 * k in row order. The rows' workers never wait for that chain: each starts
 * its section with the last updates of column k (j = k - 1, whose operands
 * were solved near the start of the previous section), then runs every other
 * update of column k + 1 (j < k), the SYRKs of diagonal tile k + 1 included.
 * An accumulator thus passes from its row's worker to the diagonal one
 * (through its `ready` event), and a solve waits for the chain only on the
 * diagonal worker, while the rows' workers stay a column ahead. Each op is
 * placed after those it waits for on other workers. */
static long column_ahead(const tile_shape *sh, int k, tile_op *ops, long n)
{
  const int nt = sh->nt;
  if (owns(sh, k)) n = diagonal_task(sh, k, k > 0 ? k - 1 : 0, ops, n);
  if (k + 1 < nt && owns(sh, k + 1)) {
    if (k > 0) ops[n++] = on_worker(update_op(sh, k + 1, k - 1, k), sh->workers);
    n = solve_task(sh, k + 1, k, 1, ops, n);
  }
  for (int i = k + 2; i < nt && k > 0; ++i)
    if (owns(sh, i)) ops[n++] = update_op(sh, i, k - 1, k);
  for (int i = k + 2; i < nt; ++i)
    if (owns(sh, i)) n = solve_task(sh, i, k, 1, ops, n);
  if (k + 1 < nt && owns(sh, k + 1))
    for (int j = 0; j < k; ++j) {
      const tile_op syrk = make_op(sh, TILE_OP_SYRK, k + 1, j, k + 1, (int)gs_tile_index(k + 1, j), -1);
      ops[n++] = on_worker(syrk, row_worker(sh, k + 1));
    }
  for (int i = k + 2; i < nt; ++i)
    if (owns(sh, i))
      for (int j = 0; j < k; ++j) ops[n++] = update_op(sh, i, j, k + 1);
  return n;
}

/* The compute and store ops of the rows that the device owns, in schedule
 * order, without loads; col_end[k] is one past the last op of column k's
 * section. */
static long schedule_fill(const tile_shape *sh, int round, int in_core, tile_op *ops, long *col_end)
{
  long n = 0;
  for (int k = 0; k < sh->nt; ++k) {
    n = in_core ? column_ahead(sh, k, ops, n) : column_in_rounds(sh, k, round, ops, n);
    col_end[k] = n;
  }
  return n;
}

/* Whether the tiles that ops[0..n) touch fit in `slots`. */
static int schedule_in_core(const tile_op *ops, long n, long ntiles, int slots, unsigned char *seen)
{
  long touched = 0;
  memset(seen, 0, (size_t)ntiles);
  for (long q = 0; q < n; ++q)
    for (int r = 0; r < 3; ++r) {
      const int t = ops[q].tile[r];
      if (t >= 0 && !seen[t]) {
        seen[t] = 1;
        touched++;
      }
    }
  return touched <= slots;
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

/* The tile cache while the plan is made: which tile each slot holds, where
 * each tile is, when each tile is next used, and which tiles are running
 * accumulators (dirty) that must not be evicted. */
typedef struct {
  int slots, used;
  int *slot_tile, *tile_slot;
  long *tile_next;
  unsigned char *dirty;
} slot_cache;

/* The slot for tile t before op: a free one, else that of the clean tile
 * (not the running accumulator) used furthest in the future. -1: none. */
static int choose_slot(slot_cache *sc, const tile_op *op)
{
  if (sc->used < sc->slots) return sc->used++;
  int best = -1;
  long best_next = -1;
  for (int s = 0; s < sc->slots; ++s) {
    const int t = sc->slot_tile[s];
    if (sc->dirty[t] || op_uses(op, t)) continue;
    if (sc->tile_next[t] > best_next) {
      best_next = sc->tile_next[t];
      best = s;
    }
  }
  return best;
}

/* Appends the load of tile t into a slot (a free one, else the eviction
 * choose_slot makes for op). Returns 1, 0 when out of memory, -1 when no slot
 * can be freed. */
static int plan_load(op_list *out, tile_plan *p, slot_cache *sc, const tile_op *op, int t)
{
  const int s = choose_slot(sc, op);
  if (s < 0) return -1;
  if (sc->slot_tile[s] >= 0) sc->tile_slot[sc->slot_tile[s]] = -1;
  sc->slot_tile[s] = t;
  sc->tile_slot[t] = s;
  tile_op load = *op;
  load.kind = TILE_OP_LOAD;
  load.tile[0] = t;
  load.tile[1] = load.tile[2] = -1;
  load.slot[0] = s;
  load.slot[1] = load.slot[2] = -1;
  p->loads++;
  return op_list_push(out, load);
}

/* In core, the column in whose section this device loads tile t, when
 * that is earlier than its first use: a finished tile (r, j) of another
 * device's row, TILE_PREFETCH_LEAD columns before the column c that first
 * reads it, but not before column j + 1 (its owner stores it in column j, and
 * the host issues every device's column j before any column j + 1). Else -1:
 * the tile is loaded just before its first use. */
static void prefetch_columns(const tile_op *ops, const long *col_end, const tile_shape *sh, int *fetch_col)
{
  const int nt = sh->nt;
  const long ntiles = gs_tile_count(nt);
  for (long t = 0; t < ntiles; ++t) fetch_col[t] = INT_MAX; /* first use, then the prefetch column */
  long q = 0;
  for (int c = 0; c < nt; ++c)
    for (; q < col_end[c]; ++q)
      for (int r = 1; r < 3; ++r)
        if (ops[q].tile[r] >= 0 && fetch_col[ops[q].tile[r]] == INT_MAX) fetch_col[ops[q].tile[r]] = c;
  for (long t = 0; t < ntiles; ++t) {
    int i, j;
    gs_tile_coords(t, &i, &j);
    const int use = fetch_col[t], early = use - TILE_PREFETCH_LEAD > j + 1 ? use - TILE_PREFETCH_LEAD : j + 1;
    fetch_col[t] = (use != INT_MAX && !owns(sh, i) && early < use) ? early : -1;
  }
}

/* The prefetches due at the start of column c's section, tile by tile. */
static int plan_prefetches(op_list *out, tile_plan *p, slot_cache *sc, const tile_shape *sh, const int *fetch_col,
                           int c)
{
  const long ntiles = gs_tile_count(sh->nt);
  for (long t = 0; t < ntiles; ++t) {
    if (fetch_col[t] < 0 || fetch_col[t] > c || sc->tile_slot[t] >= 0) continue;
    int i, j;
    gs_tile_coords(t, &i, &j);
    tile_op none = make_op(sh, TILE_OP_LOAD, i, j, c, -1, -1);
    none.tile[0] = -1; /* no tile of its own to keep */
    const int loaded = plan_load(out, p, sc, &none, t);
    if (loaded <= 0) return loaded;
  }
  return 1;
}

/* The schedule's n ops with their loads (and prefetches) and slots, into
 * out; p->column_end: where each column's section ends. Returns 1, 0 when
 * out of memory, -1 when no slot can be freed. */
static int plan_slots(op_list *out, tile_plan *p, slot_cache *sc, const tile_shape *sh, const tile_op *sched, long n,
                      const long *next, const long *col_end, const int *fetch_col)
{
  const int nt = sh->nt;
  int c = 0, loaded;
  for (long q = 0; q < n; ++q) {
    tile_op op = sched[q];
    if (q == (c ? col_end[c - 1] : 0) && (loaded = plan_prefetches(out, p, sc, sh, fetch_col, c)) <= 0)
      return loaded;
    for (int r = 0; r < 3; ++r) {
      const int t = op.tile[r];
      if (t >= 0 && sc->tile_slot[t] < 0 && (loaded = plan_load(out, p, sc, &op, t)) <= 0) return loaded;
    }
    for (int r = 0; r < 3; ++r) {
      const int t = op.tile[r];
      if (t < 0) continue;
      op.slot[r] = sc->tile_slot[t];
      sc->tile_next[t] = next[3 * q + r];
    }
    sc->dirty[op.tile[0]] = op.kind != TILE_OP_STORE;
    if (op.kind == TILE_OP_STORE) p->stores++;
    if (!op_list_push(out, op)) return 0;
    for (; c < nt && q + 1 == col_end[c]; ++c) p->column_end[c] = out->n; /* empty sections end here too */
  }
  for (; c < nt; ++c) p->column_end[c] = out->n;
  return 1;
}

gs_status tile_plan_build(int nt, int workers, int slots, int owners, int owner, tile_plan *p, char *msg)
{
  gs_status st = GS_OK;
  const long ntiles = gs_tile_count(nt);
  long n = schedule_length(nt);
  const tile_shape shape = {nt, workers, owners, owner};
  memset(p, 0, sizeof *p);
  /* an update holds three tiles at once; a matrix of one tile has no update */
  if (nt < 1 || workers < 1 || workers > 254 || slots < (ntiles < 3 ? ntiles : 3) || owners < 1 || owner < 0 ||
      owner >= owners)
    return gs_set_msg(msg, GS_ERR_ARG, "a tile plan needs at least one tile, 1 to 254 workers, 3 tile slots (1 for a "
                                       "single tile) and an owner among the owners");
  p->nt = nt;
  p->workers = workers;
  p->slots = slots;
  op_list out = {NULL, 0, 0};
  slot_cache sc = {slots, 0, NULL, NULL, NULL, NULL};
  tile_op *sched = (tile_op *)malloc((size_t)n * sizeof *sched);
  long *next = (long *)malloc((size_t)n * 3 * sizeof *next);
  long *col_end = (long *)malloc((size_t)nt * sizeof *col_end);
  int *fetch_col = (int *)malloc((size_t)ntiles * sizeof *fetch_col);
  sc.tile_next = (long *)malloc((size_t)ntiles * sizeof *sc.tile_next);
  sc.tile_slot = (int *)malloc((size_t)ntiles * sizeof *sc.tile_slot);
  sc.slot_tile = (int *)malloc((size_t)slots * sizeof *sc.slot_tile);
  sc.dirty = (unsigned char *)calloc((size_t)ntiles, 1);
  p->column_end = (long *)malloc((size_t)nt * sizeof *p->column_end);
  if (!sched || !next || !sc.tile_next || !col_end || !sc.tile_slot || !fetch_col || !sc.slot_tile || !sc.dirty ||
      !p->column_end) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for the tile schedule");
    goto done;
  }
  {
    /* Half the slots hold a round's accumulators; the rest cache operands. */
    const int round = slots / 2 - 1 > 1 ? slots / 2 - 1 : 1;
    n = schedule_fill(&shape, round, 0, sched, col_end);
    const int in_core = schedule_in_core(sched, n, ntiles, slots, sc.dirty);
    memset(sc.dirty, 0, (size_t)ntiles);
    if (in_core) n = schedule_fill(&shape, round, 1, sched, col_end);
    if (in_core) prefetch_columns(sched, col_end, &shape, fetch_col);
    else
      for (long t = 0; t < ntiles; ++t) fetch_col[t] = -1;
  }
  next_uses(sched, n, ntiles, sc.tile_next, next);
  for (long t = 0; t < ntiles; ++t) sc.tile_slot[t] = -1;
  for (int s = 0; s < slots; ++s) sc.slot_tile[s] = -1;
  {
    const int planned = plan_slots(&out, p, &sc, &shape, sched, n, next, col_end, fetch_col);
    if (planned < 0)
      st = gs_set_msg(msg, GS_ERR_ARG, "the tile cache has no slot to free");
    else if (planned == 0)
      st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for the tile schedule");
  }
  if (st == GS_OK) {
    p->ops = out.ops;
    p->nops = out.n;
    out.ops = NULL;
  }
done:
  free(out.ops);
  free(sched);
  free(next);
  free(sc.tile_next);
  free(col_end);
  free(sc.tile_slot);
  free(fetch_col);
  free(sc.slot_tile);
  free(sc.dirty);
  if (st != GS_OK) tile_plan_free(p);
  return st;
}

void tile_plan_free(tile_plan *p)
{
  free(p->ops);
  free(p->column_end);
  memset(p, 0, sizeof *p);
}
