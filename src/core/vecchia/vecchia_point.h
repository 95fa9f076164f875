/* One block of the Vecchia approximation: the covariance of its set, its
 * Cholesky factor L, and for each of its responses (the points whose laws
 * it gives) the row w = L^-T e_k of the sparse inverse-Cholesky factor and
 * the contributions to the likelihood, its gradient and the Fisher
 * information. A block is a point and its conditioning set (the point last,
 * the one response) or, grouped (Guinness 2021, GpGp's group_obs), several
 * points and the union of their sets in increasing order: each response k
 * is then conditioned on the points of the set before it, all of them from
 * the one factorization (leading blocks of L are the factors of leading
 * blocks of the covariance).
 *
 * Written once for both backends: `lanes` threads share one block, each
 * taking every lanes-th row or pair from `lane`. The CPU runs them with
 * lanes = 1; on a GPU a warp (32 lanes) or, for large sets, a team of warps
 * (a thread block, 32 lanes a warp) runs them on a workspace in shared
 * memory, vecchia_sync between dependent steps, vecchia_lane_sum to add the
 * lanes' parts of a dot product.
 *
 * For the response at position k, with S the covariance of the first k + 1
 * points of the set and u = L^-1 y, the standardized residual is z = w'y =
 * u_k and the conditional variance L_kk^2. For a derivative dS of S, with
 * g = L^-1 dS w (GpGp's LidSLi3, rows up to k):
 *   d log L_kk^2 = w' dS w = g_k,
 *   d z = -g'u + z g_k / 2,
 * and the Fisher information of the product of conditional laws adds
 * g_j'g_l - g_jk g_lk / 2 (Guinness 2021).
 *
 * w is row k of L^-1 (the back substitution from e_k leaves the rows below
 * k zero) and the first k + 1 rows of L^-1 dS w do not depend on the rows
 * below: the w and g of several responses of a block come from one back
 * and one forward substitution over the set with a column per response,
 * each row's operations those of the response alone (the extra terms add
 * zeros), in about the sequential steps of one response. */
#ifndef GS_VECCHIA_POINT_H
#define GS_VECCHIA_POINT_H

#include <float.h>

#include "matern_deriv_math.h"

/* The lanes of a block wait for each other: a warp's, or a whole thread
 * block's where its warps share one block (lanes > 32: a team). */
GS_HD static inline void vecchia_sync(int lanes)
{
#ifdef __CUDA_ARCH__
  if (lanes > 32) __syncthreads();
  else __syncwarp();
#else
  (void)lanes;
#endif
}

/* The sum of x over the lanes (all lanes get it); x on the CPU. A team adds
 * its warps' sums through `team` (a double per warp) in warp order, so that
 * the result does not depend on timing. */
GS_HD static inline double vecchia_lane_sum(double x, double *team, int lane, int lanes)
{
#ifdef __CUDA_ARCH__
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  if (lanes > 32) {
    if ((lane & 31) == 0) team[lane >> 5] = x;
    __syncthreads();
    x = 0.0;
    for (int v = 0; v < lanes >> 5; ++v) x += team[v];
    __syncthreads(); /* before the next sum writes team again */
  }
#else
  (void)team;
  (void)lane;
  (void)lanes;
#endif
  return x;
}

/* Pair t of a triangle enumerated by rows, t = r (r + 1) / 2 + c, c <= r:
 * a warp's lanes take pairs t = lane, lane + 32, ... without a walk whose
 * length depends on the lane (the float root is exact to one, corrected
 * below, for the triangles of any set that fits a device). A GPU reads the
 * pairs from a table instead (vecchia_problem's pairs): computed, they cost
 * more instructions than the products they index. */
GS_HD static inline void vecchia_pair(int t, int *r, int *c)
{
  int q = (int)((sqrtf(8.0f * (float)t + 1.0f) - 1.0f) * 0.5f);
  if ((q + 1) * (q + 2) / 2 <= t) ++q;
  else if (q * (q + 1) / 2 > t) --q;
  *r = q;
  *c = t - q * (q + 1) / 2;
}

