/* The GBEES CPU path on 1 and on T threads, from C alone (no R), with the
 * time of each phase, on the cases of inst/bench/gbees.R (bench_gbees_l63
 * and bench_gbees_l96, which these must follow): Lorenz '63 (x0 = (-11.5, -10,
 * 9.5), identity covariance, cells 0.5, threshold 1e-7, to t = 1, the update
 * with y = -8 on state 3 of variance 1, then to t = 2) and Lorenz '96 (n = 6,
 * F = 4, x0 = (4.5, 4, ..., 4), covariance 0.04 I, cells 0.1, threshold 8e-9)
 * to a short end time (none if L96_T_END is 0). Each case runs PAIRS pairs,
 * one thread then THREADS, and prints every run's seconds per phase, its
 * cells, its cell updates per second over the whole run (the set-up of the
 * initial box included) and a checksum of the final density (the same on any number of
 * threads), every pair's ratio, and the ratios of the fastest runs and of
 * the medians: on a host shared with other work, the time of one run, even
 * on one thread, moves by more than the effects measured, so a speed-up is
 * read from several pairs taken in turn.
 *
 *   make gbees-threads   (builds .lib/gbees-threads with gcc; no R or GPU needed)
 *   .lib/gbees-threads [THREADS [L96_T_END [PAIRS]]]   (default: all cores, 0.02, 3) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gs_cpu.h"
#include "gs_gbees.h"

static const char *phase_names[] = {
#define GS_GBEES_PHASE_NAME(code, name) name,
    GS_GBEES_PHASES(GS_GBEES_PHASE_NAME)
#undef GS_GBEES_PHASE_NAME
};

typedef struct {
  double seconds, checksum, cells_per_s;
  gs_gbees_info info;
} run_result;

static void die(const char *what, const char *msg)
{
  fprintf(stderr, "%s: %s\n", what, msg);
  exit(1);
}

/* sum over cells of p * (1 + key . weights), to tell densities apart */
static double checksum(const gs_gbees *g)
{
  size_t n = gs_gbees_cell_count(g);
  int d = gs_gbees_dim(g);
  int32_t *key = malloc(n * d * sizeof *key);
  double *p = malloc(n * sizeof *p), s = 0.0;
  char msg[GS_MSG_LEN];
  if (!key || !p || gs_gbees_cells(g, key, p, msg) != GS_OK) die("cells", "read-out failed");
  for (size_t c = 0; c < n; c++) {
    double w = 1.0;
    for (int i = 0; i < d; i++) w += (i + 1) * 1e-3 * key[c * d + i];
    s += p[c] * w;
  }
  free(key);
  free(p);
  return s;
}

static run_result run_case(int l96, int threads, double l96_t_end)
{
  int d = l96 ? 6 : 3;
  gs_gbees_model model = {.kind = l96 ? GS_GBEES_LORENZ96 : GS_GBEES_LORENZ63, .dim = d, .autonomous = 1};
  gs_gbees_options opt = {.threshold = l96 ? 8e-9 : 1e-7, .cfl = 1.0, .prune_every = 20, .threads = threads,
                          .device = -1};
  double prec[GS_GBEES_MAX_DIM * GS_GBEES_MAX_DIM] = {0}, var = l96 ? 0.04 : 1.0;
  int half_width[GS_GBEES_MAX_DIM];
  if (l96) {
    model.par[0] = 4.0;
  } else {
    model.par[0] = 4.0, model.par[1] = 1.0, model.par[2] = 48.0;
  }
  for (int i = 0; i < d; i++) {
    opt.center[i] = l96 ? (i == 0 ? 4.5 : 4.0) : (double[]){-11.5, -10.0, 9.5}[i];
    opt.dx[i] = l96 ? 0.1 : 0.5;
    prec[i * d + i] = 1.0 / var;
    half_width[i] = (int)lround(3.0 * sqrt(var) / opt.dx[i]);
  }
  char msg[GS_MSG_LEN];
  gs_gbees *g = NULL;
  double t0 = gs_wall_seconds();
  if (gs_gbees_create(&model, &opt, prec, half_width, 0.0, &g, msg) != GS_OK) die("create", msg);
  if (l96) {
    if (gs_gbees_propagate(g, l96_t_end, msg) != GS_OK) die("propagate", msg);
  } else {
    int index = 2;
    double L = 1.0, y = -8.0;
    gs_gbees_measurement_spec spec = {.dim = 3, .m = 1, .index = &index, .L = &L, .device = -1};
    gs_gbees_measurement *h = NULL;
    if (gs_gbees_measurement_create(&spec, &h, msg) != GS_OK) die("measurement", msg);
    if (gs_gbees_propagate(g, 1.0, msg) != GS_OK || gs_gbees_measure(g, h, 1.0, 1, &y, msg) != GS_OK ||
        gs_gbees_propagate(g, 2.0, msg) != GS_OK)
      die("propagate", msg);
    gs_gbees_measurement_free(h);
  }
  run_result r = {.seconds = gs_wall_seconds() - t0};
  gs_gbees_get_info(g, &r.info);
  r.checksum = checksum(g);
  r.cells_per_s = r.info.cell_updates / r.seconds;
  gs_gbees_free(g);
  return r;
}

