/* Tests of the R-free core, built and run without R (make core-test): the
 * tables of the core, Bessel K and the Matérn and stable ops of the map
 * against closed forms and high-precision values, the tile Cholesky's
 * schedule and cache plan, and the arithmetic of the GPU's tridiagonal
 * solver. Checks that the core keeps its promise to be
 * usable from C alone. Prints one line per failure and a summary; exits
 * non-zero on any failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "bessel_k_math.h"
#include "gs_dense.h"
#include "gs_map.h"
#include "gs_matern.h"
#include "tile_internal.h"
#include "tile_plan.h"
#include "tridiag_math.h"

static int passed, failed;

static void check(int ok, const char *what, int line)
{
  if (ok) {
    ++passed;
  } else {
    ++failed;
    printf("FAIL (core_test.c:%d): %s\n", line, what);
  }
}
#define CHECK(cond) check((cond), #cond, __LINE__)

/* |got - want| <= tol |want| (and both finite). */
static int near(double got, double want, double tol)
{
  return isfinite(got) && fabs(got - want) <= tol * fabs(want);
}

/* ---- the tables -------------------------------------------------------------- */

static void test_tables(void)
{
  /* the op codes count from 0 in list order and the arity comes from the list */
  int k = 0, ok = 1;
#define OP_CHECK(code, name, arity) \
  ok &= (code == k++) && gs_op_arity(code) == arity && arity >= 1 && arity <= GS_MAP_MAX_IN;
  GS_MAP_OPS(OP_CHECK)
#undef OP_CHECK
  CHECK(ok);
  CHECK(k == GS_OP_COUNT);
  CHECK(gs_op_arity(GS_OP_COUNT) == 0);
  /* the stable flags are distinct bits */
  int seen = 0;
  ok = 1;
#define FLAG_CHECK(code, name, bit) \
  ok &= (code == bit) && bit > 0 && (bit & (bit - 1)) == 0 && !(seen & bit); \
  seen |= bit;
  STABLE_FLAGS(FLAG_CHECK)
#undef FLAG_CHECK
  CHECK(ok);
  /* the names of a table are distinct */
  const char *names[] = {
#define OP_NAME(code, name, arity) name,
      GS_MAP_OPS(OP_NAME)
#undef OP_NAME
  };
  ok = 1;
  for (int a = 0; a < GS_OP_COUNT; ++a)
    for (int b = a + 1; b < GS_OP_COUNT; ++b) ok &= strcmp(names[a], names[b]) != 0;
  CHECK(ok);
  k = 0;
  ok = 1;
#define OP_KIND_CHECK(code, name) ok &= (code == k++);
  TILE_OP_KINDS(OP_KIND_CHECK)
#undef OP_KIND_CHECK
  CHECK(ok && k == TILE_OP_KIND_COUNT);
}

/* ---- Bessel K ---------------------------------------------------------------- */

static void test_bessel(void)
{
  /* mpmath: besselk(0, 1), besselk(1, 1), besselk(2.5, 10), besselk(20, 0.5) */
  CHECK(near(bessel_k_value(1.0, 0.0, BESSEL_K_PLAIN), 0.42102443824070833334, 1e-14));
  CHECK(near(bessel_k_value(1.0, 1.0, BESSEL_K_PLAIN), 0.60190723019723457474, 1e-14));
  CHECK(near(bessel_k_value(10.0, 2.5, BESSEL_K_PLAIN), 2.3931325864627888879e-05, 1e-13));
  CHECK(near(bessel_k_value(0.5, 20.0, BESSEL_K_LOG), log(6.6655498744171556352e+28), 1e-13));
  /* K_{1/2}(x) = sqrt(pi / (2x)) e^-x, and its scaled and log forms */
  for (double x = 1e-3; x < 700.0; x *= 3.7) {
    const double scaled = sqrt(M_PI / (2.0 * x));
    CHECK(near(bessel_k_value(x, 0.5, BESSEL_K_SCALED), scaled, 1e-14));
    CHECK(near(bessel_k_value(x, 0.5, BESSEL_K_LOG), log(scaled) - x, 1e-14));
  }
  /* d log K_nu(x) / dx = -1 - 1/(2x) at nu = 1/2 */
  CHECK(near(bessel_k_deriv_value(2.0, 0.5, BESSEL_K_WRT_X), -1.25, 1e-12));
  CHECK(isnan(bessel_k_value(-1.0, 1.0, BESSEL_K_PLAIN)));
}