/* Responses of a grouped block solved together: more take fewer
 * sequential steps and more workspace (ld (1 + q) doubles each). */
#define VECCHIA_RESPONSES 4

/* What the blocks share. nn: n x mp1, 0-based, entry (i, j) at
 * nn[i * nn_row + j * nn_col] (column-major on the CPU, row-major on a GPU,
 * where a warp then reads its row at once); row i is i itself, then its
 * conditioning set, nearest first, padded with -1. Grouped (set not NULL):
 * block t's set is set[set_start[t] .. set_start[t + 1]), increasing, and
 * its responses are at the positions resp[resp_start[t] ..
 * resp_start[t + 1]) of it, increasing; else block t is point t. ld: the
 * largest set (mp1 without groups), the workspace's leading dimension. Points
 * from `latent` on are values of the process without the nugget (new
 * locations of a prediction). noise (n, may be NULL): a variance of each
 * point's own added to its diagonal entry (heteroscedastic errors: the
 * pseudo-data of the Vecchia-Laplace approximation). halo (n, may be NULL; not grouped): points
 * with no terms of their own (gs_vecchia_args). y and X (n x p) may be NULL
 * (the factor only). deriv: a bit per parameter whose derivative is wanted
 * (q of them, listed in `params`). */
typedef struct {
  const double *locs;
  long n, latent;
  const double *noise;
  const unsigned char *halo;
  int dim;
  const int *nn;
  long nn_row, nn_col;
  int mp1;
  const int *set, *resp;
  const long *set_start, *resp_start;
  long blocks;
  int ld;
  const double *y, *X;
  int p;
  int deriv, q;
  int params[GS_COV_NPAR];
  /* responses solved together (the columns of w and of g per parameter) */
  int rc;
  /* GPU: pair t of the triangles (vecchia_pair) as r | c << 16, for t <
   * ld (ld + 1) / 2; NULL: computed */
  const unsigned *pairs;
} vecchia_problem;

GS_HD static inline void vecchia_pair_of(const unsigned *pairs, int t, int *r, int *c)
{
#ifdef __CUDA_ARCH__
  if (pairs) {
    const unsigned rc = __ldg(pairs + t);
    *r = (int)(rc & 0xffffu);
    *c = (int)(rc >> 16);
    return;
  }
#endif
  (void)pairs;
  vecchia_pair(t, r, c);
}

/* Entry (r, c), r > c, of a strict lower triangle packed by rows. */
GS_HD static inline long vecchia_packed(int r, int c)
{
  return (long)r * (r - 1) / 2 + c;
}

/* One block's workspace, leading dimension ld: a (ld x ld: L in the lower
 * triangle, the correlations above it), dm (dC/dp off the diagonal, packed,
 * one triangle per correlation parameter p that the derivative mask asks
 * for, in the order of their bits: shared memory bounds how many warps a
 * multiprocessor runs), rhs (ld x (1 + p + rc q): y, X and dS w per
 * response and parameter, solved by L in place), w (ld x rc), dinv (ld:
 * 1 / diag(L)), dzx (p), idx (ld). */
typedef struct {
  double *a, *dm, *rhs, *w, *dinv, *dzx;
  int *idx;
  double *team; /* a team's lane sums (vecchia_lane_sum); NULL on the CPU */
} vecchia_work;

/* The triangles of the correlation parameters asked for below bit `param`
 * of `deriv`: the place of param's triangle in dm. */
GS_HD static inline int vecchia_dm_slot(int deriv, int param)
{
  const unsigned below = (unsigned)(deriv & GS_COV_CORR_PARAMS & (GS_COV_BIT(param) - 1));
#ifdef __CUDA_ARCH__
  return __popc(below);
#else
  return __builtin_popcount(below);
#endif
}

