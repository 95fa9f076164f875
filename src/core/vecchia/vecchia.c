/* The Vecchia object: argument checks and the choice of backend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "vecchia_internal.h"

long gs_vecchia_size(const gs_vecchia *v) { return v->n; }

int gs_vecchia_deriv_count(int deriv)
{
  int q = 0;
  for (int j = 0; j < GS_COV_NPAR; ++j) q += (deriv >> j) & 1;
  return q;
}

int gs_vecchia_sums_size(int p, int deriv) { return vecchia_acc_size(p, gs_vecchia_deriv_count(deriv)); }

vecchia_problem gs_vecchia_problem(const gs_vecchia *v, const double *locs, const int *nn, int row_major,
                                   const double *y, const double *X, int p, int deriv)
{
  vecchia_problem pr = {
    .locs = locs, .n = v->n, .latent = v->latent, .noise = v->noise, .halo = v->halo, .dim = v->dim, .nn = nn,
    .nn_row = row_major ? v->mp1 : 1, .nn_col = row_major ? 1 : v->n, .mp1 = v->mp1,
    .set = v->set, .resp = v->resp, .set_start = v->set_start, .resp_start = v->resp_start,
    .blocks = v->set ? v->blocks : v->n, .ld = v->set ? v->ld : v->mp1,
    .y = y, .X = X, .p = p, .deriv = deriv, .q = 0, .rc = v->set ? VECCHIA_RESPONSES : 1,
  };
  for (int j = 0; j < GS_COV_NPAR; ++j)
    if ((deriv >> j) & 1) pr.params[pr.q++] = j;
  return pr;
}

/* Every row starts with its own index and lists earlier points, then -1. */
static gs_status check_neighbors(const int *nn, long n, int mp1, char *msg)
{
  for (long i = 0; i < n; ++i) {
    if (nn[i] != i) return gs_set_msg(msg, GS_ERR_ARG, "row %ld of the neighbour array does not start with its own index", i + 1);
    int padded = 0;
    for (int j = 1; j < mp1; ++j) {
      const int g = nn[i + (long)j * n];
      if (g < 0) padded = 1;
      else if (padded || g >= i)
        return gs_set_msg(msg, GS_ERR_ARG, "row %ld of the neighbour array lists a point that is not earlier, or one after a missing entry", i + 1);
    }
  }
  return GS_OK;
}

/* The neighbour array in the core's indices: 0-based, -1 for missing. */
static void copy_neighbors(int *to, const int *from, size_t len, int base)
{
  for (size_t k = 0; k < len; ++k) to[k] = from[k] >= base ? from[k] - base : -1;
}

/* A grouped object keeps the blocks' sets only: nn is dropped once they are
 * built (the grouped likelihood reads the sets; the factor, which reads nn,
 * is refused). */
gs_status gs_vecchia_create(const gs_vecchia_args *a, gs_vecchia **out, char *msg)
{
  *out = NULL;
  if (a->n < 1 || a->dim < 1 || a->m < 0 || a->m >= a->n || a->latent < 0 || a->latent > a->n ||
      (a->base != 0 && a->base != 1))
    return gs_set_msg(msg, GS_ERR_ARG, "need n >= 1 locations, dim >= 1, 0 <= m < n, 0 <= latent <= n and base 0 or 1 (n = %ld, m = %d)",
                      a->n, a->m);
  const int mp1 = a->m + 1;
  const double bytes = (double)a->n * (a->dim * 8.0 + mp1 * 12.0);
  gs_status st = gs_host_memory_check(bytes, "the Vecchia locations, neighbours and factor", msg);
  if (st != GS_OK) return st;
  gs_vecchia *v = (gs_vecchia *)calloc(1, sizeof(gs_vecchia));
  if (!v) return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the Vecchia object");
  *v = (gs_vecchia){
    .device = a->device, .n = a->n, .latent = a->latent, .dim = a->dim, .mp1 = mp1,
    .threads = a->threads, .progress = a->progress,
  };
  v->locs = (double *)malloc((size_t)a->n * a->dim * sizeof(double));
  v->nn = (int *)malloc((size_t)a->n * mp1 * sizeof(int));
  if (!v->locs || !v->nn) {
    gs_vecchia_free(v);
    return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the Vecchia locations and neighbours");
  }
  memcpy(v->locs, a->locs, (size_t)a->n * a->dim * sizeof(double));
  copy_neighbors(v->nn, a->nn, (size_t)a->n * mp1, a->base);
  if ((st = check_neighbors(v->nn, a->n, mp1, msg)) == GS_OK && a->block &&
      (st = gs_vecchia_blocks_build(v, a->block, a->base, a->halo, msg)) == GS_OK) {
    free(v->nn);
    v->nn = NULL;
  }
  if (st == GS_OK && a->halo && !a->block) {
    if ((v->halo = (unsigned char *)malloc((size_t)a->n)))
      memcpy(v->halo, a->halo, (size_t)a->n);
    else
      st = gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the halo flags");
  }
  if (st == GS_OK && v->device >= 0) st = gs_vecchia_gpu_init(v, msg);
  if (st != GS_OK) {
    gs_vecchia_free(v);
    return st;
  }
  *out = v;
  return GS_OK;
}

