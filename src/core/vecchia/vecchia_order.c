/* The maxmin ordering and the nearest earlier neighbours of the Vecchia
 * approximation, both over one k-d tree of the locations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_vecchia.h"
#include "vecchia_internal.h"
#include "vecchia_kdtree.h"

/* Pops between two interrupt checks of the (sequential) maxmin ordering,
 * and points between two of the neighbour search. */
#define VECCHIA_ORDER_BATCH 65536L

/* The max-heap of the points not yet ordered, keyed by their squared
 * distance to the ordered ones (ties to the lower index), with each point's
 * position so that a key can decrease in place. */
typedef struct {
  long *heap, *pos, size;
  double *key;
} maxmin_heap;

static int higher(const maxmin_heap *h, long a, long b)
{
  return h->key[a] > h->key[b] || (h->key[a] == h->key[b] && a < b);
}

static void heap_place(maxmin_heap *h, long at, long pt)
{
  h->heap[at] = pt;
  h->pos[pt] = at;
}

static void heap_down(maxmin_heap *h, long at)
{
  const long pt = h->heap[at];
  for (;;) {
    long l = 2 * at + 1, r = l + 1, best = -1;
    if (l < h->size && higher(h, h->heap[l], pt)) best = l;
    if (r < h->size && higher(h, h->heap[r], best < 0 ? pt : h->heap[l])) best = r;
    if (best < 0) break;
    heap_place(h, at, h->heap[best]);
    at = best;
  }
  heap_place(h, at, pt);
}

static long heap_pop(maxmin_heap *h)
{
  const long top = h->heap[0];
  h->pos[top] = -1;
  if (--h->size > 0) {
    heap_place(h, 0, h->heap[h->size]);
    heap_down(h, 0);
  }
  return top;
}

/* The point nearest the mean of the locations (ties to the lowest index). */
long vecchia_central_point(const double *locs, long n, int dim)
{
  double mean[VECCHIA_KD_MAX_DIM] = {0};
  for (int d = 0; d < dim; ++d) {
    for (long i = 0; i < n; ++i) mean[d] += locs[i + (long)d * n];
    mean[d] /= n;
  }
  long best = 0;
  double bd = INFINITY;
  for (long i = 0; i < n; ++i) {
    double s = 0.0;
    for (int d = 0; d < dim; ++d) {
      const double e = locs[i + (long)d * n] - mean[d];
      s += e * e;
    }
    if (s < bd) bd = s, best = i;
  }
  return best;
}

/* Lowers the keys of the unordered points within sqrt(r2) of point k to their
 * squared distance to k, where smaller: only those can change, since every
 * key is at most r2, the key of k. */
static void maxmin_update(const vecchia_kdtree *t, maxmin_heap *h, long k, double r2, long *stack)
{
  double x[VECCHIA_KD_MAX_DIM];
  for (int d = 0; d < t->dim; ++d) x[d] = t->locs[k + (long)d * t->ld];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const long node = stack[--top];
    if (vecchia_kd_box_dist2(t, node, x) >= r2) continue;
    const long c = t->child[node];
    if (c >= 0) {
      stack[top++] = c;
      stack[top++] = c + 1;
      continue;
    }
    for (long s = t->lo[node]; s < t->hi[node]; ++s) {
      const long j = t->perm[s];
      if (h->pos[j] < 0) continue;
      const double d2 = vecchia_kd_slot_dist2(t, s, x);
      if (d2 < h->key[j]) {
        h->key[j] = d2;
        heap_down(h, h->pos[j]);
      }
    }
  }
}

static gs_status maxmin_run(const vecchia_kdtree *t, maxmin_heap *h, long *order, gs_progress_fn progress,
                            char *msg)
{
  const long n = t->n, first = vecchia_central_point(t->locs, n, t->dim);
  long stack[VECCHIA_KD_STACK];
  order[0] = first;
  h->size = 0;
  for (long i = 0; i < n; ++i) {
    h->pos[i] = -1;
    h->key[i] = vecchia_kd_dist2(t, i, first);
    if (i != first) h->heap[h->size++] = i;
  }
  for (long s = 0; s < h->size; ++s) h->pos[h->heap[s]] = s;
  for (long s = h->size / 2; s >= 0 && h->size > 0; --s) heap_down(h, s);
  for (long o = 1; o < n; ++o) {
    const long k = heap_pop(h);
    order[o] = k;
    maxmin_update(t, h, k, h->key[k], stack);
    if (progress && o % VECCHIA_ORDER_BATCH == 0 && progress((double)o / n)) return gs_interrupted(msg);
  }
  return GS_OK;
}