/* Doubles of the packed derivative triangles that `deriv` asks for. */
GS_HD static inline long vecchia_dm_doubles(int ld, int deriv)
{
  return vecchia_dm_slot(deriv, GS_COV_NPAR) * vecchia_packed(ld, 0);
}

/* Doubles of one workspace, and of the accumulator (vecchia_accumulate). */
GS_HD static inline long vecchia_work_doubles(int ld, int p, int q, int rc, int deriv)
{
  return (long)ld * ld + vecchia_dm_doubles(ld, deriv) + (long)ld * (2 + p + rc * (1 + q)) + p;
}

/* The workspace at base (vecchia_work_doubles(ld, ...) doubles) and idx. */
GS_HD static inline vecchia_work vecchia_work_at(double *base, int *idx, int ld, int p, int q, int rc, int deriv)
{
  vecchia_work w;
  double *next = base + (long)ld * ld;
  w.a = base;
  w.dm = next;
  w.rhs = next + vecchia_dm_doubles(ld, deriv);
  w.w = w.rhs + (long)ld * (1 + p + rc * q);
  w.dinv = w.w + (long)ld * rc;
  w.dzx = w.dinv + ld;
  w.idx = idx;
  w.team = NULL;
  return w;
}

GS_HD static inline int vecchia_acc_size(int p, int q)
{
  return 2 + p + p * p + 2 * q + p * q + p * p * q + q * q;
}

/* Offsets into the accumulator: logdet, y'Qy, X'Qy (p), X'QX (p x p), then
 * per parameter j the derivatives of log det (q), y'Qy (q), X'Qy (p x q),
 * X'QX (p x p x q) and the information (q x q); Q = W'W. */
typedef struct {
  int ysx, xsx, dlogdet, dysy, dysx, dxsx, info;
} vecchia_acc_layout;

GS_HD static inline vecchia_acc_layout vecchia_acc_offsets(int p, int q)
{
  vecchia_acc_layout o;
  o.ysx = 2;
  o.xsx = o.ysx + p;
  o.dlogdet = o.xsx + p * p;
  o.dysy = o.dlogdet + q;
  o.dysx = o.dysy + q;
  o.dxsx = o.dysx + p * q;
  o.info = o.dxsx + p * p * q;
  return o;
}

/* The set of block t in factor order (a lone point last): idx, and its size. */
GS_HD static inline int vecchia_block_set(const vecchia_problem *pr, long t, int *idx, int lane, int lanes)
{
  if (pr->set) {
    const long s0 = pr->set_start[t];
    const int b = (int)(pr->set_start[t + 1] - s0);
    for (int k = lane; k < b; k += lanes) idx[k] = pr->set[s0 + k];
    vecchia_sync(lanes);
    return b;
  }
  const long i = t;
  const int *row = pr->nn + i * pr->nn_row;
#ifdef __CUDA_ARCH__
  /* the row's entries up to the first -1, counted by the warp at once */
  int b = 0;
  for (int k0 = 0; k0 < pr->mp1; k0 += 32) {
    const int k = k0 + (lane & 31); /* each warp of a team counts alike */
    const unsigned ok = __ballot_sync(0xffffffffu, k < pr->mp1 && row[k * pr->nn_col] >= 0);
    b += __popc(ok);
    if (ok != 0xffffffffu) break;
  }
#else
  int b = 1;
  while (b < pr->mp1 && row[b * pr->nn_col] >= 0) ++b;
#endif
  for (int k = lane; k < b; k += lanes) idx[k] = row[(b - 1 - k) * pr->nn_col];
  vecchia_sync(lanes);
  return b;
}

/* The locations of the set, copied column-major (leading dimension ld)
 * into the workspace from rhs on, which is free until the data come and
 * holds ld (3 + p + q) doubles; NULL where they do not fit (more than
 * three coordinates). The pairs read each location b times: from the
 * workspace, not from scattered addresses of the whole array. */
