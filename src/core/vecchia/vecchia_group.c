/* Grouping of conditioning sets (Guinness 2021): nearby points share one
 * factorization of the union of their sets, which costs about what their
 * separate ones cost while each point conditions on more of the others
 * (the points of the union before it), so that the approximation is closer
 * to the exact law for the same m. The rule is GpGp's group_obs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <sched.h>
#endif

#include "gs_cpu.h"
#include "vecchia_internal.h"

/* Merge tests between interrupt checks. */
#define VECCHIA_GROUP_BATCH 262144

/* The pass is GpGp's sequence of merge tests, column by column of nn, point
 * j by point j: test (col, j) reads and may change only slots j and k =
 * nn[j, col] (k < j). Two tests that share no slot commute, so the tests of
 * a column run on several threads in the order of j, each once the earlier
 * tests of the column on its slots are done: every slot then changes as in
 * the sequential pass, and the blocks are the same for any number of
 * threads. No earlier test of the column touches slot j (their k and j are
 * below j), so a test waits only for those on slot k, which a sequential
 * scan counts (the part that stays sequential: an increment per test,
 * against the union sizes, computed in parallel, that take the time). The
 * tests are handed out in the order of j, so the earliest test not done
 * waits for none: the pass cannot deadlock. */

/* The slots: each holds a list of points (head, next, tail), the union of
 * their rows (set, u entries, room for cap; a row's own place in `rows`
 * until it grows, then its own allocation) and the size of that union (u).
 * Keeping the union makes a merge test cost its two unions, not every row
 * of both slots (rows share most entries: the union of a block of 4 points
 * has about 45 entries where its rows have 124). */
typedef struct {
  const int *nn;
  long n;
  int mp1;
  int *head, *next, *tail, *u, *cap;
  int **set;
  int *rows;     /* n x mp1: each row's distinct entries, the slots' first sets */
  int failed;    /* a union could not grow (out of memory) */
} group_slots;

/* A thread's set of distinct entries: a bit per entry e + 1 (the padding
 * -1 is entry 0), n / 8 bytes, within a cache level where a mark per point
 * would not be, emptied after each use by clearing the bits it set. */
typedef uint64_t group_set;

static int seen_test_set(group_set *seen, int e)
{
  const unsigned b = (unsigned)(e + 1);
  const int was = (int)(seen[b >> 6] >> (b & 63) & 1);
  seen[b >> 6] |= (uint64_t)1 << (b & 63);
  return was;
}

static int seen_test(const group_set *seen, int e)
{
  const unsigned b = (unsigned)(e + 1);
  return (int)(seen[b >> 6] >> (b & 63) & 1);
}

static void seen_clear(group_set *seen, const int *entries, int count)
{
  for (int i = 0; i < count; ++i) seen[(unsigned)(entries[i] + 1) >> 6] = 0;
}

/* Slot i's first set: the distinct entries of row i (the padding -1 once,
 * as NA in R's unique()). */
static void slot_init(group_slots *g, long i, group_set *seen)
{
  const int *row = g->nn + i * g->mp1;
  int *set = g->rows + i * g->mp1, u = 0;
  for (int j = 0; j < g->mp1; ++j)
    if (!seen_test_set(seen, row[j])) set[u++] = row[j];
  seen_clear(seen, set, u);
  g->head[i] = g->tail[i] = (int)i;
  g->next[i] = -1;
  g->set[i] = set;
  g->u[i] = u;
  g->cap[i] = g->mp1;
}

/* Room for u entries in slot j's set (its row's place, then an allocation
 * of its own); 0 where it cannot grow. */
static int set_reserve(group_slots *g, long j, long u)
{
  if (u <= g->cap[j]) return 1;
  const int cap = u < INT32_MAX / 2 ? (int)(2 * u) : (int)u;
  int *grown = (int *)malloc((size_t)cap * sizeof(int));
  if (!grown) return 0;
  memcpy(grown, g->set[j], (size_t)g->u[j] * sizeof(int));
  if (g->cap[j] > g->mp1) free(g->set[j]);
  g->set[j] = grown;
  g->cap[j] = cap;
  return 1;
}