void gs_vecchia_free(gs_vecchia *v)
{
  if (!v) return;
  if (v->device >= 0) gs_vecchia_gpu_release(v);
  free(v->locs);
  free(v->nn);
  free(v->halo);
  free(v->noise);
  free(v->w);
  free(v->rev_start);
  free(v->rev);
  free(v->nn_rows);
  free(v->q);
  free(v->ic);
  free(v->level_start);
  free(v->level_points);
  free(v->set);
  free(v->resp);
  free(v->set_start);
  free(v->resp_start);
  free(v);
}

gs_status gs_vecchia_factor(gs_vecchia *v, const gs_cov_model *p, double *logdet, long *failed_point, char *msg)
{
  gs_status st = gs_cov_model_check(p, v->dim, msg);
  if (st != GS_OK) return st;
  if (v->set || v->halo)
    return gs_set_msg(msg, GS_ERR_ARG, "a grouped Vecchia approximation, or one with a halo, gives the likelihood only, not the factor");
  v->factored = 0;
  v->q_valid = 0;
  *failed_point = 0;
  if (v->device >= 0) {
    st = gs_vecchia_gpu_run(v, p, NULL, NULL, 0, 0, 1, logdet, failed_point, msg);
  } else {
    if (!v->w && !(v->w = (double *)malloc((size_t)v->n * v->mp1 * sizeof(double))))
      return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the Vecchia factor (%.3g GB)", v->n * v->mp1 * 8e-9);
    const vecchia_problem pr = gs_vecchia_problem(v, v->locs, v->nn, 0, NULL, NULL, 0, 0);
    const matern_deriv_model md = matern_deriv_prepare(p);
    st = gs_vecchia_cpu_run(v, &pr, &md, v->w, logdet, failed_point, msg);
  }
  v->factored = (st == GS_OK);
  return st;
}

gs_status gs_vecchia_set_noise(gs_vecchia *v, const double *noise, char *msg)
{
  if (!noise) {
    free(v->noise);
    v->noise = NULL;
  } else {
    for (long i = 0; i < v->n; ++i)
      if (!(noise[i] >= 0.0 && isfinite(noise[i])))
        return gs_set_msg(msg, GS_ERR_ARG, "the variance of point %ld's own is not finite and >= 0", i + 1);
    if (!v->noise && !(v->noise = (double *)malloc((size_t)v->n * sizeof(double))))
      return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the points' variances");
    memcpy(v->noise, noise, (size_t)v->n * sizeof(double));
  }
  v->factored = 0;
  return v->device >= 0 ? gs_vecchia_gpu_set_noise(v, msg) : GS_OK;
}

gs_status vecchia_host_factor(gs_vecchia *v, char *msg)
{
  if (v->device < 0) return GS_OK;
  if (!v->w && !(v->w = (double *)malloc((size_t)v->n * v->mp1 * sizeof(double))))
    return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the Vecchia factor (%.3g GB)", v->n * v->mp1 * 8e-9);
  return gs_vecchia_gpu_factor_to_host(v, v->w, msg);
}

/* W^-1 b on the CPU (sequential in the points). */
static gs_status vecchia_inverse(gs_vecchia *v, const double *b, int k, double *out, char *msg)
{
  gs_status st = vecchia_host_factor(v, msg);
  if (st == GS_OK) gs_vecchia_cpu_inverse(v, b, k, out);
  return st;
}