GS_HD static inline const double *vecchia_set_locs(const vecchia_problem *pr, const vecchia_work *w, int b, int lane,
                                                   int lanes)
{
  const int ld = pr->ld;
  if (pr->dim > 3 + pr->p + pr->q) return NULL;
  for (int k = lane; k < b; k += lanes)
    for (int d = 0; d < pr->dim; ++d) w->rhs[k + (long)d * ld] = pr->locs[w->idx[k] + (long)d * pr->n];
  vecchia_sync(lanes);
  return w->rhs;
}

/* The covariance of the set (lower triangle of a), the correlations above
 * it, and the derivative triangles; one pair per lane. */
GS_HD static inline void vecchia_point_cov(const vecchia_problem *pr, const matern_deriv_model *v, const vecchia_work *w,
                                           int b, int lane, int lanes)
{
  const int ld = pr->ld;
  const double *set = vecchia_set_locs(pr, w, b, lane, lanes);
#ifdef __CUDA_ARCH__
#pragma unroll 1 /* unrolled, this kernel's code grows and runs slower */
#endif
  for (int t = lane; t < b * (b + 1) / 2; t += lanes) {
    int r, c;
    vecchia_pair_of(pr->pairs, t, &r, &c);
    if (r == c) {
      w->a[r + r * ld] = v->cov.sigma2 + (w->idx[r] < pr->latent ? v->cov.nugget : 0.0) +
                         (pr->noise ? pr->noise[w->idx[r]] : 0.0);
      continue;
    }
    double dv[GS_COV_NPAR];
    double d = set ? matern_distance(set, ld, r, set, ld, c, pr->dim, v->cov.metric)
                   : matern_distance(pr->locs, pr->n, w->idx[r], pr->locs, pr->n, w->idx[c], pr->dim, v->cov.metric);
    double m = matern_deriv_pair(v, d, pr->deriv, dv);
    w->a[r + c * ld] = v->cov.sigma2 * m;
    w->a[c + r * ld] = m;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int k = 0; k < GS_COV_NPAR; ++k)
      if (pr->deriv & GS_COV_CORR_PARAMS & GS_COV_BIT(k))
        w->dm[vecchia_dm_slot(pr->deriv, k) * vecchia_packed(ld, 0) + vecchia_packed(r, c)] = dv[k];
  }
  vecchia_sync(lanes);
}

/* A pivot L_kk^2 of a set of b points at or below this many times b eps
 * times the largest variance is numerically singular: the rounding of the
 * factorization (about b eps times the largest pivot) leaves it no correct
 * digit, and the point's conditional law is rounding noise (at 20 points
 * with range 50 and smoothness 2.5 the log-likelihood came out as -2e14).
 * The exact path's rule (GP_SINGULAR_PIVOTS in gp.c), per set. */
#define VECCHIA_SINGULAR_PIVOTS 10.0

/* a = L L' in the lower triangle, dinv = 1 / diag(L), and rhs = L^-1 rhs
 * for `cols` columns on the way (the solve needs column k of L only after
 * step k); 0, or the order (1-based) of the first leading minor that is not
 * positive definite or whose last pivot is at most `tiny`. */
GS_HD static inline int vecchia_chol(double *a, int ld, int b, double tiny, double *dinv, double *rhs, int cols,
                                     const unsigned *pairs, int lane, int lanes)
{
  for (int k = 0; k < b; ++k) {
    const double akk = a[k + k * ld];
    if (!(akk > tiny) || isinf(akk)) return k + 1;
    const double lkk = sqrt(akk), inv = 1.0 / lkk;
    vecchia_sync(lanes);
    for (int r = k + 1 + lane; r < b; r += lanes) a[r + k * ld] *= inv;
    for (int j = lane; j < cols; j += lanes) rhs[k + j * ld] *= inv;
    if (lane == 0) {
      a[k + k * ld] = lkk;
      dinv[k] = inv;
    }
    vecchia_sync(lanes);
    /* the trailing update: a pair (r, c), k < c <= r, per lane on a device
     * (by rows, the lane of the last row would do all the work of a warp);
     * by columns on the CPU */
    double *t0 = a + (k + 1) * (ld + 1);
    const double *lk = a + k + 1 + k * ld;
    const int s = b - k - 1;
#ifdef __CUDA_ARCH__
#pragma unroll 1 /* as in vecchia_point_cov */
    for (int t = lane; t < s * (s + 1) / 2; t += lanes) {
      int r, c;
      vecchia_pair_of(pairs, t, &r, &c);
      t0[r + c * ld] -= lk[r] * lk[c];
    }
#else
    (void)pairs;
    for (int c = 0; c < s; ++c)
      for (int r = c; r < s; ++r) t0[r + c * ld] -= lk[r] * lk[c];
#endif
    for (int r = k + 1 + lane; r < b; r += lanes) {
      const double lrk = a[r + k * ld];
      for (int j = 0; j < cols; ++j) rhs[r + j * ld] -= lrk * rhs[k + j * ld];
    }
    vecchia_sync(lanes);
  }
  return 0;
}