/* ---- the map: recycling, Matérn and stable ops ---------------------------------- */

static gs_status map_run(int op, int flags, const double *const *in, const size_t *len, size_t n, double *out,
                         char *msg)
{
  gs_map_args a = {.op = op, .flags = flags, .seed = 0, .n = n, .out = out};
  for (int k = 0; k < gs_op_arity(op); ++k) {
    a.in[k] = in[k];
    a.len[k] = len[k];
    a.each[k] = 1;
  }
  return gs_map_cpu(&a, 2, NULL, msg);
}

static void test_map(void)
{
  char msg[GS_MSG_LEN];
  double out[8];
  /* Bessel: x recycled against two orders, as R recycles */
  const double x[] = {0.5, 1.0, 2.0, 4.0}, nu[] = {0.5, 1.5};
  const double *bin[] = {x, nu};
  const size_t blen[] = {4, 2};
  CHECK(map_run(GS_OP_BESSEL_K_SCALED, 0, bin, blen, 4, out, msg) == GS_OK);
  for (int i = 0; i < 4; ++i) {
    const double s = sqrt(M_PI / (2.0 * x[i])); /* K_{3/2}(x) e^x = s (1 + 1/x) */
    CHECK(near(out[i], i % 2 ? s * (1.0 + 1.0 / x[i]) : s, 1e-14));
  }
  /* Matérn at smoothness 1/2: sigma2 exp(-d / range), the nugget at d = 0 */
  const double d[] = {0.0, 0.3, 1.0, 5.0}, sigma2 = 2.0, range = 0.7, smooth = 0.5, nugget = 0.1;
  const double *min[] = {d, &sigma2, &range, &smooth, &nugget};
  const size_t mlen[] = {4, 1, 1, 1, 1};
  CHECK(map_run(GS_OP_MATERN, 0, min, mlen, 4, out, msg) == GS_OK);
  for (int i = 0; i < 4; ++i) CHECK(near(out[i], sigma2 * exp(-d[i] / range) + (i == 0 ? nugget : 0.0), 1e-14));
  /* the model's one rule: the op gives NaN where gs_cov_model_check refuses */
  const gs_cov_model ok = gs_cov_matern(MATERN_EUCLIDEAN, 0.0, INFINITY, 0.5, 0.0);
  CHECK(gs_cov_model_check(&ok, 2, msg) == GS_OK);
  const double bad[][4] = {{-1, 1, 1, 0}, {1, 0, 1, 0}, {1, 1, 0, 0}, {1, 1, 1, -1}, {INFINITY, 1, 1, 0},
                           {1, 1, INFINITY, 0}, {1, 1, 1, NAN}};
  for (int k = 0; k < 7; ++k) {
    const gs_cov_model m = gs_cov_matern(MATERN_EUCLIDEAN, bad[k][0], bad[k][1], bad[k][2], bad[k][3]);
    CHECK(gs_cov_model_check(&m, 2, msg) == GS_ERR_ARG && strlen(msg) > 0);
    const double one = 1.0, *bin2[] = {&one, &bad[k][0], &bad[k][1], &bad[k][2], &bad[k][3]};
    const size_t ones[] = {1, 1, 1, 1, 1};
    CHECK(map_run(GS_OP_MATERN, 0, bin2, ones, 1, out, msg) == GS_OK && isnan(out[0]));
  }
  gs_cov_model unknown = ok;
  unknown.metric = MATERN_METRIC_COUNT;
  CHECK(gs_cov_model_check(&unknown, 2, msg) == GS_ERR_ARG);
  /* the other families' rules: dimension and sphere */
  gs_cov_model fam = ok;
  fam.par[GS_COV_RANGE] = 1.0;
  fam.family = GS_COV_SPHERICAL;
  CHECK(gs_cov_model_valid(&fam, 3) && !gs_cov_model_valid(&fam, 4));
  fam.family = GS_COV_WENDLAND;
  fam.par[GS_COV_KAPPA] = 1.0;
  fam.par[GS_COV_MU] = 2.5;
  CHECK(gs_cov_model_valid(&fam, 2) && !gs_cov_model_valid(&fam, 3));
  fam.metric = MATERN_GREAT_CIRCLE;
  CHECK(gs_cov_model_problem(&fam, 2) == GS_COV_BAD_SPHERE);
  fam.family = GS_COV_GAUSSIAN;
  CHECK(gs_cov_model_problem(&fam, 2) == GS_COV_BAD_SPHERE && gs_cov_model_check(&fam, 2, msg) == GS_ERR_ARG);
  fam.family = GS_COV_POWEXP;
  fam.par[GS_COV_POWER] = 1.0;
  CHECK(gs_cov_model_valid(&fam, 2));
  fam.par[GS_COV_POWER] = 1.5;
  CHECK(gs_cov_model_problem(&fam, 2) == GS_COV_BAD_SPHERE);
  fam.metric = MATERN_EUCLIDEAN;
  CHECK(gs_cov_model_valid(&fam, 2));
  fam.par[GS_COV_POWER] = 2.5;
  CHECK(gs_cov_model_problem(&fam, 2) == GS_COV_BAD_SHAPE);
  /* stable: Gauss at alpha = 2 (variance 2), Cauchy at alpha = 1, beta = 0 */
  const double q[] = {-3.0, -0.5, 0.0, 2.0}, two = 2.0, one = 1.0, zero = 0.0;
  const double *gin[] = {q, &two, &zero, &one, &zero}, *cin[] = {q, &one, &zero, &one, &zero};
  const size_t slen[] = {4, 1, 1, 1, 1};
  CHECK(map_run(GS_OP_STABLE_D, 0, gin, slen, 4, out, msg) == GS_OK);
  for (int i = 0; i < 4; ++i) CHECK(near(out[i], exp(-q[i] * q[i] / 4.0) / sqrt(4.0 * M_PI), 1e-13));
  CHECK(map_run(GS_OP_STABLE_P, STABLE_FLAG_UPPER | STABLE_FLAG_LOG, cin, slen, 4, out, msg) == GS_OK);
  for (int i = 0; i < 4; ++i) CHECK(near(out[i], log(0.5 - atan(q[i]) / M_PI), 1e-13));
  /* the quantile inverts the probability (alpha = 1.5, beta = 0.5: quadrature) */
  const double p[] = {1e-6, 0.1, 0.5, 0.97}, alpha = 1.5, beta = 0.5;
  const double *qin[] = {p, &alpha, &beta, &one, &zero};
  double xq[4], back[4];
  CHECK(map_run(GS_OP_STABLE_Q, 0, qin, slen, 4, xq, msg) == GS_OK);
  const double *pin[] = {xq, &alpha, &beta, &one, &zero};
  CHECK(map_run(GS_OP_STABLE_P, 0, pin, slen, 4, back, msg) == GS_OK);
  for (int i = 0; i < 4; ++i) CHECK(near(back[i], p[i], 1e-9));
  /* an unknown op is an argument error with a message */
  msg[0] = '\0';
  CHECK(map_run(GS_OP_COUNT, 0, bin, blen, 4, out, msg) == GS_ERR_ARG && strlen(msg) > 0);
}

