/* The k-d tree of the Vecchia ordering and neighbour search: median splits
 * along the widest side of each node's bounding box, so that the tree is
 * balanced (depth log2(n / VECCHIA_KD_LEAF)) whatever the layout. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "vecchia_kdtree.h"

static double coord(const vecchia_kdtree *t, long i, int k) { return t->locs[i + (long)k * t->ld]; }

/* Exchanges slots a and b: the point and its coordinates. */
static void swap_slots(const vecchia_kdtree *t, long a, long b)
{
  const long pt = t->perm[a];
  t->perm[a] = t->perm[b];
  t->perm[b] = pt;
  double *x = t->pts + a * t->dim, *y = t->pts + b * t->dim;
  for (int d = 0; d < t->dim; ++d) {
    const double v = x[d];
    x[d] = y[d];
    y[d] = v;
  }
}

/* Reorders slots [lo, hi) so that slot mid holds the point of its rank
 * along axis k (quickselect, the median of three as pivot). */
static void select_median(const vecchia_kdtree *t, long lo, long hi, long mid, int k)
{
  const int dim = t->dim;
  const double *x = t->pts + k;
  while (hi - lo > 1) {
    long a = lo, b = lo + (hi - lo) / 2, c = hi - 1;
    double va = x[a * dim], vb = x[b * dim], vc = x[c * dim];
    long piv = (va < vb) ? ((vb < vc) ? b : (va < vc ? c : a)) : ((va < vc) ? a : (vb < vc ? c : b));
    const double pivot = x[piv * dim];
    swap_slots(t, piv, hi - 1);
    long store = lo;
    for (long i = lo; i < hi - 1; ++i)
      if (x[i * dim] < pivot) swap_slots(t, i, store++);
    swap_slots(t, store, hi - 1);
    if (store == mid) return;
    if (store < mid) lo = store + 1;
    else hi = store;
  }
}

/* The bounding box and smallest index of node k, from its points. */
static void node_summary(vecchia_kdtree *t, long k)
{
  const int dim = t->dim;
  double *box = t->box + 2 * (long)dim * k;
  long first = t->n;
  for (int d = 0; d < dim; ++d) {
    box[d] = INFINITY;
    box[dim + d] = -INFINITY;
  }
  for (long i = t->lo[k]; i < t->hi[k]; ++i) {
    if (t->perm[i] < first) first = t->perm[i];
    const double *x = t->pts + i * dim;
    for (int d = 0; d < dim; ++d) {
      if (x[d] < box[d]) box[d] = x[d];
      if (x[d] > box[dim + d]) box[dim + d] = x[d];
    }
  }
  t->min_point[k] = first;
}

/* Subtrees of at least this many points are built as tasks of their own. */
#define VECCHIA_KD_TASK 16384L

/* Node k over slots [lo, hi) and its subtree: split at the median along the
 * widest side of its box. A split takes the next two free node slots for
 * its children (left, then right): the children of a node are adjacent,
 * whatever order the tasks run in; which slots a subtree gets does not
 * change which points its leaves hold, so the searches find the same
 * neighbours for any number of threads. */
static void build_node(vecchia_kdtree *t, long k, long lo, long hi, long *used)
{
  t->lo[k] = lo;
  t->hi[k] = hi;
  node_summary(t, k);
  t->child[k] = -1;
  if (hi - lo <= VECCHIA_KD_LEAF) return;
  const double *box = t->box + 2 * (long)t->dim * k;
  int axis = 0;
  for (int d = 1; d < t->dim; ++d)
    if (box[t->dim + d] - box[d] > box[t->dim + axis] - box[axis]) axis = d;
  const long mid = lo + (hi - lo) / 2;
  select_median(t, lo, hi, mid, axis);
  long c;
#pragma omp atomic capture
  {
    c = *used;
    *used += 2;
  }
  t->child[k] = c;
#pragma omp task if (hi - lo >= 2 * VECCHIA_KD_TASK)
  build_node(t, c, lo, mid, used);
  build_node(t, c + 1, mid, hi, used);
#pragma omp taskwait
}