/* Slot j takes slot k's points and its set (j's set already the union of
 * both, u entries). */
static void move_points(group_slots *g, long j, long k, long u)
{
  if (g->head[j] < 0) g->head[j] = g->head[k];
  else g->next[g->tail[j]] = g->head[k];
  g->tail[j] = g->tail[k];
  g->head[k] = g->tail[k] = -1;
  g->set[k] = NULL;
  g->cap[k] = 0;
  g->u[j] = (int)u;
  g->u[k] = 0;
}

/* Merge test (col, j): slot j takes slot k = nn[j, col] when the union of
 * their rows is small enough (gs_vecchia_group). The entries of j's set are
 * marked once: k's unmarked ones give the union's size, and a merge appends
 * them while the marks stand (an empty j takes k's set as it is). */
static void merge_test(group_slots *g, int col, long j, group_set *seen)
{
  const int k = g->nn[j * g->mp1 + col];
  if (k < 0 || g->head[k] < 0) return;
  const int uj = g->u[j], uk = g->u[k];
  int *sk = g->set[k];
  for (int i = 0; i < uj; ++i) seen_test_set(seen, g->set[j][i]);
  long u = uj;
  for (int i = 0; i < uk; ++i) u += !seen_test(seen, sk[i]);
  if ((double)u * u <= (double)uj * uj + (double)uk * uk) {
    if (g->head[j] < 0) {
      g->set[j] = sk;
      g->cap[j] = g->cap[k];
      move_points(g, j, k, u);
    } else if (set_reserve(g, j, u)) {
      for (int i = 0, at = uj; i < uk; ++i)
        if (!seen_test(seen, sk[i])) g->set[j][at++] = sk[i];
      if (g->cap[k] > g->mp1) free(sk);
      move_points(g, j, k, u);
    } else {
      __atomic_store_n(&g->failed, 1, __ATOMIC_RELAXED);
    }
  }
  seen_clear(seen, g->set[j], uj); /* j's first uj entries: those marked */
}

/* Scratch of the parallel pass: per test of a column, the number of earlier
 * tests of the column on its slot k (need); per slot, those done (done);
 * a set per thread. */
typedef struct {
  int *need, *done;
  group_set *seen; /* nt sets of `words` */
  long words;
  int nt;
} group_scratch;

/* The calling thread's set of `words` among sets. */
static group_set *thread_set(group_set *sets, long words)
{
#ifdef _OPENMP
  return sets + omp_get_thread_num() * words;
#else
  (void)words;
  return sets;
#endif
}

/* need for the tests of column col; done emptied. */
static void column_needs(const group_slots *g, int col, group_scratch *w)
{
  const long n = g->n;
  memset(w->done, 0, (size_t)n * sizeof(int));
  for (long j = 0; j < n; ++j) {
    const int k = g->nn[j * g->mp1 + col];
    if (k < 0) continue;
    w->need[j] = w->done[k]++;
    ++w->done[j];
  }
  memset(w->done, 0, (size_t)n * sizeof(int));
}

/* Gives the core to another thread while waiting (on a loaded host, the one
 * whose test is awaited may be off its core). */
static void group_yield(void)
{
#if defined(__unix__) || defined(__APPLE__)
  sched_yield();
#endif
}

/* Waits until the tests before `need` on a slot are done (count). */
static void wait_for(const int *count, int need)
{
  for (int spins = 0; __atomic_load_n(count, __ATOMIC_ACQUIRE) != need; ++spins)
    if (spins > 64) group_yield();
}

