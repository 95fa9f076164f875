/* The Vecchia object shared by vecchia.c and its two backends. */
#ifndef GS_VECCHIA_INTERNAL_H
#define GS_VECCHIA_INTERNAL_H

#include "gs_vecchia.h"
#include "vecchia_point.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_vecchia_gpu gs_vecchia_gpu; /* defined by vecchia_cuda.cu */
typedef struct gs_vecchia_ic0_gpu gs_vecchia_ic0_gpu; /* defined by vecchia_ic0_cuda.cu */

struct gs_vecchia {
  int device; /* < 0: CPU */
  long n, latent;
  int dim, mp1, threads;
  double *locs; /* n x dim */
  int *nn;      /* n x mp1; NULL when grouped */
  double *noise; /* n, or NULL: gs_vecchia_set_noise's variances */
  unsigned char *halo; /* n, or NULL: gs_vecchia_args's halo, not grouped
                          (grouped, the blocks leave the halo out) */
  double *w;    /* CPU: the factor, mp1 entries per point in nn's order */
  /* the factor's columns (W' b): point g's entries at the positions
   * rev[rev_start[g] .. rev_start[g + 1]) of w (i mp1 + j, i increasing);
   * built at the first W' b (vecchia_columns), NULL before; on a
   * GPU also uploaded then */
  long *rev_start, *rev;
  /* nn row-major (n x mp1), built with the columns: the incomplete
   * Cholesky factorization reads whole rows at random */
  int *nn_rows;
  /* Q = W'W on the pattern of the factor (n x mp1, its layout), formed by
   * gs_vecchia_ic0 after each factorization; NULL before */
  double *q;
  int q_valid;
  double *ic; /* gs_vecchia_ic0's factor, the same layout; NULL before */
  gs_vecchia_ic0_gpu *ic0_gpu; /* on a GPU: Q and the factor there instead */
  /* the points by level of the factorization's dependencies (a point's
   * column needs those of the later points whose rows hold it): level k's
   * points at level_points[level_start[k] .. level_start[k + 1]); built
   * with the first factorization */
  long *level_start, *level_points, levels;
  /* grouped: the blocks (vecchia_problem's set, set_start, resp,
   * resp_start) in increasing size of their sets, and the largest set;
   * NULL and mp1 without groups */
  int *set, *resp;
  long *set_start, *resp_start;
  long blocks;
  int ld;
  gs_vecchia_gpu *gpu;
  gs_progress_fn progress;
  int factored;
};

/* Builds the blocks' sets from block (gs_vecchia_args, labels from base)
 * and v->nn into v; the points of halo (may be NULL) are in no block. */
gs_status gs_vecchia_blocks_build(gs_vecchia *v, const int *block, int base, const unsigned char *halo,
                                  char *msg);

/* The problem of an evaluation: the object's arrays (host, nn column-major,
 * or device, nn row-major: `row_major`), and y, X, deriv as given. */
vecchia_problem gs_vecchia_problem(const gs_vecchia *v, const double *locs, const int *nn, int row_major,
                                   const double *y, const double *X, int p, int deriv);

/* Runs every point: the factor into w (n x mp1, may be NULL), the sums
 * (vecchia_acc_size) into sums when pr->y is set, else the log-determinant
 * into sums[0]. */
gs_status gs_vecchia_cpu_run(const gs_vecchia *v, const vecchia_problem *pr, const matern_deriv_model *md, double *w,
                             double *sums, long *failed_point, char *msg);
gs_status gs_vecchia_cpu_apply(const gs_vecchia *v, const double *b, int k, double *out, char *msg);
/* The factor's columns (v->rev_start, v->rev) and nn row-major
 * (v->nn_rows), built from the neighbour array at the first call: a
 * counting pass and a filling pass over the rows in order. */
gs_status vecchia_columns(gs_vecchia *v, char *msg);
/* The last factor in v->w on the host (copied from the GPU where it is
 * there). */
gs_status vecchia_host_factor(gs_vecchia *v, char *msg);

/* out = W^-1 b with the factor in v->w, by substitution in the order. */
void gs_vecchia_cpu_inverse(const gs_vecchia *v, const double *b, int k, double *out);
/* out = W' b with the factor in v->w and its columns (v->rev). */
void gs_vecchia_cpu_transpose(const gs_vecchia *v, const double *b, int k, double *out);

/* The point nearest the mean of the locations (ties to the lowest index): the
 * first of either maxmin ordering. */
long vecchia_central_point(const double *locs, long n, int dim);

gs_status gs_vecchia_gpu_init(gs_vecchia *v, char *msg);
void gs_vecchia_gpu_release(gs_vecchia *v);
gs_status gs_vecchia_gpu_run(gs_vecchia *v, const gs_cov_model *prm, const double *y, const double *X, int p,
                             int deriv, int keep_factor, double *sums, long *failed_point, char *msg);
/* W b or W' b (what, gs_vecchia.h); W' b uploads v->rev_start and v->rev at
 * its first call. */
gs_status gs_vecchia_gpu_apply(gs_vecchia *v, int what, const double *b, int k, double *out, char *msg);
/* Copies v->noise (n, or NULL for none) to the device. */
gs_status gs_vecchia_gpu_set_noise(gs_vecchia *v, char *msg);
/* Copies the factor from the device into w (n x mp1, host). */
gs_status gs_vecchia_gpu_factor_to_host(gs_vecchia *v, double *w, char *msg);
/* The incomplete factorization on the device (vecchia_ic0_cuda.cu), run by
 * gs_vecchia_ic0 with v's columns and levels built: _begin uploads d and
 * forms Q on the pattern from the device's factor where form_q is set;
 * _level enqueues level k's columns; _end returns L's diagonal (n, host)
 * and the lowest point of the first level with a pivot not positive (n for
 * none). _solve is gs_vecchia_ic0_solve's; _release frees the device
 * arrays (with the object's). */
gs_status gs_vecchia_gpu_ic0_begin(gs_vecchia *v, const double *d, int form_q, char *msg);
gs_status gs_vecchia_gpu_ic0_level(gs_vecchia *v, long k, char *msg);
gs_status gs_vecchia_gpu_ic0_end(gs_vecchia *v, double *pivots, long *failed, char *msg);
gs_status gs_vecchia_gpu_ic0_solve(gs_vecchia *v, const double *r, double *x, char *msg);
void gs_vecchia_gpu_ic0_release(gs_vecchia *v);

#ifdef __cplusplus
}
#endif

#endif
