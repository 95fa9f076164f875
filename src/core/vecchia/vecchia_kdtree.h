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
  long nodes;
  long *lo, *hi;    /* node k holds perm[lo[k] .. hi[k]) */
  long *child;      /* left child of node k (right = left + 1), -1 for a leaf */
  double *box;      /* node k: dim lower then dim upper bounds */
  long *min_point;  /* node k: its smallest point index */
} vecchia_kdtree;

/* The tree of the first n rows of locs (ld rows, dim columns). */
gs_status vecchia_kdtree_build(vecchia_kdtree *t, const double *locs, long n, long ld, int dim, char *msg);
void vecchia_kdtree_free(vecchia_kdtree *t);

/* Squared distance between points i and j of the tree, and between point i
 * and the box of node k (0 inside). */
double vecchia_kd_dist2(const vecchia_kdtree *t, long i, long j);
double vecchia_kd_box_dist2(const vecchia_kdtree *t, long k, const double *x);

/* The k nearest points j < limit of the tree to x (dim coordinates),
 * nearest first (ties to the lower index): out (k), and the number found
 * (min(limit, k)). Scratch: stack (VECCHIA_KD_STACK), hd and hidx (k each). */
int vecchia_kd_nearest(const vecchia_kdtree *t, const double *x, long limit, int k, long *out, long *stack,
                       double *hd, long *hidx);

#endif
