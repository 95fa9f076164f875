/* Grouping of conditioning sets (Guinness 2021): nearby points share one
 * factorization of the union of their sets, which costs about what their
 * separate ones cost while each point conditions on more of the others
 * (the points of the union before it), so that the approximation is closer
 * to the exact law for the same m. The rule is GpGp's group_obs. */
#include <stdlib.h>
#include <string.h>

#include "vecchia_internal.h"

/* Rows of the grouping between interrupt checks. */
#define VECCHIA_GROUP_BATCH 65536

/* The slots of the grouping: each holds a list of points (head, next,
 * tail) and the size of the union of their rows (u). */
typedef struct {
  const int *nn;
  long n;
  int mp1;
  long *head, *next, *tail, *u;
  long *mark; /* per point: the last count that saw it */
  long stamp;
} group_slots;

/* The size of the union of the rows of the points of slots a and b (b < 0:
 * a alone); the padding (-1) counts as one entry, as NA in R's unique(). */
static long union_size(group_slots *g, long a, long b)
{
  long count = 0;
  int padded = 0;
  ++g->stamp;
  for (int s = 0; s < 2; ++s)
    for (long i = s ? (b >= 0 ? g->head[b] : -1) : g->head[a]; i >= 0; i = g->next[i])
      for (int j = 0; j < g->mp1; ++j) {
        const int e = g->nn[i + (long)j * g->n];
        if (e < 0) padded = 1;
        else if (g->mark[e] != g->stamp) {
          g->mark[e] = g->stamp;
          ++count;
        }
      }
  return count + padded;
}

/* Moves slot k's points to the end of slot j's. */
static void move_points(group_slots *g, long j, long k, long u)
{
  if (g->head[j] < 0) g->head[j] = g->head[k];
  else g->next[g->tail[j]] = g->head[k];
  g->tail[j] = g->tail[k];
  g->head[k] = g->tail[k] = -1;
  g->u[j] = u;
  g->u[k] = 0;
}

static gs_status group_run(group_slots *g, int *block, gs_progress_fn progress, char *msg)
{
  const long n = g->n;
  for (long i = 0; i < n; ++i) {
    g->head[i] = g->tail[i] = i;
    g->next[i] = -1;
    g->mark[i] = -1;
  }
  g->stamp = 0;
  for (long i = 0; i < n; ++i) g->u[i] = union_size(g, i, -1);
  const double total = (double)n * (g->mp1 - 1);
  for (int col = 1; col < g->mp1; ++col)
    for (long j = 0; j < n; ++j) {
      if (progress && j % VECCHIA_GROUP_BATCH == 0 && progress(((col - 1.0) * n + j) / total))
        return gs_interrupted(msg);
      const int k = g->nn[j + (long)col * n];
      if (k < 0 || g->head[k] < 0) continue;
      const long u = union_size(g, j, k);
      if ((double)u * u <= (double)g->u[j] * g->u[j] + (double)g->u[k] * g->u[k]) move_points(g, j, k, u);
    }
  long b = 0;
  for (long s = 0; s < n; ++s) {
    if (g->head[s] < 0) continue;
    for (long i = g->head[s]; i >= 0; i = g->next[i]) block[i] = (int)b;
    ++b;
  }
  return GS_OK;
}

gs_status gs_vecchia_group(const int *nn, long n, int mp1, int *block, gs_progress_fn progress, char *msg)
{
  if (n < 1 || mp1 < 1) return gs_set_msg(msg, GS_ERR_ARG, "need n >= 1 points and m >= 0");
  group_slots g = {.nn = nn, .n = n, .mp1 = mp1};
  long *mem = (long *)malloc((size_t)n * 5 * sizeof(long));
  if (!mem) return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the grouping of %ld points", n);
  g.head = mem;
  g.next = mem + n;
  g.tail = mem + 2 * n;
  g.u = mem + 3 * n;
  g.mark = mem + 4 * n;
  gs_status st = group_run(&g, block, progress, msg);
  free(mem);
  return st;
}