gs_status vecchia_columns(gs_vecchia *v, char *msg)
{
  if (v->rev) return GS_OK;
  const long n = v->n;
  const int mp1 = v->mp1;
  long *start = (long *)calloc((size_t)n + 1, sizeof(long)), *fill = (long *)malloc((size_t)n * sizeof(long));
  int *rows = (int *)malloc((size_t)n * mp1 * sizeof(int));
  long *rev = NULL;
  if (start && fill && rows) {
    for (long i = 0; i < n; ++i)
      for (int j = 0; j < mp1; ++j) {
        rows[i * mp1 + j] = v->nn[i + (long)j * n];
        if (rows[i * mp1 + j] >= 0) ++start[rows[i * mp1 + j] + 1];
      }
    for (long g = 0; g < n; ++g) start[g + 1] += start[g];
    rev = (long *)malloc((size_t)(start[n] > 0 ? start[n] : 1) * sizeof(long));
  }
  if (!rev) {
    free(start);
    free(fill);
    free(rows);
    return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the columns of the Vecchia factor (%.3g GB)",
                      (double)n * mp1 * 12e-9);
  }
  memcpy(fill, start, (size_t)n * sizeof(long));
  for (long i = 0; i < n; ++i)
    for (int j = 0; j < mp1 && rows[i * mp1 + j] >= 0; ++j) rev[fill[rows[i * mp1 + j]]++] = i * mp1 + j;
  free(fill);
  v->rev_start = start;
  v->rev = rev;
  v->nn_rows = rows;
  return GS_OK;
}

gs_status gs_vecchia_apply(gs_vecchia *v, int what, const double *b, int k, double *out, char *msg)
{
  if (!v->factored) return gs_set_msg(msg, GS_ERR_ARG, "the Vecchia object has not been factored");
  if (what != GS_VECCHIA_FORWARD && what != GS_VECCHIA_INVERSE && what != GS_VECCHIA_TRANSPOSE) return gs_set_msg(msg, GS_ERR_ARG, "unknown operation %d", what);
  if (k < 1) return GS_OK;
  const size_t bytes = (size_t)v->n * k * sizeof(double);
  double *copy = NULL;
  if (out == b) { /* both read b at other rows than they write */
    if (!(copy = (double *)malloc(bytes))) return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate a copy of b");
    memcpy(copy, b, bytes);
    b = copy;
  }
  gs_status st = GS_OK;
  if (what == GS_VECCHIA_TRANSPOSE) st = vecchia_columns(v, msg);
  if (st == GS_OK) {
    if (what == GS_VECCHIA_INVERSE) st = vecchia_inverse(v, b, k, out, msg);
    else if (v->device >= 0) st = gs_vecchia_gpu_apply(v, what, b, k, out, msg);
    else if (what == GS_VECCHIA_TRANSPOSE) gs_vecchia_cpu_transpose(v, b, k, out);
    else st = gs_vecchia_cpu_apply(v, b, k, out, msg);
  }
  free(copy);
  return st;
}

gs_status gs_vecchia_grad_info(gs_vecchia *v, const gs_cov_model *prm, int deriv, const double *y,
                               const double *X, int p, double *sums, long *failed_point, char *msg)
{
  gs_status st = gs_cov_model_check(prm, v->dim, msg);
  if (st != GS_OK) return st;
  if (p < 0 || (p > 0 && !X) || deriv < 0 || (deriv & ~gs_cov_family_derivable(prm->family)))
    return gs_set_msg(msg, GS_ERR_ARG, "invalid covariates, or derivative flags beyond the family's parameters");
  if (v->latent < v->n) return gs_set_msg(msg, GS_ERR_ARG, "the likelihood needs observations at every point (no latent points)");
  *failed_point = 0;
  if (v->device >= 0) return gs_vecchia_gpu_run(v, prm, y, X, p, deriv, 0, sums, failed_point, msg);
  const vecchia_problem pr = gs_vecchia_problem(v, v->locs, v->nn, 0, y, X, p, deriv);
  const matern_deriv_model md = matern_deriv_prepare(prm);
  return gs_vecchia_cpu_run(v, &pr, &md, NULL, sums, failed_point, msg);
}

void gs_vecchia_gather(const int *order, int base, long n, const double *x, int cols, double *out)
{
  const double work = (double)n * cols * 2.0 * sizeof(double) / GS_CPU_BYTES_PER_WORK;
#pragma omp parallel for schedule(static) num_threads(gs_cpu_threads_for(0, work))
  for (long i = 0; i < n; ++i) {
    const long from = order[i] - base;
    for (int c = 0; c < cols; ++c) out[i + (long)c * n] = x[from + (long)c * n];
  }
}
