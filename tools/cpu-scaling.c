/* How far the host's cores scale, one thread against all of them, for three
 * kinds of work, so that a multi-threaded code's speed-up can be read against
 * what the machine allows:
 *   compute  a chain of dependent multiply-adds per thread, in registers
 *            (shows how far the clock drops when all cores run);
 *   stream   a sum over an array far larger than the caches (bandwidth);
 *   gather   sums of 12 entries at random places of such an array, per
 *            entry (scattered reads, as a cell reading its neighbours
 *            through links, the GBEES flux update).
 * Each kind runs the same total work on 1 and on T threads; the rates and
 * the ratio are printed.
 *
 *   gcc -O2 -fopenmp tools/cpu-scaling.c -o /tmp/cpu-scaling
 *   /tmp/cpu-scaling [THREADS [MEGABYTES]]   (default: all cores, 1024 MB) */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define GATHER_READS 12

static double now(void)
{
  return omp_get_wtime();
}

static double compute(int threads, long steps)
{
  double total = 0.0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
  {
    double a = 1.0 + 1e-9 * omp_get_thread_num(), b = 0.5, c = 0.25, d = 0.125;
    long mine = steps / threads;
    for (long k = 0; k < mine; k++) {
      a = a * 0.999999 + 1e-7, b = b * 0.999999 + 1e-7, c = c * 0.999999 + 1e-7, d = d * 0.999999 + 1e-7;
    }
    total += a + b + c + d;
  }
  return total;
}

static double stream(int threads, const double *x, size_t n)
{
  double total = 0.0;
#pragma omp parallel for num_threads(threads) reduction(+ : total) schedule(static)
  for (size_t j = 0; j < n; j++) total += x[j];
  return total;
}

static double gather(int threads, const double *x, const uint32_t *at, size_t n)
{
  double total = 0.0;
#pragma omp parallel for num_threads(threads) reduction(+ : total) schedule(static)
  for (size_t j = 0; j < n / GATHER_READS; j++) {
    double s = x[j];
    for (int k = 0; k < GATHER_READS; k++) s += x[at[j * GATHER_READS + k]];
    total += s;
  }
  return total;
}

/* Seconds of the faster of two runs of one kind. */
static double best_seconds(int kind, int threads, const double *x, const uint32_t *at, size_t n, double *sink)
{
  double best = 1e300;
  for (int rep = 0; rep < 2; rep++) {
    double t0 = now();
    if (kind == 0) *sink += compute(threads, 400000000L);
    else if (kind == 1) *sink += stream(threads, x, n);
    else *sink += gather(threads, x, at, n);
    double t = now() - t0;
    if (t < best) best = t;
  }
  return best;
}

int main(int argc, char **argv)
{
  int threads = argc > 1 ? atoi(argv[1]) : omp_get_num_procs();
  size_t mb = argc > 2 ? (size_t)atol(argv[2]) : 1024, n = mb * 1024 * 1024 / sizeof(double);
  if (threads < 1 || n < GATHER_READS || n > UINT32_MAX) {
    fprintf(stderr, "usage: cpu-scaling [THREADS [MEGABYTES <= 32768]]\n");
    return 1;
  }
  double *x = malloc(n * sizeof *x);
  uint32_t *at = malloc(n * sizeof *at);
  if (!x || !at) {
    fprintf(stderr, "cpu-scaling: %zu MB do not fit in memory\n", mb);
    free(x), free(at);
    return 1;
  }
  uint64_t state = 88172645463325252ULL;
#pragma omp parallel for num_threads(threads)
  for (size_t j = 0; j < n; j++) x[j] = 1e-9 * (double)(j % 1000);
  for (size_t j = 0; j < n; j++) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    at[j] = (uint32_t)(state % n);
  }
  const char *names[] = {"compute", "stream", "gather"};
  double sink = 0.0;
  printf("kind      1 thread s  %2d threads s  speed-up\n", threads);
  for (int kind = 0; kind < 3; kind++) {
    double one = best_seconds(kind, 1, x, at, n, &sink), all = best_seconds(kind, threads, x, at, n, &sink);
    printf("%-8s  %10.3f  %12.3f  %7.1fx\n", names[kind], one, all, one / all);
  }
  printf("(checksum %g)\n", sink);
  free(x), free(at);
  return 0;
}
