/* Jones-Worland plans: what a plan holds, the layout of a call's columns,
 * the checks of a call and the choice of backend. */
#include <math.h>
#include <stdlib.h>

#include "gs_cpu.h"
#include "jw_internal.h"

/* The even degrees of [lmin, lmax] ascending, then the odd ones. */
static void jw_plan_slots(gs_jwt_plan *p)
{
  int k = 0;
  for (int parity = 0; parity < 2; ++parity) {
    for (int l = p->a.lmin; l <= p->a.lmax; ++l)
      if (l % 2 == parity) p->slot_l[k++] = l;
    if (parity == 0) p->neven = k;
  }
}

/* The connection bidiagonals of each parity of l present, up to the highest
 * degree of that parity: jw_mu and jw_nu depend on n and beta only, so every
 * degree of the parity reads its betas from the same table. */
static gs_status jw_plan_chains(gs_jwt_plan *p, char *msg)
{
  for (int parity = 0; parity < 2; ++parity) {
    const int top = p->a.lmax % 2 == parity ? p->a.lmax : p->a.lmax - 1;
    if (top < p->a.lmin || top < 0) continue;
    const double bytes = 2.0 * (top - parity > 0 ? top - parity : 1) * p->len * sizeof(double);
    gs_status st = gs_host_memory_check(bytes, "the connection tables", msg);
    if (st != GS_OK) return st;
    if (!gs_jw_chain_make(&p->chain[parity], top, p->len))
      return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the connection tables (%.0f bytes)", bytes);
  }
  return GS_OK;
}

static gs_status jw_plan_check(const gs_jwt_plan_args *a, char *msg)
{
  if (a->lmin < 0 || a->lmax < a->lmin || a->lmax > GS_JW_MAX_DEGREE || a->ncoef < 1 || a->nr < 1 ||
      (a->method != GS_JW_CONNECTION && a->method != GS_JW_QUADRATURE))
    return gs_set_msg(msg, GS_ERR_ARG, "a Jones-Worland plan needs 0 <= lmin <= lmax <= %d, ncoef >= 1, nr >= 1 "
                      "and a known method", GS_JW_MAX_DEGREE);
  if (a->ncoef + a->lmax / 2 > a->nr)
    return gs_set_msg(msg, GS_ERR_ARG, "the grid of %ld points is too small for %ld coefficients of degree %d",
                      a->nr, a->ncoef, a->lmax);
  return GS_OK;
}

gs_status gs_jwt_plan_create(const gs_jwt_plan_args *a, int threads, gs_jwt_plan **plan, char *msg)
{
  *plan = NULL;
  gs_status st = jw_plan_check(a, msg);
  if (st != GS_OK) return st;
  gs_jwt_plan *p = (gs_jwt_plan *)calloc(1, sizeof(gs_jwt_plan));
  if (!p) return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for a Jones-Worland plan");
  p->a = *a;
  p->nslot = a->lmax - a->lmin + 1;
  p->len = a->ncoef + a->lmax / 2 + 1;
  p->slot_l = (int *)malloc((size_t)p->nslot * sizeof(int));
  if (!p->slot_l) st = gs_set_msg(msg, GS_ERR_NOMEM, "no memory for a Jones-Worland plan");
  if (st == GS_OK) {
    jw_plan_slots(p);
    if (a->method == GS_JW_CONNECTION) st = jw_plan_chains(p, msg);
  }
  if (st == GS_OK) {
    if (a->device < 0) p->bytes = jw_chain_bytes(&p->chain[0]) + jw_chain_bytes(&p->chain[1]);
    st = a->device < 0 ? jw_plan_cpu_make(p, threads, msg) : jw_plan_gpu_make(p, msg);
  }
  if (st != GS_OK) {
    gs_jwt_plan_free(p);
    return st;
  }
  *plan = p;
  return GS_OK;
}

