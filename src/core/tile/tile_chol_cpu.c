/* Left-looking tile Cholesky on the CPU cores: the ops of the plan that the
 * GPU runs (tile_plan.h), made for a cache of every tile, since the tiles in
 * host memory are the CPU's slots. Its loads and stores are no-ops; each
 * compute op is an OpenMP task that depends on its tiles: it updates or
 * finishes tile[0] and reads finished tiles, so any thread runs any op whose
 * operands are finished, while the updates of one tile run in the plan's
 * order (the order of the sums, and with it the rounding, is the same for
 * any number of threads). The kernels of gs_dense.h run on the thread of
 * their op. The thread that issues the ops stays TILE_CPU_LAG columns ahead
 * of the factored diagonal, so that the updates of the next columns keep
 * the threads busy while a diagonal tile is factored, and behind it sees a
 * failed POTRF, reports progress and checks for an interrupt.
 *
 * In mixed precision the tiles stay in their formats in memory (so the
 * matrix takes less of it); a tile that is not FP64 is read into FP64 for
 * each product and accumulated in FP64, then rounded to its format when it
 * is finished. The GPU computes the updates of such tiles in the lowest
 * precision of the tiles involved, so the two agree to that rounding. */
#include <stdlib.h>

#include "gs_cpu.h"
#include "gs_dense.h"
#include "tile_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* How many columns the issue of the ops runs ahead of the factored
 * diagonal: the threads take the updates of the next columns while a
 * diagonal tile is factored. */
#define TILE_CPU_LAG 2

typedef struct {
  gs_tile_matrix *m;
  /* The FP64 accumulators of the tiles that are not FP64: tile (i, k) at
   * ((k % 2) nt + i) nb^2. The plan issues the first update of a tile of
   * column k + 2 after the solve of every tile of column k, so two columns
   * of accumulators cover the issue order; the tasks wait for the solve. */
  double *acc;
  double *work;         /* two tiles per thread for the operands that are not FP64 */
  /* What the tasks depend on: one byte per tile, one for no tile, and one
   * per accumulator in acc. */
  unsigned char *deps;
  int threads;
  int failed;           /* an op failed: the ops still to run skip */
  gs_status st;         /* the first failure, its message in msg */
  long failed_minor;    /* of a failed POTRF, in the matrix */
  char *msg;
} cpu_run;

static double *operand_work(const cpu_run *r, int which)
{
#ifdef _OPENMP
  const size_t thread = (size_t)omp_get_thread_num();
#else
  const size_t thread = 0;
#endif
  return r->work ? r->work + (2 * thread + which) * r->m->nb * r->m->nb : NULL;
}

/* Where tile (i, k) accumulates: in place when it is FP64. */
static double *accumulator(const cpu_run *r, int i, int k)
{
  const gs_tile_matrix *m = r->m;
  if (m->precision[gs_tile_index(i, k)] == GS_TILE_FP64) return gs_tile_at(m, i, k);
  return r->acc + ((size_t)(k % 2) * m->nt + i) * m->nb * m->nb;
}

/* The accumulator of tile (i, k) before its first op (the update with
 * j = 0, or the solve of column 0): the tile's value, unless it is the tile. */
static double *accumulator_start(const cpu_run *r, int i, int k)
{
  double *c = accumulator(r, i, k);
  if (c != gs_tile_ptr(r->m, i, k)) gs_tile_read(r->m, i, k, c);
  return c;
}

/* SYRK or GEMM: A_ik -= L_ij L_kj' (its lower triangle on the diagonal). */
static gs_status op_update(const cpu_run *r, const tile_op *op, char *msg)
{
  const gs_tile_matrix *m = r->m;
  const int i = op->i, j = op->j, k = op->k;
  double *c = j == 0 ? accumulator_start(r, i, k) : accumulator(r, i, k);
  const double *b = gs_tile_read(m, k, j, operand_work(r, 1));
  const double *a = op->kind == TILE_OP_SYRK ? b : gs_tile_read(m, i, j, operand_work(r, 0));
  const int ri = gs_tile_rows(m, i), rk = gs_tile_rows(m, k);
  return gs_dense_gemm_nt(ri, rk, m->nb, a, ri, b, rk, c, ri, op->kind == TILE_OP_SYRK, 1, msg);
}

/* TRSM: L_ik = A_ik L_kk'^-1, then in its format. */
static gs_status op_solve(cpu_run *r, const tile_op *op, char *msg)
{
  gs_tile_matrix *m = r->m;
  const int i = op->i, k = op->k, ri = gs_tile_rows(m, i), rk = gs_tile_rows(m, k);
  double *c = k == 0 ? accumulator_start(r, i, k) : accumulator(r, i, k);
  const gs_status st = gs_dense_trsm_rlt(ri, rk, gs_tile_at(m, k, k), rk, c, ri, 1, msg);
  if (c != gs_tile_ptr(m, i, k)) gs_tile_write(m, i, k, c);
  return st;
}

/* POTRF: L_kk = chol(A_kk); a diagonal tile is FP64. */
static gs_status op_factor(cpu_run *r, const tile_op *op, char *msg)
{
  const int k = op->k, rk = gs_tile_rows(r->m, k);
  long fail = 0;
  const gs_status st = gs_dense_potrf(rk, gs_tile_at(r->m, k, k), rk, 1, &fail, msg);
  if (st == GS_ERR_NOT_PD) r->failed_minor = (long)k * r->m->nb + fail;
  return st;
}

/* Stops the ops still to run: the first failure, st with message `why`,
 * is the run's. */
static void run_stop(cpu_run *r, gs_status st, const char *why)
{
#pragma omp critical(gs_tile_cpu_status)
  if (!r->failed) {
    r->st = gs_set_msg(r->msg, st, "%s", why);
#pragma omp atomic write
    r->failed = 1;
  }
}

