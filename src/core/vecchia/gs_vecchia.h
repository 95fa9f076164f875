/* The Vecchia approximation of a Matérn Gaussian process (Vecchia 1988,
 * Guinness 2018, 2021): each point, in a chosen order, conditioned on at
 * most m earlier points (its conditioning set). The object has the shape of
 * the exact one (gs_gp.h): created once with the locations, factored for
 * given parameters (log-determinant of the approximate covariance), then
 * applied: W b with W the sparse inverse-Cholesky factor, W'W the inverse
 * of the approximate covariance, so that quadratic forms, generalized least
 * squares and REML follow from W y and W X. A second entry point returns in
 * one pass the sums from which the likelihood with profiled regression
 * coefficients, its gradient in the covariance parameters and the Fisher
 * information follow (GpGp's vecchia_profbeta_loglik_grad_info). */
#ifndef GS_VECCHIA_H
#define GS_VECCHIA_H

#include "gs_common.h"
#include "gs_matern.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_vecchia gs_vecchia;

typedef struct {
  int device;          /* < 0: CPU, else that GPU */
  const double *locs;  /* n x dim, column-major, in the Vecchia order; copied */
  long n;
  int dim;
  const int *nn;       /* n x (m + 1), column-major: row i is i, then its
                          conditioning set (earlier points), missing entries
                          after; copied (0-based, -1 for missing), except
                          with blocks, whose sets replace it */
  int m;
  const int *block;    /* NULL, or n: the block of each point (any labels
                          below n), for the grouped likelihood
                          (gs_vecchia_group); copied into the blocks' sets */
  int base;            /* the first index of nn and block: 0, or 1 (R's);
                          entries of nn below it are missing */
  long latent;         /* points from this one on are values of the process
                          without the nugget (new locations of a prediction;
                          n for none); gs_vecchia_grad_info needs none */
  const unsigned char *halo; /* NULL, or n flags: points flagged are a halo,
                          in conditioning sets only, with no terms of their
                          own (the part of a likelihood split over workers);
                          grouped, they are in no block (their block labels
                          are not read); copied. The likelihood only. */
  int threads;
  gs_progress_fn progress; /* may be NULL */
} gs_vecchia_args;

gs_status gs_vecchia_create(const gs_vecchia_args *a, gs_vecchia **v, char *msg);
void gs_vecchia_free(gs_vecchia *v);
long gs_vecchia_size(const gs_vecchia *v);

/* Factors the approximation for the model p (not grouped; its distance the
 * one the conditioning sets were found with): *logdet =
 * log |Sigma_V|. When
 * the covariance of a conditioning set is not positive definite:
 * GS_ERR_NOT_PD, *failed_point the first such point (1-based). */
gs_status gs_vecchia_factor(gs_vecchia *v, const gs_cov_model *p, double *logdet, long *failed_point, char *msg);

/* Variances of each point's own (n, in the object's order, >= 0 and
 * finite; copied), added to the covariance model's diagonal by the
 * factorizations and likelihoods that follow: independent errors of
 * unequal variances, such as the pseudo-data of the Vecchia-Laplace
 * approximation (gs_laplace_vecchia.h). NULL removes them. */
gs_status gs_vecchia_set_noise(gs_vecchia *v, const double *noise, char *msg);

/* With the last factor: out = W b (GS_VECCHIA_FORWARD), W^-1 b
 * (GS_VECCHIA_INVERSE: a draw of the approximate law from standard normal
 * b, by substitution in the order) or W' b (GS_VECCHIA_TRANSPOSE, so that
 * W'(W b) is the approximate precision times b; the first call builds the
 * factor's columns, 12 (m + 1) bytes a point, kept with the object), the
 * substitution on the CPU, for k columns b (n x k, host). out may be b. */
enum { GS_VECCHIA_FORWARD = 0, GS_VECCHIA_INVERSE = 1, GS_VECCHIA_TRANSPOSE = 2 };
gs_status gs_vecchia_apply(gs_vecchia *v, int what, const double *b, int k, double *out, char *msg);

/* The incomplete Cholesky factorization of Q + diag(d), Q = W'W the
 * approximate precision of the last factor (not grouped) and d >= 0 (n, in
 * the object's order), for the Vecchia-Laplace approximation's Newton
 * steps (gs_laplace_vecchia.h). Q's factor W' is triangular in the reverse
 * of the Vecchia order; Q + diag(d) is factored in that order, L L', with
 * L kept to the pattern of W' (IC(0)), which Schafer, Katzfuss and Owhadi
 * (2021, SIAM J. Sci. Comput. 43) show accurate in the reverse maxmin
 * order; with m = n - 1 the pattern is full and the factorization exact.
 * L is stored in the layout of the factor (n x (m + 1): row i holds L's
 * column of point i, its diagonal first, then its entries at the rows of i's
 * conditioning set, kept with the object) and *logdet = log |L L'|. Q on
 * the pattern is formed at the first call after each factorization
 * (O(n m^2), threaded); the factorization is O(n m^2), sequential over
 * the levels of its dependencies and parallel within them, on the
 * object's device. GS_ERR_NOT_PD where a pivot is not positive. */