/* ---- the tile Cholesky's plan --------------------------------------------------- */

/* Every task of a one-device plan once: nt POTRF, nt(nt-1)/2 TRSM and SYRK,
 * nt(nt-1)(nt-2)/6 GEMM, every tile stored once; a task's operands are in
 * its slots when it runs (the slot holds the tile the plan says). */
static void test_plan(int nt, int slots)
{
  char msg[GS_MSG_LEN];
  tile_plan plan;
  CHECK(tile_plan_build(nt, 4, slots, 1, 0, &plan, msg) == GS_OK);
  long count[TILE_OP_KIND_COUNT] = {0};
  int holds[64], ok = 1;
  for (int s = 0; s < slots && s < 64; ++s) holds[s] = -1;
  for (long q = 0; q < plan.nops; ++q) {
    const tile_op *op = &plan.ops[q];
    ++count[op->kind];
    if (op->kind == TILE_OP_LOAD) {
      ok &= op->slot[0] >= 0 && op->slot[0] < slots;
      if (op->slot[0] >= 0 && op->slot[0] < 64) holds[op->slot[0]] = op->tile[0];
      continue;
    }
    for (int r = 0; r < 3; ++r)
      if (op->tile[r] >= 0) ok &= op->slot[r] >= 0 && op->slot[r] < 64 && holds[op->slot[r]] == op->tile[r];
  }
  const long t = nt;
  CHECK(ok);
  CHECK(count[TILE_OP_POTRF] == t);
  CHECK(count[TILE_OP_TRSM] == t * (t - 1) / 2);
  CHECK(count[TILE_OP_SYRK] == t * (t - 1) / 2);
  CHECK(count[TILE_OP_GEMM] == t * (t - 1) * (t - 2) / 6);
  CHECK(count[TILE_OP_STORE] == t * (t + 1) / 2 && plan.stores == count[TILE_OP_STORE]);
  CHECK(plan.loads == count[TILE_OP_LOAD] && plan.loads >= t * (t + 1) / 2);
  tile_plan_free(&plan);
}