/* The tests j0 .. j1 - 1 of column col on w->nt threads. */
static void run_tests(group_slots *g, int col, const group_scratch *w, long j0, long j1)
{
#pragma omp parallel num_threads(w->nt)
  {
    group_set *seen = thread_set(w->seen, w->words);
#pragma omp for schedule(dynamic, 64)
    for (long j = j0; j < j1; ++j) {
      const int k = g->nn[j * g->mp1 + col];
      if (k < 0) continue;
      wait_for(w->done + k, w->need[j]);
      merge_test(g, col, j, seen);
      /* no other test is on slot k or j now (the later ones wait for these
       * stores): plain stores, not read-modify-writes */
      __atomic_store_n(w->done + k, w->need[j] + 1, __ATOMIC_RELEASE);
      __atomic_store_n(w->done + j, 1, __ATOMIC_RELEASE);
    }
  }
}

/* Column col of the pass, with an interrupt check every VECCHIA_GROUP_BATCH
 * tests: on one thread in GpGp's order, else as above. */
static gs_status group_column(group_slots *g, int col, group_scratch *w, gs_progress_fn progress, char *msg)
{
  const long n = g->n;
  const double total = (double)n * (g->mp1 - 1), before = (col - 1.0) * n;
  if (w->nt > 1) column_needs(g, col, w);
  for (long j0 = 0; j0 < n; j0 += VECCHIA_GROUP_BATCH) {
    if (progress && progress((before + j0) / total)) return gs_interrupted(msg);
    const long j1 = j0 + VECCHIA_GROUP_BATCH < n ? j0 + VECCHIA_GROUP_BATCH : n;
    if (w->nt > 1) run_tests(g, col, w, j0, j1);
    else
      for (long j = j0; j < j1; ++j) merge_test(g, col, j, w->seen);
  }
  return GS_OK;
}

static gs_status group_run(group_slots *g, group_scratch *w, int *block, gs_progress_fn progress, char *msg)
{
  const long n = g->n;
#pragma omp parallel for num_threads(w->nt) schedule(static)
  for (long i = 0; i < n; ++i) slot_init(g, i, thread_set(w->seen, w->words));
  for (int col = 1; col < g->mp1; ++col) {
    gs_status st = group_column(g, col, w, progress, msg);
    if (st != GS_OK) return st;
    if (g->failed) return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the grouping of %ld points", n);
  }
  long b = 0;
  for (long s = 0; s < n; ++s) {
    if (g->head[s] < 0) continue;
    for (long i = g->head[s]; i >= 0; i = g->next[i]) block[i] = (int)b;
    ++b;
  }
  return GS_OK;
}

/* Frees the sets that grew out of their rows' places. */
static void slots_free(group_slots *g)
{
  for (long i = 0; i < g->n; ++i)
    if (g->cap[i] > g->mp1) free(g->set[i]);
}

/* Every row starts with its own index and lists earlier points or -1. */
static gs_status group_check(const int *nn, long n, int mp1, char *msg)
{
  for (long i = 0; i < n; ++i) {
    if (nn[i * mp1] != i) return gs_set_msg(msg, GS_ERR_ARG, "row %ld of the neighbour array does not start with its own index", i + 1);
    for (int j = 1; j < mp1; ++j)
      if (nn[i * mp1 + j] >= i) return gs_set_msg(msg, GS_ERR_ARG, "row %ld of the neighbour array lists a point that is not earlier", i + 1);
  }
  return GS_OK;
}

gs_status gs_vecchia_group(const int *nn, long n, int mp1, int threads, int *block, gs_progress_fn progress, char *msg)
{
  if (n < 1 || mp1 < 1 || n > 2147483645L) return gs_set_msg(msg, GS_ERR_ARG, "need 1 to 2^31 - 3 points and m >= 0");
  gs_status st = group_check(nn, n, mp1, msg);
  if (st != GS_OK) return st;
  group_slots g = {.nn = nn, .n = n, .mp1 = mp1};
  group_scratch w = {.nt = gs_cpu_threads_for(threads, (double)n * mp1 * mp1), .words = (n + 64) / 64};
  const int scratch = w.nt > 1 ? 2 : 0; /* need and done: only with threads */
  int *mem = (int *)malloc((size_t)n * (5 + scratch) * sizeof(int));
  g.set = (int **)calloc((size_t)n, sizeof(int *));
  g.rows = (int *)malloc((size_t)n * mp1 * sizeof(int));
  w.seen = (group_set *)calloc((size_t)w.nt * w.words, sizeof(group_set));
  if (!mem || !g.set || !g.rows || !w.seen) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the grouping of %ld points", n);
  } else {
    g.head = mem;
    g.next = mem + n;
    g.tail = mem + 2 * n;
    g.u = mem + 3 * n;
    g.cap = mem + 4 * n;
    if (scratch) {
      w.need = mem + 5 * n;
      w.done = mem + 6 * n;
    }
    st = group_run(&g, &w, block, progress, msg);
    slots_free(&g);
  }
  free(w.seen);
  free(g.rows);
  free(g.set);
  free(mem);
  return st;
}