gs_status gs_vecchia_maxmin(const double *locs, long n, int dim, long *order, gs_progress_fn progress, char *msg)
{
  if (n < 1 || dim < 1 || dim > VECCHIA_KD_MAX_DIM)
    return gs_set_msg(msg, GS_ERR_ARG, "need n >= 1 locations of 1 to %d coordinates", VECCHIA_KD_MAX_DIM);
  vecchia_kdtree t;
  gs_status st = vecchia_kdtree_build(&t, locs, n, n, dim, 0, msg);
  if (st != GS_OK) return st;
  maxmin_heap h = {
    .heap = (long *)malloc((size_t)n * sizeof(long)),
    .pos = (long *)malloc((size_t)n * sizeof(long)),
    .key = (double *)malloc((size_t)n * sizeof(double)),
  };
  if (!h.heap || !h.pos || !h.key) st = gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the maxmin ordering of %ld points", n);
  else st = maxmin_run(&t, &h, order, progress, msg);
  free(h.heap);
  free(h.pos);
  free(h.key);
  vecchia_kdtree_free(&t);
  return st;
}

/* Rows of nn (nq rows, m + 1 columns): the k = m nearest points of the tree
 * to query point q (`query`, nq rows), among the tree's first limit(q)
 * points; self >= 0 puts q + self in the first column (the point's own
 * index), else the first column holds the nearest too. The searches run
 * over positions s of a queue, the query q = queue[s] (or s itself without
 * one): a queue in the tree's order makes successive searches read the same
 * leaves, which stay in cache, where queries in the Vecchia order would
 * jump across the domain at each one. */
typedef struct {
  const vecchia_kdtree *t;
  const double *query;
  long nq;
  int m;
  long self;  /* < 0: no own index, the m nearest fill every column */
  int earlier; /* limit(q) = q (the earlier points of the tree itself), else all */
  const long *queue; /* NULL: the queries in their order */
} nearest_job;

static long queued_row(const nearest_job *job, long s) { return job->queue ? job->queue[s] : s; }

static void nearest_rows(const nearest_job *job, int *nn, long i0, long i1, int nthreads)
{
  const vecchia_kdtree *t = job->t;
  const int k = job->self >= 0 ? job->m : job->m + 1, first = job->self >= 0 ? 1 : 0;
#pragma omp parallel num_threads(nthreads)
  {
    vecchia_kd_pending stack[VECCHIA_KD_STACK];
    long *out = (long *)malloc((size_t)(k + 1) * sizeof(long));
    double *hd = (double *)malloc((size_t)(k + 1) * sizeof(double));
    double x[VECCHIA_KD_MAX_DIM];
#pragma omp for schedule(dynamic, 64)
    for (long s = i0; s < i1; ++s) {
      const long q = queued_row(job, s);
      for (int d = 0; d < t->dim; ++d) x[d] = job->query[q + (long)d * job->nq];
      const long limit = job->earlier ? q : t->n;
      const int found = (out && hd) ? vecchia_kd_nearest(t, x, limit, k, out, stack, hd) : -1;
      if (first) nn[q] = (int)(q + job->self);
      for (int j = 0; j < k; ++j) nn[q + (long)(j + first) * job->nq] = (j < found) ? (int)out[j] : -1;
      if (found < 0) nn[q] = -2; /* allocation failed: the caller sees the row */
    }
    free(out);
    free(hd);
  }
}

/* Runs nearest_rows over queue positions [q0, q1) in batches, with
 * interrupt checks between them (the fraction done: `done` + `share` of
 * the positions). */
