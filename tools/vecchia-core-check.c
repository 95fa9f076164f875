/* A check and benchmark of the Vecchia core without R: on random locations
 * in the unit square it builds the maxmin ordering and neighbours, then
 * compares the GPU with the CPU (likelihood sums, gradient, information,
 * factor, W b and W^-1 b) and times one likelihood with gradient and
 * information on each. Build and run on a GPU host (from src/):
 *
 *   sh ../tools/vecchia-core-check.sh [n ...]
 *
 * Prints one line per comparison and per timing; exits 1 when the GPU and
 * CPU disagree beyond 1e-10 relative. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_vecchia.h"

static double uniform(unsigned long long *s)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return ((*s >> 11) + 0.5) / 9007199254740992.0;
}

static double max_rel(const double *a, const double *b, long len)
{
  double worst = 0.0;
  for (long i = 0; i < len; ++i) {
    double d = fabs(a[i] - b[i]) / fmax(fabs(b[i]), 1e-300);
    if (d > worst || isnan(d)) worst = isnan(d) ? INFINITY : d;
  }
  return worst;
}

#define CHECK(call)                                                   \
  do {                                                                \
    gs_status st_ = (call);                                           \
    if (st_ != GS_OK) {                                               \
      fprintf(stderr, "%s failed: %s\n", #call, msg);                 \
      exit(2);                                                        \
    }                                                                 \
  } while (0)

typedef struct {
  long n;
  int m, p;
  double *locs, *y, *X;
  int *nn;
} problem;

static problem make_problem(long n, int m, int p)
{
  problem pr = {.n = n, .m = m, .p = p};
  char msg[GS_MSG_LEN];
  unsigned long long s = 12345;
  double *raw = malloc(sizeof(double) * n * 2);
  long *order = malloc(sizeof(long) * n);
  pr.locs = malloc(sizeof(double) * n * 2);
  pr.y = malloc(sizeof(double) * n);
  pr.X = malloc(sizeof(double) * n * p);
  pr.nn = malloc(sizeof(int) * n * (m + 1));
  for (long i = 0; i < 2 * n; ++i) raw[i] = uniform(&s);
  double t0 = gs_wall_seconds();
  CHECK(gs_vecchia_maxmin(raw, n, 2, order, NULL, msg));
  double t1 = gs_wall_seconds();
  for (long i = 0; i < n; ++i) {
    pr.locs[i] = raw[order[i]];
    pr.locs[i + n] = raw[order[i] + n];
    pr.y[i] = uniform(&s) - 0.5 + sin(6.0 * pr.locs[i]);
    for (int k = 0; k < p; ++k) pr.X[i + k * n] = (k == 0) ? 1.0 : pr.locs[i + (k % 2) * n];
  }
  long dup[2];
  CHECK(gs_vecchia_neighbors(pr.locs, n, 2, m, 0, pr.nn, dup, NULL, msg));
  printf("n = %ld, m = %d: maxmin %.3f s, neighbours %.3f s (%d threads)\n", n, m, t1 - t0, gs_wall_seconds() - t1,
         gs_cpu_threads(0));
  free(raw);
  free(order);
  return pr;
}

static gs_vecchia *open_object(const problem *pr, int device)
{
  char msg[GS_MSG_LEN];
  gs_vecchia *v = NULL;
  gs_vecchia_args a = {.device = device, .locs = pr->locs, .n = pr->n, .latent = pr->n, .dim = 2, .nn = pr->nn,
                       .m = pr->m, .threads = 0};
  CHECK(gs_vecchia_create(&a, &v, msg));
  return v;
}

/* Seconds of the median of 3 likelihoods with gradient and information. */
static double time_grad_info(gs_vecchia *v, const problem *pr, const gs_cov_model *prm, int deriv, double *sums)
{
  char msg[GS_MSG_LEN];
  long failed;
  double t[3];
  CHECK(gs_vecchia_grad_info(v, prm, deriv, pr->y, pr->X, pr->p, sums, &failed, msg)); /* warm-up */
  for (int r = 0; r < 3; ++r) {
    double t0 = gs_wall_seconds();
    CHECK(gs_vecchia_grad_info(v, prm, deriv, pr->y, pr->X, pr->p, sums, &failed, msg));
    t[r] = gs_wall_seconds() - t0;
  }
  double lo = fmin(t[0], fmin(t[1], t[2])), hi = fmax(t[0], fmax(t[1], t[2]));
  return t[0] + t[1] + t[2] - lo - hi;
}