/* Column j of w (ld x c) = L^-T e_pos[j] over the first b rows (pos[j] <
 * b), by columns of L from the last: rows of L^-1. */
GS_HD static inline void vecchia_inverse_rows(const double *a, const double *dinv, int ld, int b, const int *pos,
                                              int c, double *w, int lane, int lanes)
{
  for (int k = lane; k < b; k += lanes)
    for (int j = 0; j < c; ++j) w[k + j * ld] = (k == pos[j]) ? 1.0 : 0.0;
  vecchia_sync(lanes);
  for (int r = b - 1; r >= 0; --r) {
    const double *ar = a + r;
    for (int k = lane; k < r; k += lanes)
      for (int j = 0; j < c; ++j) w[k + j * ld] -= ar[k * ld] * (w[r + j * ld] * dinv[r]);
    vecchia_sync(lanes);
    for (int j = lane; j < c; j += lanes) w[r + j * ld] *= dinv[r];
  }
  vecchia_sync(lanes);
}

/* rhs = L^-1 rhs for `cols` columns, by columns of L, a row per lane (a
 * pair (row, column) per lane would cost two integer divisions each). */
GS_HD static inline void vecchia_forward(const double *a, const double *dinv, int ld, int b, double *rhs, int cols,
                                         int lane, int lanes)
{
  for (int k = 0; k < b; ++k) {
    for (int j = lane; j < cols; j += lanes) rhs[k + j * ld] *= dinv[k];
    vecchia_sync(lanes);
    for (int r = k + 1 + lane; r < b; r += lanes) {
      const double lrk = a[r + k * ld];
      for (int j = 0; j < cols; ++j) rhs[r + j * ld] -= lrk * rhs[k + j * ld];
    }
    vecchia_sync(lanes);
  }
}

/* Row r of R x without the diagonal, R the correlations of the set, kept
 * above the diagonal of a (entry (r, c), r < c, at a[r + c ld]). */
GS_HD static inline double vecchia_corr_row(const double *a, int ld, int r, int b, const double *x)
{
  const double *left = a + (long)r * ld;
  double s = 0.0;
  for (int c = 0; c < r; ++c) s += left[c] * x[c];
  for (int c = r + 1; c < b; ++c) s += a[r + (long)c * ld] * x[c];
  return s;
}

/* Row r of A x without the diagonal, A symmetric with its strict lower
 * triangle packed in tri. */
GS_HD static inline double vecchia_packed_row(const double *tri, int r, int b, const double *x)
{
  const double *left = tri + vecchia_packed(r, 0);
  double s = 0.0;
  for (int c = 0; c < r; ++c) s += left[c] * x[c];
  for (int c = r + 1; c < b; ++c) s += tri[vecchia_packed(c, r)] * x[c];
  return s;
}

/* Row r of dS x for parameter `param`, from what vecchia_point_cov stored:
 * the correlations (dS/dsigma2, 1 on the diagonal) above the diagonal of a,
 * the triangles of dC/dp for the correlation parameters; dS/dnugget = I. */