/* Runs a compute op unless an earlier one failed. */
static void op_run(cpu_run *r, const tile_op *op)
{
  char mine[GS_MSG_LEN];
  int failed;
#pragma omp atomic read
  failed = r->failed;
  if (failed) return;
  const gs_status st = op->kind == TILE_OP_POTRF ? op_factor(r, op, mine)
                       : op->kind == TILE_OP_TRSM ? op_solve(r, op, mine)
                                                  : op_update(r, op, mine);
  if (st != GS_OK) run_stop(r, st, mine);
}

/* The byte of tile t that the tasks depend on; a missing operand (t < 0)
 * has one that no op writes. */
static inline unsigned char *op_dep(const cpu_run *r, int t)
{
  return r->deps + (t >= 0 ? t : gs_tile_count(r->m->nt));
}

/* The byte of the accumulator of the op's tile: that of the tile when it
 * accumulates in place, else that of its place in acc, which tile (i, k + 2)
 * takes over only after tile (i, k) is finished. */
static inline unsigned char *op_acc_dep(const cpu_run *r, const tile_op *op)
{
  const gs_tile_matrix *m = r->m;
  if (m->precision[op->tile[0]] == GS_TILE_FP64) return op_dep(r, op->tile[0]);
  return r->deps + gs_tile_count(m->nt) + 1 + (op->k % 2) * m->nt + op->i;
}

/* A compute op as a task after the ops that write its tiles (and its
 * accumulator) before it in the plan; loads and stores do nothing, as every
 * tile is in host memory. */
static void op_issue(cpu_run *r, const tile_op *op)
{
  if (op->kind == TILE_OP_LOAD || op->kind == TILE_OP_STORE) return;
#pragma omp task firstprivate(r, op) depend(inout : op_dep(r, op->tile[0])[0], op_acc_dep(r, op)[0]) \
  depend(in : op_dep(r, op->tile[1])[0], op_dep(r, op->tile[2])[0])
  op_run(r, op);
}

/* Waits for the factorization of diagonal tile c, running ops meanwhile:
 * an undeferred task that depends on it (OpenMP 4.5 has no wait for a
 * single task). */
static void column_wait(cpu_run *r, int c)
{
#pragma omp task if (0) depend(in : op_dep(r, (int)gs_tile_index(c, c))[0])
  {
  }
}

/* Issues the plan's sections, column by column, on the thread that called
 * (R's, for the progress callback); after issuing section k it waits for
 * column k - TILE_CPU_LAG, whose failure stops the issue and whose end is
 * the progress reported. */
static void run_issue(cpu_run *r, const tile_plan *plan, const gs_tile_options *opt)
{
  const int nt = r->m->nt;
  for (int k = 0; k < nt + TILE_CPU_LAG; ++k) {
    if (k < nt) /* the last TILE_CPU_LAG rounds only wait */
      for (long p = k ? plan->column_end[k - 1] : 0; p < plan->column_end[k]; ++p) op_issue(r, &plan->ops[p]);
    const int c = k - TILE_CPU_LAG;
    if (c < 0) continue;
    column_wait(r, c);
    int failed;
#pragma omp atomic read
    failed = r->failed;
    if (failed) return;
    const double left = (double)(nt - c - 1) / nt;
    if (opt->progress && c + 1 < nt && opt->progress(1.0 - left * left * left)) {
      run_stop(r, GS_ERR_INTERRUPTED, "interrupted");
      return;
    }
  }
}

/* The plan on r->threads threads: the issuing thread runs ops too while it
 * waits, and the other threads from the start. */
static gs_status run_plan(cpu_run *r, const tile_plan *plan, const gs_tile_options *opt, gs_tile_info *info)
{
#pragma omp parallel num_threads(r->threads)
#pragma omp master
  run_issue(r, plan, opt);
  if (r->st == GS_ERR_INTERRUPTED) return gs_interrupted(r->msg);
  if (r->st == GS_ERR_NOT_PD) {
    info->failed_minor = r->failed_minor;
    return gs_set_msg(r->msg, GS_ERR_NOT_PD, "the leading minor of order %ld is not positive", r->failed_minor);
  }
  return r->st;
}

gs_status gs_tile_plan_run_cpu(gs_tile_matrix *m, const tile_plan *plan, const gs_tile_options *opt,
                               gs_tile_info *info, char *msg)
{
  info->workers = gs_cpu_threads(opt->threads);
  const size_t tile = (size_t)m->nb * m->nb;
  cpu_run r = {.m = m, .threads = info->workers, .st = GS_OK, .msg = msg};
  r.deps = (unsigned char *)calloc((size_t)gs_tile_count(m->nt) + 1 + 2 * (size_t)m->nt, 1);
  if (m->low_tiles) {
    r.acc = (double *)malloc((size_t)2 * m->nt * tile * sizeof(double));
    r.work = (double *)malloc((size_t)r.threads * 2 * tile * sizeof(double));
  }
  gs_status st = GS_OK;
  if (!r.deps || (m->low_tiles && (!r.acc || !r.work)))
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for the work tiles of the factorization");
  else
    st = run_plan(&r, plan, opt, info);
  free(r.deps);
  free(r.acc);
  free(r.work);
  return st;
}

gs_status gs_tile_chol_cpu(gs_tile_matrix *m, const gs_tile_options *opt, gs_tile_info *info, char *msg)
{
  tile_plan plan;
  gs_status st = tile_plan_build(m->nt, 1, (int)gs_tile_count(m->nt), 1, 0, &plan, msg);
  if (st != GS_OK) return st;
  st = gs_tile_plan_run_cpu(m, &plan, opt, info, msg);
  tile_plan_free(&plan);
  return st;
}