static int compare_int(const void *a, const void *b)
{
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Block t's set: the union of the rows of its points (members, increasing),
 * increasing, at set + set_start[t]; the positions of the points in it. */
static void block_layout(gs_vecchia *v, long t, const long *members, long count, long *mark)
{
  int *set = v->set + v->set_start[t];
  int b = 0;
  for (long r = 0; r < count; ++r)
    for (int j = 0; j < v->mp1; ++j) {
      const int e = v->nn[members[r] + (long)j * v->n];
      if (e >= 0 && mark[e] != t) {
        mark[e] = t;
        set[b++] = e;
      }
    }
  qsort(set, (size_t)b, sizeof(int), compare_int);
  v->set_start[t + 1] = v->set_start[t] + b;
  int *resp = v->resp + v->resp_start[t];
  for (int k = 0, r = 0; k < b && r < count; ++k)
    if (set[k] == members[r]) resp[r++] = k;
  if (b > v->ld) v->ld = b;
}

/* Puts the blocks in increasing size of their sets (stable), so that a GPU
 * launch over a run of them sizes its workspace to them. */
static gs_status blocks_sort_by_size(gs_vecchia *v, char *msg)
{
  const long nb = v->blocks;
  long *first = (long *)calloc((size_t)v->ld + 2, sizeof(long)), *at = (long *)malloc((size_t)nb * sizeof(long));
  long *set_start = (long *)malloc((size_t)(nb + 1) * sizeof(long));
  long *resp_start = (long *)malloc((size_t)(nb + 1) * sizeof(long));
  int *set = (int *)malloc((size_t)v->set_start[nb] * sizeof(int)), *resp = (int *)malloc((size_t)v->n * sizeof(int));
  gs_status st = GS_OK;
  if (!first || !at || !set_start || !resp_start || !set || !resp) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the blocks");
    goto done;
  }
#define SET_SIZE(t) (v->set_start[(t) + 1] - v->set_start[t])
  for (long t = 0; t < nb; ++t) ++first[SET_SIZE(t) + 1];
  for (int b = 1; b <= v->ld + 1; ++b) first[b] += first[b - 1];
  for (long t = 0; t < nb; ++t) at[first[SET_SIZE(t)]++] = t; /* the block at each new place */
  set_start[0] = resp_start[0] = 0;
  for (long u = 0; u < nb; ++u) {
    const long t = at[u], rs = v->resp_start[t], rc = v->resp_start[t + 1] - rs;
    set_start[u + 1] = set_start[u] + SET_SIZE(t);
    resp_start[u + 1] = resp_start[u] + rc;
    memcpy(set + set_start[u], v->set + v->set_start[t], (size_t)SET_SIZE(t) * sizeof(int));
    memcpy(resp + resp_start[u], v->resp + rs, (size_t)rc * sizeof(int));
  }
#undef SET_SIZE
  free(v->set);
  free(v->resp);
  free(v->set_start);
  free(v->resp_start);
  v->set = set;
  v->resp = resp;
  v->set_start = set_start;
  v->resp_start = resp_start;
  set = resp = NULL;
  set_start = resp_start = NULL;
done:
  free(first);
  free(at);
  free(set_start);
  free(resp_start);
  free(set);
  free(resp);
  return st;
}

gs_status gs_vecchia_blocks_build(gs_vecchia *v, const int *block, char *msg)
{
  const long n = v->n;
  long *count = (long *)calloc((size_t)n + 1, sizeof(long));
  long *members = (long *)malloc((size_t)n * sizeof(long)), *mark = (long *)malloc((size_t)n * sizeof(long));
  gs_status st = GS_OK;
  if (!count || !members || !mark) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the blocks");
    goto done;
  }
  for (long i = 0; i < n; ++i) {
    if (block[i] < 0 || block[i] >= n) {
      st = gs_set_msg(msg, GS_ERR_ARG, "the block of point %ld is not in 0 to n - 1", i + 1);
      goto done;
    }
    ++count[block[i] + 1];
  }
  /* labels to blocks 0 .. blocks - 1 in label order; members by counting sort */
  long blocks = 0;
  for (long l = 1; l <= n; ++l) blocks += count[l] > 0;
  for (long l = 1; l <= n; ++l) count[l] += count[l - 1];
  v->set_start = (long *)malloc((size_t)(blocks + 1) * sizeof(long));
  v->resp_start = (long *)malloc((size_t)(blocks + 1) * sizeof(long));
  v->resp = (int *)malloc((size_t)n * sizeof(int));
  v->set = (int *)malloc((size_t)n * v->mp1 * sizeof(int));
  if (!v->set_start || !v->resp_start || !v->resp || !v->set) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the blocks");
    goto done;
  }
  {
    long *fill = mark; /* the next free place of each label, then reused as marks */
    for (long l = 0; l < n; ++l) fill[l] = count[l];
    for (long i = 0; i < n; ++i) members[fill[block[i]]++] = i;
    for (long i = 0; i < n; ++i) mark[i] = -1;
  }
  v->blocks = blocks;
  v->set_start[0] = v->resp_start[0] = 0;
  v->ld = 0;
  for (long l = 0, t = 0; l < n; ++l) {
    const long c = count[l + 1] - count[l];
    if (c == 0) continue;
    v->resp_start[t + 1] = v->resp_start[t] + c;
    block_layout(v, t, members + count[l], c, mark);
    ++t;
  }
  st = blocks_sort_by_size(v, msg);
done:
  free(count);
  free(members);
  free(mark);
  return st;
}