static int compare_int(const void *a, const void *b)
{
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The size of the union of the rows of points members[0 .. count) (their
 * block's set), and with `set` those entries; seen is the thread's set of
 * distinct entries, empty before and after. */
static int block_union(const gs_vecchia *v, const int *members, int count, group_set *seen, int *set)
{
  int b = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (int r = 0; r < count; ++r)
      for (int j = 0; j < v->mp1; ++j) {
        const int e = v->nn[members[r] + (long)j * v->n];
        if (e < 0) continue;
        if (pass) seen[e >> 6] = 0;
        else if (!(seen[e >> 6] >> (e & 63) & 1)) {
          seen[e >> 6] |= (uint64_t)1 << (e & 63);
          if (set) set[b] = e;
          ++b;
        }
      }
  return b;
}

/* Block u's set (the union of the rows of its points, members, increasing),
 * increasing, at set + set_start[u], and the positions of the points in it
 * at resp + resp_start[u]. */
static void block_layout(gs_vecchia *v, long u, const int *members, int count, group_set *seen)
{
  int *set = v->set + v->set_start[u];
  const int b = block_union(v, members, count, seen, set);
  qsort(set, (size_t)b, sizeof(int), compare_int);
  int *resp = v->resp + v->resp_start[u];
  for (int k = 0, r = 0; k < b && r < count; ++k)
    if (set[k] == members[r]) resp[r++] = k;
}

/* Scratch of the blocks' build: the points of each label (members, by
 * counting sort: label l's from first[l]; fill, the next free place of
 * each), then per block in label order its first member and set size, and
 * the blocks in increasing set size (stable: `at`), so that a GPU launch
 * over a run of them sizes its workspace to them; each set is then written
 * once, at its final place. The sets' unions run on nt threads, a set of
 * distinct entries (`words`) each, as the grouping's. */
typedef struct {
  int *first, *members, *fill, *size;
  long *at;
  group_set *seen;
  long words;
  int nt;
} blocks_scratch;

/* The labels into members, by label, the halo's points (halo may be NULL)
 * left out; the number of blocks, or -1 (a label out of range: the point in
 * *bad). */
static long blocks_members(long n, const int *block, int base, const unsigned char *halo, blocks_scratch *w,
                           long *bad)
{
  memset(w->first, 0, (size_t)(n + 1) * sizeof(int));
  long members = 0;
  for (long i = 0; i < n; ++i) {
    if (halo && halo[i]) continue;
    ++members;
    const long l = (long)block[i] - base;
    if (l < 0 || l >= n) {
      *bad = i;
      return -1;
    }
    ++w->first[l + 1];
  }
  long blocks = 0;
  for (long l = 1; l <= n; ++l) blocks += w->first[l] > 0;
  for (long l = 1; l <= n; ++l) w->first[l] += w->first[l - 1];
  memcpy(w->fill, w->first, (size_t)n * sizeof(int));
  for (long i = 0; i < n; ++i)
    if (!(halo && halo[i])) w->members[w->fill[block[i] - base]++] = (int)i;
  /* first[t]: block t's first member, in label order */
  long t = 0;
  for (long l = 0; l < n; ++l)
    if (w->first[l + 1] > w->first[l]) w->first[t++] = w->first[l];
  w->first[blocks] = (int)members;
  return blocks;
}

/* The blocks' sizes, their order by size (w->at) and the starts of their
 * sets and responses in v. */
static gs_status blocks_order(gs_vecchia *v, blocks_scratch *w, char *msg)
{
  const long nb = v->blocks;
#pragma omp parallel num_threads(w->nt)
  {
    group_set *seen = thread_set(w->seen, w->words);
#pragma omp for schedule(dynamic, 256)
    for (long t = 0; t < nb; ++t)
      w->size[t] = block_union(v, w->members + w->first[t], w->first[t + 1] - w->first[t], seen, NULL);
  }
  v->ld = 0;
  for (long t = 0; t < nb; ++t)
    if (w->size[t] > v->ld) v->ld = w->size[t];
  long *bucket = (long *)calloc((size_t)v->ld + 2, sizeof(long));
  if (!bucket) return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the blocks");
  for (long t = 0; t < nb; ++t) ++bucket[w->size[t] + 1];
  for (int b = 1; b <= v->ld + 1; ++b) bucket[b] += bucket[b - 1];
  for (long t = 0; t < nb; ++t) w->at[bucket[w->size[t]]++] = t;
  free(bucket);
  v->set_start[0] = v->resp_start[0] = 0;
  for (long u = 0; u < nb; ++u) {
    const long t = w->at[u];
    v->set_start[u + 1] = v->set_start[u] + w->size[t];
    v->resp_start[u + 1] = v->resp_start[u] + (w->first[t + 1] - w->first[t]);
  }
  return GS_OK;
}

gs_status gs_vecchia_blocks_build(gs_vecchia *v, const int *block, int base, const unsigned char *halo,
                                  char *msg)
{
  const long n = v->n;
  blocks_scratch w = {
    .first = (int *)malloc((size_t)(n + 1) * sizeof(int)), .members = (int *)malloc((size_t)n * sizeof(int)),
    .fill = (int *)malloc((size_t)n * sizeof(int)), .words = (n + 63) / 64,
    .nt = gs_cpu_threads_for(v->threads, (double)n * v->mp1),
  };
  gs_status st = GS_OK;
  long bad = 0;
  w.seen = (group_set *)calloc((size_t)w.nt * w.words, sizeof(group_set));
  if (!w.first || !w.members || !w.fill || !w.seen) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the blocks");
    goto done;
  }
  if ((v->blocks = blocks_members(n, block, base, halo, &w, &bad)) < 0) {
    st = gs_set_msg(msg, GS_ERR_ARG, "the block of point %ld is not in 0 to n - 1", bad + 1);
    goto done;
  }
  w.size = (int *)malloc((size_t)v->blocks * sizeof(int));
  w.at = (long *)malloc((size_t)v->blocks * sizeof(long));
  v->set_start = (long *)malloc((size_t)(v->blocks + 1) * sizeof(long));
  v->resp_start = (long *)malloc((size_t)(v->blocks + 1) * sizeof(long));
  v->resp = (int *)malloc((size_t)n * sizeof(int));
  if (!w.size || !w.at || !v->set_start || !v->resp_start || !v->resp) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the blocks");
    goto done;
  }
  if ((st = blocks_order(v, &w, msg)) != GS_OK) goto done;
  if (!(v->set = (int *)malloc((size_t)v->set_start[v->blocks] * sizeof(int)))) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the blocks' sets");
    goto done;
  }
#pragma omp parallel num_threads(w.nt)
  {
    group_set *seen = thread_set(w.seen, w.words);
#pragma omp for schedule(dynamic, 256)
    for (long u = 0; u < v->blocks; ++u) {
      const long t = w.at[u];
      block_layout(v, u, w.members + w.first[t], w.first[t + 1] - w.first[t], seen);
    }
  }
done:
  free(w.seen);
  free(w.first);
  free(w.members);
  free(w.fill);
  free(w.size);
  free(w.at);
  return st;
}