gs_status vecchia_kdtree_build(vecchia_kdtree *t, const double *locs, long n, long ld, int dim, int threads, char *msg)
{
  memset(t, 0, sizeof(*t));
  t->locs = locs;
  t->n = n;
  t->ld = ld;
  t->dim = dim;
  const long cap = n / 2 + 16; /* a node of more than LEAF points splits into two of at least LEAF / 2 */
  t->perm = (long *)malloc((size_t)n * sizeof(long));
  t->pts = (double *)malloc((size_t)n * dim * sizeof(double));
  t->lo = (long *)malloc((size_t)cap * sizeof(long));
  t->hi = (long *)malloc((size_t)cap * sizeof(long));
  t->child = (long *)malloc((size_t)cap * sizeof(long));
  t->min_point = (long *)malloc((size_t)cap * sizeof(long));
  t->box = (double *)malloc((size_t)cap * 2 * dim * sizeof(double));
  if (!t->perm || !t->pts || !t->lo || !t->hi || !t->child || !t->min_point || !t->box) {
    vecchia_kdtree_free(t);
    return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the k-d tree of %ld points", n);
  }
  for (long i = 0; i < n; ++i) {
    t->perm[i] = i;
    for (int d = 0; d < dim; ++d) t->pts[i * dim + d] = coord(t, i, d);
  }
  long used = 1;
  const int nthreads = n >= 2 * VECCHIA_KD_TASK ? gs_cpu_threads(threads) : 1;
#pragma omp parallel num_threads(nthreads)
#pragma omp single
  build_node(t, 0, 0, n, &used);
  t->nodes = used;
  return GS_OK;
}

void vecchia_kdtree_free(vecchia_kdtree *t)
{
  free(t->perm);
  free(t->lo);
  free(t->hi);
  free(t->child);
  free(t->min_point);
  free(t->box);
  free(t->pts);
  memset(t, 0, sizeof(*t));
}

double vecchia_kd_dist2(const vecchia_kdtree *t, long i, long j)
{
  double s = 0.0;
  for (int d = 0; d < t->dim; ++d) {
    const double e = coord(t, i, d) - coord(t, j, d);
    s += e * e;
  }
  return s;
}

/* Whether (da, ia) comes after (db, ib): farther, or as far with a higher index. */
static int worse(double da, long ia, double db, long ib) { return da > db || (da == db && ia > ib); }

/* The k best (distance, index) pairs found so far, best first (hd, out):
 * a sorted insertion, which for conditioning sets of tens of points moves
 * a few adjacent entries where a heap would sift through scattered ones,
 * and leaves them in order at the end. */
int vecchia_kd_nearest(const vecchia_kdtree *t, const double *x, long limit, int k, long *out,
                       vecchia_kd_pending *stack, double *hd)
{
  int size = 0, top = 0;
  if (k < 1 || limit < 1) return 0;
  stack[top++] = (vecchia_kd_pending){.node = 0, .d2 = 0.0};
  while (top > 0) {
    const vecchia_kd_pending p = stack[--top];
    if (size == k && p.d2 > hd[k - 1]) continue;
    const long c = t->child[p.node];
    if (c < 0) {
      for (long s = t->lo[p.node]; s < t->hi[p.node]; ++s) {
        const long j = t->perm[s];
        if (j >= limit) continue;
        const double d2 = vecchia_kd_slot_dist2(t, s, x);
        if (size == k && !worse(hd[k - 1], out[k - 1], d2, j)) continue;
        int at = size < k ? size++ : k - 1;
        for (; at > 0 && worse(hd[at - 1], out[at - 1], d2, j); --at) {
          hd[at] = hd[at - 1];
          out[at] = out[at - 1];
        }
        hd[at] = d2;
        out[at] = j;
      }
      continue;
    }
    /* the children that may hold a nearer point, the nearer on top of the
     * stack, so that it is searched first */
    const double d0 = vecchia_kd_box_dist2(t, c, x), d1 = vecchia_kd_box_dist2(t, c + 1, x);
    const long near = d0 <= d1 ? c : c + 1, far = d0 <= d1 ? c + 1 : c;
    const double dnear = d0 <= d1 ? d0 : d1, dfar = d0 <= d1 ? d1 : d0;
    if (t->min_point[far] < limit && (size < k || dfar <= hd[k - 1])) stack[top++] = (vecchia_kd_pending){far, dfar};
    if (t->min_point[near] < limit && (size < k || dnear <= hd[k - 1])) stack[top++] = (vecchia_kd_pending){near, dnear};
  }
  return size;
}