void gs_jwt_plan_free(gs_jwt_plan *p)
{
  if (!p) return;
  if (p->gpu) jw_plan_gpu_release(p);
  gs_jw_chain_free(&p->chain[0]);
  gs_jw_chain_free(&p->chain[1]);
  free(p->quad);
  free(p->slot_l);
  free(p);
}

gs_jwt_plan_args gs_jwt_plan_get_args(const gs_jwt_plan *p) { return p->a; }

size_t gs_jwt_plan_bytes(const gs_jwt_plan *p) { return p->bytes; }

size_t gs_jwt_plan_work_bytes(const gs_jwt_plan *p, long ncol, int analysis)
{
  if (ncol < 1) return 0;
  if (p->a.device >= 0) return jw_plan_gpu_work_bytes(p, ncol, analysis);
  if (p->a.method == GS_JW_QUADRATURE) return 0; /* the products write into the outputs */
  return (size_t)jw_cpu_chunk_columns(p, ncol) * p->a.nr * sizeof(double);
}

static void jw_layout_free(jw_layout *y)
{
  free(y->first);
  free(y->in);
  free(y->out);
}

static gs_status jw_layout_make(const gs_jwt_plan *p, const gs_jwt_data *d, jw_layout *y, char *msg)
{
  y->first = (long *)malloc(((size_t)p->nslot + 1) * sizeof(long));
  y->in = (const double **)malloc((size_t)p->nslot * sizeof(double *));
  y->out = (double **)malloc((size_t)p->nslot * sizeof(double *));
  if (!y->first || !y->in || !y->out) return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the layout of a call");
  y->first[0] = 0;
  for (int k = 0; k < p->nslot; ++k) {
    const int i = p->slot_l[k] - p->a.lmin;
    if (d->ncol[i] < 0) return gs_set_msg(msg, GS_ERR_ARG, "degree %d has %ld columns", p->slot_l[k], d->ncol[i]);
    y->first[k + 1] = y->first[k] + d->ncol[i];
    y->in[k] = d->in[i];
    y->out[k] = d->out[i];
  }
  y->total = y->first[p->nslot];
  y->even = y->first[p->neven];
  return GS_OK;
}

/* A non-finite input would spread along the chain to every coefficient: an
 * argument error naming the first one found. */
static gs_status jw_check_finite(const gs_jwt_plan *p, const gs_jwt_data *d, int threads, char *msg)
{
  const long rows = d->analysis ? p->a.nr : p->a.ncoef;
  for (int i = 0; i < p->nslot; ++i) {
    const long len = rows * d->ncol[i];
    const double *x = d->in[i];
    long bad = len;
#pragma omp parallel for num_threads(gs_cpu_threads_for(threads, len * 8.0 / GS_CPU_BYTES_PER_WORK)) reduction(min : bad)
    for (long e = 0; e < len; ++e)
      if (!isfinite(x[e]) && e < bad) bad = e;
    if (bad < len)
      return gs_set_msg(msg, GS_ERR_ARG, "the %s of degree l = %d have a non-finite value (row %ld, column %ld); the "
                        "transforms need finite values", d->analysis ? "values" : "coefficients", p->a.lmin + i,
                        bad % rows + 1, bad / rows + 1);
  }
  return GS_OK;
}

gs_status gs_jwt_plan_execute(const gs_jwt_plan *p, const gs_jwt_data *d, int threads, gs_progress_fn progress,
                              char *msg)
{
  jw_layout y = {0};
  gs_status st = jw_layout_make(p, d, &y, msg);
  if (st == GS_OK) st = jw_check_finite(p, d, threads, msg);
  if (st == GS_OK && y.total > 0)
    st = p->a.device < 0 ? jw_plan_cpu_execute(p, &y, d->analysis, threads, progress, msg)
                         : jw_plan_gpu_execute(p, &y, d->analysis, progress, msg);
  jw_layout_free(&y);
  return st;
}