/* ---- the tile Cholesky on the CPU, run from the plan ----------------------------- */

/* A = B B' / n + I for a fixed B with entries in [-1, 1]: n x n, column-major. */
static double *spd_matrix(int n)
{
  double *a = malloc(sizeof(double) * n * n);
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      double s = 0.0;
      for (int c = 0; c < n; ++c) s += sin(1.0 + 3.0 * i + 0.7 * c) * sin(1.0 + 3.0 * j + 0.7 * c);
      a[i + j * n] = a[j + i * n] = s / n + (i == j);
    }
  return a;
}

/* The textbook Cholesky factor of a, column by column, in the lower
 * triangle of l (the reference: no tiles, no packed kernels). */
static void chol_reference(int n, const double *a, double *l)
{
  for (int j = 0; j < n; ++j) {
    double d = a[j + j * n];
    for (int c = 0; c < j; ++c) d -= l[j + c * n] * l[j + c * n];
    l[j + j * n] = sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      double s = a[i + j * n];
      for (int c = 0; c < j; ++c) s -= l[i + c * n] * l[j + c * n];
      l[i + j * n] = s / l[j + j * n];
    }
  }
}

/* The lower triangle of a in nb x nb tiles, the tiles at least `low` tile
 * rows below the diagonal in FP32 (low = 0: all FP64). */
