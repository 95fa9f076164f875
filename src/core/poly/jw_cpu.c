/* Jones-Worland polynomials and transforms on the CPU: evaluation, and the
 * plans: the quadrature transforms (matrices of polynomial values and BLAS)
 * and the connection transforms (bidiagonal steps to Chebyshev
 * coefficients, then a DCT), a chunk of columns of every degree at a time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "lapack.h"
#include "jw_internal.h"
#include "jw_math.h"

gs_status gs_jw_eval(long len, const int *n, const int *l, const double *r, int norm, double *out, char *msg)
{
  for (long i = 0; i < len; ++i) {
    if (n[i] < 0 || l[i] < 0 || !(r[i] >= 0.0 && r[i] <= 1.0))
      return gs_set_msg(msg, GS_ERR_ARG, "element %ld: jw_eval needs n >= 0, l >= 0 and 0 <= r <= 1", i + 1);
    if (n[i] > GS_JW_MAX_DEGREE || l[i] > GS_JW_MAX_DEGREE)
      return gs_set_msg(msg, GS_ERR_ARG, "element %ld: degrees n = %d, l = %d; each must be at most %d, "
                        "beyond which the recurrence would lose about n ulps", i + 1, n[i], l[i], GS_JW_MAX_DEGREE);
  }
  int failed = 0;
#pragma omp parallel for num_threads(gs_cpu_threads_for(0, 10.0 * len / POLY_FLOPS_PER_WORK)) schedule(static)
  for (long i = 0; i < len; ++i) {
    if (r[i] == 1.0) { /* the ball's surface, exactly */
      out[i] = gs_jw_at_one(n[i], l[i], norm);
      continue;
    }
    double *buf = (double *)malloc(((size_t)n[i] + 1) * sizeof(double));
    if (buf) {
      jw_unit_values(l[i], n[i] + 1, r[i], gs_jw_q0(l[i]), buf, 1);
      out[i] = buf[n[i]];
      if (norm == GS_JW_NATURAL) out[i] *= (double)expl(0.5L * gs_jw_log_norm(n[i], l[i]));
    } else {
#pragma omp atomic write
      failed = 1;
    }
    free(buf);
  }
  return failed ? gs_set_msg(msg, GS_ERR_NOMEM, "jw_eval: out of memory for the recurrence") : GS_OK;
}

/* ---- plans ---------------------------------------------------------------------- */

long jw_cpu_chunk_columns(const gs_jwt_plan *p, long total)
{
  const long c = (long)(JW_CPU_CHUNK_BYTES / ((size_t)p->a.nr * sizeof(double)));
  return c < 1 ? 1 : (c < total ? c : total);
}

/* The quadrature matrices of every slot: slot k's nr x ncoef values of the
 * unit polynomials on the grid at quad + k nr ncoef. */
gs_status jw_plan_cpu_make(gs_jwt_plan *p, int threads, char *msg)
{
  if (p->a.method != GS_JW_QUADRATURE) return GS_OK;
  const long nr = p->a.nr, nc = p->a.ncoef, rows = (long)p->nslot * nr;
  const double bytes = (double)rows * nc * sizeof(double);
  gs_status st = gs_host_memory_check(bytes, "the quadrature matrices", msg);
  if (st != GS_OK) return st;
  p->quad = (double *)malloc((size_t)bytes);
  double *q0 = (double *)malloc((size_t)p->nslot * sizeof(double));
  if (!p->quad || !q0) {
    free(q0);
    return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the quadrature matrices (%.0f bytes)", bytes);
  }
  for (int k = 0; k < p->nslot; ++k) q0[k] = gs_jw_q0(p->slot_l[k]); /* lgammal is not thread-safe */
#pragma omp parallel for num_threads(gs_cpu_threads_for(threads, 10.0 * rows * nc / POLY_FLOPS_PER_WORK)) schedule(static)
  for (long i = 0; i < rows; ++i) {
    const int k = (int)(i / nr);
    jw_unit_values(p->slot_l[k], (int)nc, jw_node(i % nr, nr), q0[k], p->quad + (size_t)k * nr * nc + i % nr, nr);
  }
  free(q0);
  p->bytes += (size_t)bytes;
  return GS_OK;
}

/* The DCTs of the chunk's columns [j0, j1) in t: those of even degree, then the odd. */
static gs_status cpu_dcts(const gs_jwt_plan *p, const jw_layout *y, long j0, long j1, int analysis, double *t,
                          int threads, char *msg)
{
  const long nr = p->a.nr, mid = y->even < j0 ? j0 : (y->even > j1 ? j1 : y->even);
  gs_status st = gs_dct_cpu(jw_dct_type(0, analysis), nr, mid - j0, t, t, threads, msg);
  if (st != GS_OK) return st;
  return gs_dct_cpu(jw_dct_type(1, analysis), nr, j1 - mid, t + (mid - j0) * nr, t + (mid - j0) * nr, threads, msg);
}