static gs_status nearest_batches(const nearest_job *job, int *nn, long q0, long q1, int threads, gs_progress_fn progress,
                                 double done, double share, char *msg)
{
  const int nthreads = gs_cpu_threads_for(threads, (double)(q1 - q0) * (job->m + 1) * 8.0);
  for (long i0 = q0; i0 < q1; i0 += VECCHIA_ORDER_BATCH) {
    const long i1 = i0 + VECCHIA_ORDER_BATCH < q1 ? i0 + VECCHIA_ORDER_BATCH : q1;
    nearest_rows(job, nn, i0, i1, nthreads);
    for (long i = i0; i < i1; ++i)
      if (nn[queued_row(job, i)] == -2) return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the neighbour search");
    if (progress && progress(done + share * (i1 - q0) / (q1 - q0))) return gs_interrupted(msg);
  }
  return GS_OK;
}

static gs_status check_points(long n, int dim, int m, char *msg)
{
  if (n < 1 || dim < 1 || dim > VECCHIA_KD_MAX_DIM || m < 0 || n > 2147483647L)
    return gs_set_msg(msg, GS_ERR_ARG, "need 1 to 2^31 - 1 locations of 1 to %d coordinates, and m >= 0",
                      VECCHIA_KD_MAX_DIM);
  return GS_OK;
}

/* The first point whose nearest earlier neighbour is at distance 0. */
static void find_duplicate(const double *locs, long n, int dim, int m, const int *nn, long duplicate[2])
{
  duplicate[0] = duplicate[1] = -1;
  for (long i = 0; i < n && m > 0; ++i) {
    const long j = nn[i + n];
    int same = (j >= 0);
    for (int d = 0; d < dim && same; ++d) same = (locs[i + (long)d * n] == locs[j + (long)d * n]);
    if (same) {
      duplicate[0] = i;
      duplicate[1] = j;
      return;
    }
  }
}

/* The points in blocks [lo, 2 lo): each block searches a tree of the points
 * up to its end, so that at most half the points a search meets are later
 * ones (a tree of all points would make the early points, whose neighbours
 * are far, wade through every later point around them). A block's points
 * are searched in the tree's order (nearest_job's queue). */
gs_status gs_vecchia_neighbors(const double *locs, long n, int dim, int m, int threads, int *nn, long duplicate[2],
                               gs_progress_fn progress, char *msg)
{
  gs_status st = check_points(n, dim, m, msg);
  if (st != GS_OK) return st;
  long *queue = (long *)malloc((size_t)n * sizeof(long));
  if (!queue) return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the neighbour search of %ld points", n);
  for (long lo = 0, hi = (n < 1024 ? n : 1024); lo < n && st == GS_OK; lo = hi, hi = (2 * hi < n ? 2 * hi : n)) {
    vecchia_kdtree t;
    if ((st = vecchia_kdtree_build(&t, locs, hi, n, dim, threads, msg)) != GS_OK) break;
    long queued = 0;
    for (long s = 0; s < hi; ++s)
      if (t.perm[s] >= lo) queue[queued++] = t.perm[s];
    const nearest_job job = {.t = &t, .query = locs, .nq = n, .m = m, .self = 0, .earlier = 1, .queue = queue};
    st = nearest_batches(&job, nn, 0, queued, threads, progress, (double)lo / n, (double)(hi - lo) / n, msg);
    vecchia_kdtree_free(&t);
  }
  free(queue);
  if (st == GS_OK) find_duplicate(locs, n, dim, m, nn, duplicate);
  return st;
}

gs_status gs_vecchia_nearest(const double *locs, long n, int dim, const double *query, long nq, int k, int threads,
                             int *nn, gs_progress_fn progress, char *msg)
{
  gs_status st = check_points(n, dim, k, msg);
  if (st != GS_OK) return st;
  if (k < 1 || k > n || nq < 1) return gs_set_msg(msg, GS_ERR_ARG, "need 1 <= k <= n (k = %d, n = %ld) and query points", k, n);
  vecchia_kdtree t;
  if ((st = vecchia_kdtree_build(&t, locs, n, n, dim, threads, msg)) != GS_OK) return st;
  const nearest_job job = {.t = &t, .query = query, .nq = nq, .m = k - 1, .self = -1, .earlier = 0};
  st = nearest_batches(&job, nn, 0, nq, threads, progress, 0.0, 1.0, msg);
  vecchia_kdtree_free(&t);
  return st;
}