static gs_tile_matrix tiles_of(int n, int nb, const double *a, int low)
{
  gs_tile_matrix m = {.n = n, .nb = nb, .nt = (n + nb - 1) / nb};
  const long ntiles = gs_tile_count(m.nt);
  size_t bytes = 0;
  m.offset = malloc(sizeof(size_t) * ntiles), m.precision = malloc(ntiles), m.scale = malloc(sizeof(float) * ntiles);
  m.overflow = calloc(ntiles, 1);
  for (long t = 0; t < ntiles; ++t) {
    int i, j;
    gs_tile_coords(t, &i, &j);
    m.precision[t] = low > 0 && i - j >= low ? GS_TILE_FP32 : GS_TILE_FP64;
    m.low_tiles += m.precision[t] != GS_TILE_FP64;
    m.scale[t] = 1.0f;
    m.offset[t] = bytes;
    bytes += sizeof(double) * gs_tile_rows(&m, i) * gs_tile_rows(&m, j);
  }
  m.data = malloc(bytes);
  double *x = malloc(sizeof(double) * nb * nb);
  for (long t = 0; t < ntiles; ++t) {
    int i, j;
    gs_tile_coords(t, &i, &j);
    const int ri = gs_tile_rows(&m, i), rj = gs_tile_rows(&m, j);
    for (int c = 0; c < rj; ++c)
      for (int r = 0; r < ri; ++r) x[r + c * ri] = a[i * nb + r + (size_t)(j * nb + c) * n];
    gs_tile_write(&m, i, j, x);
  }
  free(x);
  return m;
}

static void tiles_free(gs_tile_matrix *m)
{
  free(m->offset), free(m->precision), free(m->scale), free(m->overflow), free(m->data);
}

/* max |L - ref| / max |ref| over the lower triangle of the tiles' factor. */
static double factor_error(const gs_tile_matrix *m, const double *ref)
{
  const int n = (int)m->n, nb = m->nb;
  double worst = 0.0, top = 0.0, x[64 * 64];
  for (int i = 0; i < m->nt; ++i)
    for (int j = 0; j <= i; ++j) {
      const int ri = gs_tile_rows(m, i), rj = gs_tile_rows(m, j);
      const double *t = gs_tile_read(m, i, j, x);
      for (int c = 0; c < rj; ++c)
        for (int r = i == j ? c : 0; r < ri; ++r) {
          const double want = ref[i * nb + r + (size_t)(j * nb + c) * n];
          worst = fmax(worst, fabs(t[r + c * ri] - want));
          top = fmax(top, fabs(want));
        }
    }
  return worst / top;
}

/* Runs the plan of an n x n matrix in nb tiles (nb <= 64) on two threads,
 * without its op `skip` (-1: none); the factor's error against the
 * reference, or 1 when the run failed. */
static double plan_run_error(int n, int nb, int low, long skip)
{
  char msg[GS_MSG_LEN];
  double *a = spd_matrix(n), *ref = calloc((size_t)n * n, sizeof(double));
  chol_reference(n, a, ref);
  gs_tile_matrix m = tiles_of(n, nb, a, low);
  tile_plan plan;
  gs_tile_info info = {0};
  double err = 1.0;
  CHECK(tile_plan_build(m.nt, 1, (int)gs_tile_count(m.nt), 1, 0, &plan, msg) == GS_OK);
  if (skip >= 0) { /* the plan without op `skip`, its columns' ends moved */
    memmove(plan.ops + skip, plan.ops + skip + 1, sizeof *plan.ops * (plan.nops - skip - 1));
    plan.nops--;
    for (int k = 0; k < plan.nt; ++k) plan.column_end[k] -= plan.column_end[k] > skip;
  }
  if (gs_tile_plan_run_cpu(&m, &plan, &(gs_tile_options){.threads = 2}, &info, msg) == GS_OK)
    err = factor_error(&m, ref);
  tile_plan_free(&plan);
  tiles_free(&m);
  free(a), free(ref);
  return err;
}

/* The CPU factor from the plan equals the textbook Cholesky factor, whole
 * tiles or a ragged last tile row, and FP32 tiles to their rounding. */