/* The connection transform of the columns [j0, j1) through t (nr x (j1 - j0)). */
static gs_status cpu_connection_chunk(const gs_jwt_plan *p, const jw_layout *y, long j0, long j1, int analysis,
                                      double *t, int threads, char *msg)
{
  const long nr = p->a.nr, nc = p->a.ncoef;
  const int nt = gs_cpu_threads_for(threads, 4.0 * p->len * (p->a.lmax + 2) * (j1 - j0) / POLY_FLOPS_PER_WORK);
  const size_t in_bytes = (size_t)(analysis ? nr : nc) * sizeof(double);
  /* the cost of a column grows with its degree: dynamic scheduling */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 8)
  for (long j = j0; j < j1; ++j) {
    const int k = jw_slot_of(y->first, p->nslot, j), l = p->slot_l[k];
    const double *in = y->in[k] + (j - y->first[k]) * (analysis ? nr : nc);
    if (analysis) memcpy(t + (j - j0) * nr, in, in_bytes);
    else jw_column_down(p->chain[l % 2].mu, p->chain[l % 2].nu, p->len, l, nc, nr, in, t + (j - j0) * nr);
  }
  gs_status st = cpu_dcts(p, y, j0, j1, analysis, t, threads, msg);
  if (st != GS_OK) return st;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 8)
  for (long j = j0; j < j1; ++j) {
    const int k = jw_slot_of(y->first, p->nslot, j), l = p->slot_l[k];
    double *out = y->out[k] + (j - y->first[k]) * (analysis ? nc : nr);
    if (analysis) jw_column_up(p->chain[l % 2].mu, p->chain[l % 2].nu, p->len, l, nc, nr, t + (j - j0) * nr, out);
    else memcpy(out, t + (j - j0) * nr, (size_t)nr * sizeof(double));
  }
  return GS_OK;
}

/* The quadrature transform of the columns [j0, j1): a product per degree,
 * straight between the caller's arrays. A multi-threaded BLAS is called
 * from one thread (gs_blas_threads). */
static void cpu_quadrature_chunk(const gs_jwt_plan *p, const jw_layout *y, long j0, long j1, int analysis,
                                 int threads)
{
  const int nr = (int)p->a.nr, nc = (int)p->a.ncoef;
  const double zero = 0.0, one = 1.0, w = jw_weight(p->a.nr);
  const int nt = gs_blas_threads() > 1 ? 1 : gs_cpu_threads_for(threads, 2.0 * nr * nc * (j1 - j0) / POLY_FLOPS_PER_WORK);
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
  for (int k = 0; k < p->nslot; ++k) {
    long lo, hi;
    jw_piece(y, k, j0, j1, &lo, &hi);
    if (lo >= hi) continue;
    const int m = (int)(hi - lo);
    const long off = lo - y->first[k];
    const double *q = p->quad + (size_t)k * nr * nc;
    if (analysis)
      dgemm_("T", "N", &nc, &m, &nr, &w, q, &nr, y->in[k] + off * nr, &nr, &zero, y->out[k] + off * nc, &nc, 1, 1);
    else
      dgemm_("N", "N", &nr, &m, &nc, &one, q, &nr, y->in[k] + off * nc, &nc, &zero, y->out[k] + off * nr, &nr, 1, 1);
  }
}

gs_status jw_plan_cpu_execute(const gs_jwt_plan *p, const jw_layout *y, int analysis, int threads,
                              gs_progress_fn progress, char *msg)
{
  const long chunk = jw_cpu_chunk_columns(p, y->total);
  double *t = NULL;
  if (p->a.method == GS_JW_CONNECTION) {
    t = (double *)malloc((size_t)chunk * p->a.nr * sizeof(double));
    if (!t) return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the connection transform");
  }
  gs_status st = GS_OK;
  for (long j0 = 0; j0 < y->total && st == GS_OK; j0 += chunk) {
    const long j1 = y->total - j0 < chunk ? y->total : j0 + chunk;
    if (t) st = cpu_connection_chunk(p, y, j0, j1, analysis, t, threads, msg);
    else cpu_quadrature_chunk(p, y, j0, j1, analysis, threads);
    if (st == GS_OK && progress && j1 < y->total && progress((double)j1 / y->total)) st = gs_interrupted(msg);
  }
  free(t);
  return st;
}