static int compare(const problem *pr, gs_vecchia *cpu, gs_vecchia *gpu, const gs_cov_model *prm)
{
  char msg[GS_MSG_LEN];
  long failed;
  int bad = 0;
  const int deriv = 15, K = gs_vecchia_sums_size(pr->p, deriv);
  double *sc = malloc(sizeof(double) * K), *sg = malloc(sizeof(double) * K);
  double tc = time_grad_info(cpu, pr, prm, deriv, sc), tg = time_grad_info(gpu, pr, prm, deriv, sg);
  double e = max_rel(sg, sc, K);
  bad |= !(e < 1e-10);
  printf("  nu = %.2f: sums max rel diff %.2e; loglik+grad+info cpu %.4f s, gpu %.4f s, ratio %.1f\n",
         prm->smoothness, e, tc, tg, tc / tg);
  tc = time_grad_info(cpu, pr, prm, 11, sc); /* smoothness fixed */
  tg = time_grad_info(gpu, pr, prm, 11, sg);
  printf("  nu = %.2f fixed (3 parameters): cpu %.4f s, gpu %.4f s, ratio %.1f\n", prm->smoothness, tc, tg, tc / tg);
  double lc, lg;
  CHECK(gs_vecchia_factor(cpu, prm, &lc, &failed, msg));
  CHECK(gs_vecchia_factor(gpu, prm, &lg, &failed, msg));
  const long n = pr->n;
  double *b = malloc(sizeof(double) * n * 2), *oc = malloc(sizeof(double) * n * 2), *og = malloc(sizeof(double) * n * 2);
  for (long i = 0; i < n; ++i) b[i] = pr->y[i], b[i + n] = pr->X[i + (pr->p - 1) * n];
  CHECK(gs_vecchia_apply(cpu, GS_VECCHIA_FORWARD, b, 2, oc, msg));
  CHECK(gs_vecchia_apply(gpu, GS_VECCHIA_FORWARD, b, 2, og, msg));
  double ea = max_rel(og, oc, 2 * n);
  CHECK(gs_vecchia_apply(cpu, GS_VECCHIA_INVERSE, b, 2, oc, msg));
  CHECK(gs_vecchia_apply(gpu, GS_VECCHIA_INVERSE, b, 2, og, msg));
  double ei = max_rel(og, oc, 2 * n);
  printf("  logdet rel diff %.2e, W b max rel diff %.2e, W^-1 b max rel diff %.2e\n", fabs(lg / lc - 1), ea, ei);
  bad |= !(fabs(lg / lc - 1) < 1e-12) || !(ea < 1e-10) || !(ei < 1e-8);
  free(sc);
  free(sg);
  free(b);
  free(oc);
  free(og);
  return bad;
}

int main(int argc, char **argv)
{
  int bad = 0;
  for (int a = 1; a < argc || a == 1; ++a) {
    const long n = (argc > 1) ? atol(argv[a]) : 20000;
    problem pr = make_problem(n, 30, 2);
    gs_vecchia *cpu = open_object(&pr, -1), *gpu = open_object(&pr, 0);
    const double nus[2] = {0.5, 1.3};
    for (int k = 0; k < 2; ++k) {
      const gs_cov_model prm = gs_cov_matern(MATERN_EUCLIDEAN, 1.0, 0.1, nus[k], 0.1);
      bad |= compare(&pr, cpu, gpu, &prm);
    }
    gs_vecchia_free(cpu);
    gs_vecchia_free(gpu);
    free(pr.locs);
    free(pr.y);
    free(pr.X);
    free(pr.nn);
  }
  printf(bad ? "FAILED\n" : "ok\n");
  return bad;
}