GS_HD static inline double vecchia_dcov_row(const vecchia_work *w, int ld, int deriv, int param, int r, int b,
                                            const double *x)
{
  if (param == GS_COV_SIGMA2) return x[r] + vecchia_corr_row(w->a, ld, r, b, x);
  if (param == GS_COV_NUGGET) return x[r];
  return vecchia_packed_row(w->dm + vecchia_dm_slot(deriv, param) * vecchia_packed(ld, 0), r, b, x);
}

/* y and X over the set: the first 1 + p columns of rhs (vecchia_chol turns
 * them into u = L^-1 y and L^-1 X). */
GS_HD static inline void vecchia_block_data(const vecchia_problem *pr, const vecchia_work *w, int b, int lane, int lanes)
{
  const int ld = pr->ld;
  for (int r = lane; r < b; r += lanes) {
    const long g = w->idx[r];
    w->rhs[r] = pr->y[g];
    for (int k = 0; k < pr->p; ++k) w->rhs[r + (1 + k) * ld] = pr->X[g + k * pr->n];
  }
  vecchia_sync(lanes);
}

/* g = L^-1 dS_j w_i per column i of w (c of them) and parameter j, over
 * the first b points of the set: the last c q columns of rhs, column i q +
 * j. */
GS_HD static inline void vecchia_response_grad(const vecchia_problem *pr, const vecchia_work *w, int b, int c,
                                               int lane, int lanes)
{
  const int ld = pr->ld;
  double *g = w->rhs + (long)(1 + pr->p) * ld;
  for (int r = lane; r < b; r += lanes)
    for (int i = 0; i < c; ++i)
      for (int j = 0; j < pr->q; ++j)
        g[r + (long)(i * pr->q + j) * ld] = vecchia_dcov_row(w, ld, pr->deriv, pr->params[j], r, b, w->w + (long)i * ld);
  vecchia_sync(lanes);
  vecchia_forward(w->a, w->dinv, ld, b, g, c * pr->q, lane, lanes);
}

/* The dot product of two columns of rhs over the set, on every lane. */
GS_HD static inline double vecchia_dot(const vecchia_work *w, const double *x, const double *y, int b, int lane,
                                       int lanes)
{
  double s = 0.0;
  for (int r = lane; r < b; r += lanes) s += x[r] * y[r];
  return vecchia_lane_sum(s, w->team, lane, lanes);
}

/* Adds the contributions of the response at position b - 1, whose g are
 * the q columns from g, to acc (written by lane 0). */
GS_HD static inline void vecchia_accumulate(const vecchia_problem *pr, const vecchia_work *w, const double *g, int b,
                                            double *acc, int lane, int lanes)
{
  const int ld = pr->ld, p = pr->p, q = pr->q, last = b - 1;
  const vecchia_acc_layout o = vecchia_acc_offsets(p, q);
  const double *u = w->rhs, *ux = w->rhs + ld;
  const double z = u[last];
  if (lane == 0) {
    acc[1] += z * z;
    for (int k = 0; k < p; ++k) {
      acc[o.ysx + k] += z * ux[last + k * ld];
      for (int l = 0; l < p; ++l) acc[o.xsx + k + l * p] += ux[last + k * ld] * ux[last + l * ld];
    }
  }
  for (int j = 0; j < q; ++j) {
    const double *gj = g + (long)j * ld, gb = gj[last];
    const double dz = -vecchia_dot(w, gj, u, b, lane, lanes) + 0.5 * z * gb;
    for (int k = 0; k < p; ++k) {
      double dzx = -vecchia_dot(w, gj, ux + (long)k * ld, b, lane, lanes) + 0.5 * ux[last + k * ld] * gb;
      if (lane == 0) w->dzx[k] = dzx;
    }
    vecchia_sync(lanes);
    for (int l = 0; l < q; ++l) {
      const double info = vecchia_dot(w, gj, g + (long)l * ld, b, lane, lanes) - 0.5 * gb * g[last + l * ld];
      if (lane == 0) acc[o.info + j + l * q] += info;
    }
    if (lane != 0) continue;
    acc[o.dlogdet + j] += gb;
    acc[o.dysy + j] += 2.0 * z * dz;
    for (int k = 0; k < p; ++k) {
      const double xk = ux[last + k * ld];
      acc[o.dysx + k + j * p] += dz * xk + z * w->dzx[k];
      for (int l = 0; l < p; ++l)
        acc[o.dxsx + k + l * p + j * p * p] += w->dzx[k] * ux[last + l * ld] + xk * w->dzx[l];
    }
  }
  vecchia_sync(lanes);
}

