/* The k-d tree of the Vecchia ordering and neighbour search: median splits
 * along the widest side of each node's bounding box, so that the tree is
 * balanced (depth log2(n / VECCHIA_KD_LEAF)) whatever the layout. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vecchia_kdtree.h"

static double coord(const vecchia_kdtree *t, long i, int k) { return t->locs[i + (long)k * t->ld]; }

/* Reorders perm[lo, hi) so that perm[mid] has its rank along axis k
 * (quickselect, the median of three as pivot). */
static void select_median(const vecchia_kdtree *t, long lo, long hi, long mid, int k)
{
  long *p = t->perm;
  while (hi - lo > 1) {
    long a = lo, b = lo + (hi - lo) / 2, c = hi - 1;
    double va = coord(t, p[a], k), vb = coord(t, p[b], k), vc = coord(t, p[c], k);
    long piv = (va < vb) ? ((vb < vc) ? b : (va < vc ? c : a)) : ((va < vc) ? a : (vb < vc ? c : b));
    const double x = coord(t, p[piv], k);
    long tmp = p[piv];
    p[piv] = p[hi - 1];
    p[hi - 1] = tmp;
    long store = lo;
    for (long i = lo; i < hi - 1; ++i) {
      if (coord(t, p[i], k) < x) {
        tmp = p[i];
        p[i] = p[store];
        p[store] = tmp;
        ++store;
      }
    }
    tmp = p[store];
    p[store] = p[hi - 1];
    p[hi - 1] = tmp;
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
    const long pt = t->perm[i];
    if (pt < first) first = pt;
    for (int d = 0; d < dim; ++d) {
      const double x = coord(t, pt, d);
      if (x < box[d]) box[d] = x;
      if (x > box[dim + d]) box[dim + d] = x;
    }
  }
  t->min_point[k] = first;
}

/* Splits nodes in breadth-first order, so that a node's children are the
 * next two free slots. */
static void build_nodes(vecchia_kdtree *t)
{
  t->lo[0] = 0;
  t->hi[0] = t->n;
  long used = 1;
  for (long k = 0; k < used; ++k) {
    node_summary(t, k);
    t->child[k] = -1;
    const long lo = t->lo[k], hi = t->hi[k];
    if (hi - lo <= VECCHIA_KD_LEAF) continue;
    const double *box = t->box + 2 * (long)t->dim * k;
    int axis = 0;
    for (int d = 1; d < t->dim; ++d)
      if (box[t->dim + d] - box[d] > box[t->dim + axis] - box[axis]) axis = d;
    const long mid = lo + (hi - lo) / 2;
    select_median(t, lo, hi, mid, axis);
    t->child[k] = used;
    t->lo[used] = lo;
    t->hi[used] = mid;
    t->lo[used + 1] = mid;
    t->hi[used + 1] = hi;
    used += 2;
  }
  t->nodes = used;
}

gs_status vecchia_kdtree_build(vecchia_kdtree *t, const double *locs, long n, long ld, int dim, char *msg)
{
  memset(t, 0, sizeof(*t));
  t->locs = locs;
  t->n = n;
  t->ld = ld;
  t->dim = dim;
  const long cap = n / 2 + 16; /* a node of more than LEAF points splits into two of at least LEAF / 2 */
  t->perm = (long *)malloc((size_t)n * sizeof(long));
  t->lo = (long *)malloc((size_t)cap * sizeof(long));
  t->hi = (long *)malloc((size_t)cap * sizeof(long));
  t->child = (long *)malloc((size_t)cap * sizeof(long));
  t->min_point = (long *)malloc((size_t)cap * sizeof(long));
  t->box = (double *)malloc((size_t)cap * 2 * dim * sizeof(double));
  if (!t->perm || !t->lo || !t->hi || !t->child || !t->min_point || !t->box) {
    vecchia_kdtree_free(t);
    return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the k-d tree of %ld points", n);
  }
  for (long i = 0; i < n; ++i) t->perm[i] = i;
  build_nodes(t);
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

double vecchia_kd_box_dist2(const vecchia_kdtree *t, long k, const double *x)
{
  const double *box = t->box + 2 * (long)t->dim * k;
  double s = 0.0;
  for (int d = 0; d < t->dim; ++d) {
    double e = 0.0;
    if (x[d] < box[d]) e = box[d] - x[d];
    else if (x[d] > box[t->dim + d]) e = x[d] - box[t->dim + d];
    s += e * e;
  }
  return s;
}

/* The bounded max-heap of the k best (distance, index) pairs: the worst on top. */
static int worse(double da, long ia, double db, long ib) { return da > db || (da == db && ia > ib); }

/* Places (d, idx) at the root of a heap of `size` entries and sifts it down. */
static void sift_down(double *hd, long *hi, int size, double d, long idx)
{
  int c = 0;
  for (;;) {
    int l = 2 * c + 1, r = l + 1, big = c;
    double bd = d;
    long bi = idx;
    if (l < size && worse(hd[l], hi[l], bd, bi)) big = l, bd = hd[l], bi = hi[l];
    if (r < size && worse(hd[r], hi[r], bd, bi)) big = r;
    if (big == c) break;
    hd[c] = hd[big];
    hi[c] = hi[big];
    c = big;
  }
  hd[c] = d;
  hi[c] = idx;
}

static void heap_push(double *hd, long *hi, int *size, int k, double d, long idx)
{
  if (*size == k) {
    if (worse(hd[0], hi[0], d, idx)) sift_down(hd, hi, k, d, idx);
    return;
  }
  int c = (*size)++;
  while (c > 0 && worse(d, idx, hd[(c - 1) / 2], hi[(c - 1) / 2])) {
    hd[c] = hd[(c - 1) / 2];
    hi[c] = hi[(c - 1) / 2];
    c = (c - 1) / 2;
  }
  hd[c] = d;
  hi[c] = idx;
}

int vecchia_kd_nearest(const vecchia_kdtree *t, const double *x, long limit, int k, long *out, long *stack,
                       double *hd, long *hidx)
{
  int size = 0, top = 0;
  if (k < 1) return 0;
  stack[top++] = 0;
  while (top > 0) {
    const long node = stack[--top];
    if (t->min_point[node] >= limit) continue;
    if (size == k && vecchia_kd_box_dist2(t, node, x) > hd[0]) continue;
    const long c = t->child[node];
    if (c < 0) {
      for (long s = t->lo[node]; s < t->hi[node]; ++s) {
        const long j = t->perm[s];
        if (j >= limit) continue;
        double d2 = 0.0;
        for (int d = 0; d < t->dim; ++d) {
          const double e = x[d] - coord(t, j, d);
          d2 += e * e;
        }
        heap_push(hd, hidx, &size, k, d2, j);
      }
      continue;
    }
    /* the nearer child on top of the stack, so that it is searched first */
    const double d0 = vecchia_kd_box_dist2(t, c, x), d1 = vecchia_kd_box_dist2(t, c + 1, x);
    stack[top++] = (d0 <= d1) ? c + 1 : c;
    stack[top++] = (d0 <= d1) ? c : c + 1;
  }
  /* popping the worst each time fills out from its end */
  for (int s = size; s > 0; --s) {
    out[s - 1] = hidx[0];
    sift_down(hd, hidx, s - 1, hd[s - 1], hidx[s - 1]);
  }
  return size;
}