gs_status gs_vecchia_ic0(gs_vecchia *v, const double *d, double *logdet, char *msg);

/* x = (L L')^-1 r with the last gs_vecchia_ic0 (x may be r). */
gs_status gs_vecchia_ic0_solve(gs_vecchia *v, const double *r, double *x, char *msg);

/* The bits of `deriv`: which parameters to differentiate, bit GS_COV_SIGMA2
 * for sigma2 and so on (gs_matern.h). */
int gs_vecchia_deriv_count(int deriv);
/* Doubles of the sums that gs_vecchia_grad_info returns, for p covariates and
 * the parameters in deriv. */
int gs_vecchia_sums_size(int p, int deriv);

/* out (n x cols, column-major) = the rows of x (n x cols) in the object's
 * order: out[i + c n] = x[order[i] - base + c n], on the package's threads
 * (R's subsetting runs on one, at every evaluation of a fit). */
void gs_vecchia_gather(const int *order, int base, long n, const double *x, int cols, double *out);

/* For y (n) and X (n x p, may be NULL with p = 0), in the object's order,
 * and Q = W'W: sums = (log |Sigma_V|, y'Qy, X'Qy (p), X'QX (p x p)), then for
 * the q parameters of deriv, in their order: the derivatives of log |Sigma_V|
 * (q), of y'Qy (q), of X'Qy (p x q), of X'QX (p x p x q), and the Fisher
 * information of the covariance parameters (q x q). */
gs_status gs_vecchia_grad_info(gs_vecchia *v, const gs_cov_model *prm, int deriv, const double *y,
                               const double *X, int p, double *sums, long *failed_point, char *msg);

/* Maxmin ordering (exact): the point nearest the mean of the locations first,
 * then each time the point farthest from those already ordered; ties to the
 * lowest index. order: n, 0-based. Euclidean distance. */
gs_status gs_vecchia_maxmin(const double *locs, long n, int dim, long *order, gs_progress_fn progress, char *msg);

/* Maxmin ordering to within a factor of 2 in distance, by nested r-nets on a
 * hash grid (vecchia_order_net.c): the same first point, then level by level
 * the points at distance r = D 2^-k or more from those already ordered.
 * Euclidean, 1 to GS_VECCHIA_NET_MAX_DIM coordinates. */
#define GS_VECCHIA_NET_MAX_DIM 3
gs_status gs_vecchia_maxmin_approx(const double *locs, long n, int dim, long *order, gs_progress_fn progress,
                                   char *msg);

/* The m nearest earlier neighbours of each point of locs (already in order),
 * Euclidean, nearest first, ties to the lower index: nn as gs_vecchia_args.
 * duplicate: the first point (0-based) whose nearest earlier neighbour is at
 * distance 0, and that neighbour; -1 and -1 when there is none (m = 0 finds
 * none). */
gs_status gs_vecchia_neighbors(const double *locs, long n, int dim, int m, int threads, int *nn, long duplicate[2],
                               gs_progress_fn progress, char *msg);

/* Groups the points into blocks as GpGp's group_obs(NNarray, exponent = 2)
 * does (Guinness 2021): for each column of nn from the second, for each
 * point j in turn, the block held by j's slot takes the block held by the
 * slot of that neighbour k when the sizes u of the unions of their rows (the
 * padding counting as one entry, as R's unique() counts NA) satisfy
 * u(j and k)^2 <= u(j)^2 + u(k)^2. block: n, the block of each point,
 * 0-based, numbered in the order of their slots. nn: the rows of
 * gs_vecchia_args's nn, but row-major (nn[i * mp1 + j]: each point's row in
 * one place, as the pass reads it). The same blocks for any number of
 * threads (vecchia_group.c says how). */
gs_status gs_vecchia_group(const int *nn, long n, int mp1, int threads, int *block, gs_progress_fn progress,
                           char *msg);

/* The k nearest points of locs (n x dim) to each of the nq query points,
 * nearest first, ties to the lower index: nn (nq x k, column-major, 0-based). */
gs_status gs_vecchia_nearest(const double *locs, long n, int dim, const double *query, long nq, int k, int threads,
                             int *nn, gs_progress_fn progress, char *msg);

/* The piece `which` of a likelihood split over workers (vecchia_partition.c),
 * for nn as gs_vecchia_args's (n x mp1, column-major, indices from base,
 * entries below base missing) and piece (n), each point's piece. Its local
 * points are its own points and the earlier points their rows name: their
 * number into count, their indices (0-based, increasing) into local and 1
 * for those of other pieces (the halo) into halo, both with room for n. */
gs_status gs_vecchia_piece_points(const int *nn, long n, int mp1, int base, const int *piece, int which, long *count,
                                  int *local, unsigned char *halo, char *msg);


#ifdef __cplusplus
}
#endif

#endif