/* Block t's responses, and the position in its set of the r-th. */
GS_HD static inline int vecchia_block_responses(const vecchia_problem *pr, long t)
{
  return pr->set ? (int)(pr->resp_start[t + 1] - pr->resp_start[t]) : 1;
}

GS_HD static inline int vecchia_block_response(const vecchia_problem *pr, long t, int r, int b)
{
  return pr->set ? pr->resp[pr->resp_start[t] + r] : b - 1;
}

/* The point (0-based) a failure of block t is reported at: its last. */
GS_HD static inline long vecchia_block_point(const vecchia_problem *pr, long t)
{
  return pr->set ? pr->set[pr->set_start[t + 1] - 1] : t;
}

/* Block t (nothing for a halo point): the log conditional variances of its
 * responses (into acc[0]), their rows of the inverse-Cholesky factor (only
 * for a block per point: point t's, in nn's order, mp1 entries, into wrow
 * when not NULL) and, when y is given, their other contributions to acc.
 * Returns 0, or the order of the failing minor of its set. */
GS_HD static inline int vecchia_block(const vecchia_problem *pr, const matern_deriv_model *v, const vecchia_work *w,
                                      long t, double *wrow, double *acc, int lane, int lanes)
{
  if (pr->halo && pr->halo[t]) return 0;
  const int ld = pr->ld;
  const int b = vecchia_block_set(pr, t, w->idx, lane, lanes);
  vecchia_point_cov(pr, v, w, b, lane, lanes);
  if (pr->y) vecchia_block_data(pr, w, b, lane, lanes);
  const double tiny = VECCHIA_SINGULAR_PIVOTS * b * DBL_EPSILON * (v->cov.sigma2 + v->cov.nugget);
  const int failed = vecchia_chol(w->a, ld, b, tiny, w->dinv, w->rhs, pr->y ? 1 + pr->p : 0, pr->pairs, lane, lanes);
  if (failed) return failed;
  const int responses = vecchia_block_responses(pr, t);
  /* w is needed for the factor and for the derivatives only */
  const int rows = wrow || (pr->y && pr->q);
  for (int r0 = 0; r0 < responses; r0 += pr->rc) {
    const int c = responses - r0 < pr->rc ? responses - r0 : pr->rc;
    const int *pos = w->idx + ld; /* the responses' positions, after the set */
    if (lane == 0)
      for (int i = 0; i < c; ++i) {
        const int k = vecchia_block_response(pr, t, r0 + i, b);
        w->idx[ld + i] = k;
        acc[0] += 2.0 * log(w->a[k + k * ld]);
      }
    vecchia_sync(lanes);
    const int end = pos[c - 1] + 1; /* positions increase */
    if (rows) vecchia_inverse_rows(w->a, w->dinv, ld, end, pos, c, w->w, lane, lanes);
    if (wrow)
      for (int k = lane; k < pr->mp1; k += lanes) wrow[k] = (k < b) ? w->w[b - 1 - k] : 0.0;
    if (!pr->y) continue;
    if (pr->q) vecchia_response_grad(pr, w, end, c, lane, lanes);
    const double *g = w->rhs + (long)(1 + pr->p) * ld;
    for (int i = 0; i < c; ++i) vecchia_accumulate(pr, w, g + (long)i * pr->q * ld, pos[i] + 1, acc, lane, lanes);
  }
  return 0;
}

#endif