static void test_plan_cpu(void)
{
  const int cases[][2] = {{1, 1}, {7, 3}, {64, 64}, {96, 32}, {130, 32}, {150, 17}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    CHECK(plan_run_error(cases[c][0], cases[c][1], 0, -1) < 1e-13);
  CHECK(plan_run_error(150, 17, 2, -1) < 1e-5);
  CHECK(plan_run_error(150, 17, 2, -1) > 1e-10); /* the FP32 tiles were rounded */
}

/* Every compute op of the plan counts: without any one of them the factor
 * is wrong (or the run fails). */
static void test_plan_cpu_skip(int n, int nb)
{
  char msg[GS_MSG_LEN];
  tile_plan plan;
  int ok = 1, computes = 0;
  CHECK(tile_plan_build((n + nb - 1) / nb, 1, (int)gs_tile_count((n + nb - 1) / nb), 1, 0, &plan, msg) == GS_OK);
  for (long q = 0; q < plan.nops; ++q)
    if (plan.ops[q].kind != TILE_OP_LOAD && plan.ops[q].kind != TILE_OP_STORE) {
      ok &= plan_run_error(n, nb, 0, q) > 1e-6;
      ++computes;
    }
  CHECK(ok);
  CHECK(computes > 0);
  tile_plan_free(&plan);
}

static int progress_calls;
static double progress_last;

/* Records the fraction done; asks to stop at the third call. */
static int progress_stop_third(double done)
{
  const int ok = done > progress_last && done < 1.0;
  progress_last = ok ? done : 2.0; /* 2: out of order, every later call fails the check */
  return ++progress_calls == 3;
}

/* The run stops at the progress callback's request and at the first
 * leading minor that is not positive, which it reports as the textbook
 * factorization finds it. */
static void test_plan_cpu_stops(void)
{
  const int n = 120, nb = 16, nt = (n + nb - 1) / nb;
  char msg[GS_MSG_LEN];
  double *a = spd_matrix(n);
  tile_plan plan;
  gs_tile_info info = {0};
  CHECK(tile_plan_build(nt, 1, (int)gs_tile_count(nt), 1, 0, &plan, msg) == GS_OK);
  gs_tile_matrix m = tiles_of(n, nb, a, 0);
  CHECK(gs_tile_plan_run_cpu(&m, &plan, &(gs_tile_options){.threads = 2, .progress = progress_stop_third}, &info,
                             msg) == GS_ERR_INTERRUPTED);
  CHECK(progress_calls == 3 && progress_last < 1.0);
  tiles_free(&m);
  /* A_77,77 lowered below sum_c L_77,c^2: the minor of order 78 fails */
  double *l = calloc((size_t)n * n, sizeof(double)), d = a[77 + 77 * n];
  chol_reference(n, a, l);
  for (int c = 0; c < 77; ++c) d -= l[77 + c * n] * l[77 + c * n];
  a[77 + 77 * n] -= 1.5 * d;
  m = tiles_of(n, nb, a, 0);
  CHECK(gs_tile_plan_run_cpu(&m, &plan, &(gs_tile_options){.threads = 2}, &info, msg) == GS_ERR_NOT_PD);
  CHECK(info.failed_minor == 78 && strstr(msg, "order 78") != NULL);
  tiles_free(&m);
  tile_plan_free(&plan);
  free(a), free(l);
}

/* The packed forward solve with many right-hand sides: L X = B to rounding,
 * over more than one panel of rows and an odd number of columns. */
static void test_dense_trsm(int n, int k)
{
  double *l = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * k),
         *x = malloc(sizeof(double) * n * k);
  char msg[GS_MSG_LEN];
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) l[i + j * n] = i == j ? 2.0 + i % 3 : (i > j ? sin(7.0 * i + j) / n : 0.0);
  for (int c = 0; c < n * k; ++c) b[c] = x[c] = cos(3.0 * c);
  CHECK(gs_dense_trsm_lln(n, k, l, n, x, n, 2, msg) == GS_OK);
  double worst = 0.0;
  for (int c = 0; c < k; ++c)
    for (int i = 0; i < n; ++i) {
      double s = 0.0;
      for (int j = 0; j <= i; ++j) s += l[i + j * n] * x[j + c * n];
      worst = fmax(worst, fabs(s - b[i + c * n]));
    }
  CHECK(worst < 1e-13);
  free(l);
  free(b);
  free(x);
}