static void report(const char *name, int threads, const run_result *r)
{
  printf("%-8s %2d threads  %8.4f s  steps %6ld  peak cells %9zu  %.3e cell updates/s  checksum %.15e\n", name,
         threads, r->seconds, r->info.steps, r->info.peak_cells, r->cells_per_s, r->checksum);
  printf("         phases:");
  for (int k = 0; k < GS_GBEES_PHASE_COUNT; k++) printf(" %s %.4f", phase_names[k], r->info.phase_seconds[k]);
  printf("\n");
}

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *x, int n)
{
  qsort(x, (size_t)n, sizeof *x, by_value);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* `pairs` runs on one thread, each followed by one on all, so that a change
 * in the host's speed during the runs reaches both; each pair's ratio, then
 * the ratio of the fastest runs and of the medians */
static void scaling(int l96, int threads, double l96_t_end, int pairs)
{
  const char *name = l96 ? "L96" : "L63";
  double one[64], all[64], lowest_one = INFINITY, lowest_all = INFINITY, checksum = NAN;
  for (int k = 0; k < pairs; k++) {
    run_result r1 = run_case(l96, 1, l96_t_end), rt = run_case(l96, threads, l96_t_end);
    report(name, 1, &r1);
    report(name, threads, &rt);
    printf("%-8s pair %d: speed-up %.2fx (advect %.2fx)\n", name, k + 1, r1.seconds / rt.seconds,
           r1.info.phase_seconds[GS_GBEES_PHASE_ADVECT] / rt.info.phase_seconds[GS_GBEES_PHASE_ADVECT]);
    if (k == 0) checksum = r1.checksum;
    if (r1.checksum != checksum || rt.checksum != checksum) printf("%-8s CHECKSUMS DIFFER\n", name);
    one[k] = r1.seconds;
    all[k] = rt.seconds;
    lowest_one = fmin(lowest_one, one[k]);
    lowest_all = fmin(lowest_all, all[k]);
  }
  double median_one = median(one, pairs), median_all = median(all, pairs);
  printf("%-8s fastest %.4f / %.4f s: %.2fx; medians %.4f / %.4f s: %.2fx (1 / %d threads, %d pairs)\n", name,
         lowest_one, lowest_all, lowest_one / lowest_all, median_one, median_all, median_one / median_all, threads,
         pairs);
}

int main(int argc, char **argv)
{
  int threads = argc > 1 ? atoi(argv[1]) : 0;
  double l96_t_end = argc > 2 ? atof(argv[2]) : 0.02;
  int pairs = argc > 3 ? atoi(argv[3]) : 3;
  if (threads < 1) threads = gs_cpu_threads(0);
  if (pairs < 1 || pairs > 64) {
    fprintf(stderr, "PAIRS must be 1 to 64\n");
    return 1;
  }
  scaling(0, threads, l96_t_end, pairs);
  if (l96_t_end > 0.0) scaling(1, threads, l96_t_end, pairs);
  return 0;
}
