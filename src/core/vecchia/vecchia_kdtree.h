/* A k-d tree over a fixed set of points, for the maxmin ordering and the
 * nearest earlier neighbours of the Vecchia approximation. */
#ifndef GS_VECCHIA_KDTREE_H
#define GS_VECCHIA_KDTREE_H

#include "gs_common.h"

/* Points per leaf at most; the most coordinates; the depth of a search stack. */
#define VECCHIA_KD_LEAF 8
#define VECCHIA_KD_MAX_DIM 64
#define VECCHIA_KD_STACK 256

typedef struct {
  const double *locs; /* n x dim, column-major with leading dimension ld, not owned */
  long n, ld;
  int dim;
  long *perm;   /* the points, each node a contiguous range of it */
  double *pts;  /* the coordinates of perm[s] at pts[s dim ..]: a leaf's
                   points side by side, where reading them through perm
                   would jump around locs */
  long nodes;
  long *lo, *hi;    /* node k holds perm[lo[k] .. hi[k]) */
  long *child;      /* left child of node k (right = left + 1), -1 for a leaf */
  double *box;      /* node k: dim lower then dim upper bounds */
  long *min_point;  /* node k: its smallest point index */
} vecchia_kdtree;

/* The tree of the first n rows of locs (ld rows, dim columns), built on up
 * to `threads` threads (gs_cpu_threads). */
gs_status vecchia_kdtree_build(vecchia_kdtree *t, const double *locs, long n, long ld, int dim, int threads, char *msg);
void vecchia_kdtree_free(vecchia_kdtree *t);

/* Squared distance between points i and j of the tree, and between x (dim
 * coordinates) and the box of node k (0 inside). */
double vecchia_kd_dist2(const vecchia_kdtree *t, long i, long j);
static inline double vecchia_kd_box_dist2(const vecchia_kdtree *t, long k, const double *x)
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

/* Squared distance between x (dim coordinates) and the point at slot s of
 * perm. */
static inline double vecchia_kd_slot_dist2(const vecchia_kdtree *t, long s, const double *x)
{
  const double *p = t->pts + s * t->dim;
  double d2 = 0.0;
  for (int d = 0; d < t->dim; ++d) {
    const double e = x[d] - p[d];
    d2 += e * e;
  }
  return d2;
}

/* A node still to search, and the squared distance from the query to its
 * box when it was found (the bound may have shrunk since). */
typedef struct {
  long node;
  double d2;
} vecchia_kd_pending;

/* The k nearest points j < limit of the tree to x (dim coordinates),
 * nearest first (ties to the lower index): out (k), and the number found
 * (min(limit, k)). Scratch: stack (VECCHIA_KD_STACK), hd (k). */
int vecchia_kd_nearest(const vecchia_kdtree *t, const double *x, long limit, int k, long *out,
                       vecchia_kd_pending *stack, double *hd);

#endif