/* The GPU's batched tridiagonal solve (tridiag_math.h) run lane by lane on
 * the CPU, the cyclic reduction of the 64-row reduced system as the warp's
 * shuffles pair its rows: the residual of a diagonally dominant system of
 * order n is at rounding level. */
static void test_tridiag_partition(int n)
{
  const int M = (int)tridiag_chunk_rows(n), rows = 32 * M;
  double *a = calloc(rows, sizeof(double)), *g = malloc(rows * sizeof(double)), *c = calloc(rows, sizeof(double)),
         *d = calloc(rows, sizeof(double));
  double *dl = malloc(sizeof(double) * n), *dd = malloc(sizeof(double) * n), *du = malloc(sizeof(double) * n),
         *b = malloc(sizeof(double) * n);
  for (int i = 0; i < rows; ++i) g[i] = 1.0; /* rows past n stay identity rows */
  for (int i = 0; i < n; ++i) {
    dl[i] = i > 0 ? sin(3.0 * i + 1.0) : 0.0;
    du[i] = i + 1 < n ? cos(5.0 * i) : 0.0;
    dd[i] = 2.5 + fabs(sin((double)i));
    b[i] = cos(2.0 * i + 0.5);
    a[i] = dl[i], g[i] = dd[i], c[i] = du[i], d[i] = b[i];
  }
  tridiag_row red[64], next[64];
  const tridiag_row zero = {0.0, 0.0, 0.0};
  for (int lane = 0; lane < 32; ++lane) {
    const int o = lane * M;
    tridiag_chunk_eliminate(M, a + o, g + o, c + o, d + o);
    red[2 * lane] = (tridiag_row){a[o], c[o], d[o]};
    red[2 * lane + 1] = (tridiag_row){a[o + M - 1], c[o + M - 1], d[o + M - 1]};
  }
  for (int s = 1; s < 64; s *= 2) {
    for (int j = 0; j < 64; ++j) next[j] = tridiag_reduce(red[j], j >= s ? red[j - s] : zero, j + s < 64 ? red[j + s] : zero);
    memcpy(red, next, sizeof red);
  }
  for (int lane = 0; lane < 32; ++lane)
    tridiag_chunk_substitute(M, a + lane * M, c + lane * M, d + lane * M, red[2 * lane].d, red[2 * lane + 1].d);
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    const double ax = dl[i] * (i > 0 ? d[i - 1] : 0.0) + dd[i] * d[i] + du[i] * (i + 1 < n ? d[i + 1] : 0.0);
    worst = fmax(worst, fabs(ax - b[i]));
  }
  CHECK(worst < 1e-14);
  free(a), free(g), free(c), free(d), free(dl), free(dd), free(du), free(b);
}

int main(void)
{
  test_tables();
  test_bessel();
  test_map();
  test_dense_trsm(300, 9);
  test_dense_trsm(5, 17);
  test_plan(1, 3);
  test_plan(7, 40); /* in core: every tile fits */
  test_plan(9, 6);  /* out of core: tiles are evicted and loaded again */
  CHECK(tile_plan_build(5, 4, 2, 1, 0, &(tile_plan){0}, (char[GS_MSG_LEN]){0}) != GS_OK);
  test_plan_cpu();
  test_plan_cpu_skip(50, 12); /* 5 tile rows, the last of 2 */
  test_plan_cpu_stops();
  const int tridiag_orders[] = {1, 2, 3, 31, 64, 96, 97, 1000, 1024, 1025, 5000};
  for (size_t i = 0; i < sizeof tridiag_orders / sizeof tridiag_orders[0]; ++i) test_tridiag_partition(tridiag_orders[i]);
  printf("core-test: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
