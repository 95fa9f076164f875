/* How far the host's cores scale, one thread against all of them, for three
 * kinds of work, so that a multi-threaded code's speed-up can be read against
 * what the machine allows:
 *   compute  a chain of dependent multiply-adds per thread, in registers
 *            (shows how far the clock drops when all cores run);
 *   stream   a sum over an array far larger than the caches (bandwidth);
 *   gather   sums of 12 entries at random places of such an array, per
 *            entry (scattered reads, as a cell reading its neighbours
 *            through links, the GBEES flux update);
 *   stencil  the GBEES step's pattern: steps of a parallel region each,
 *            with two sweeps over the cells of a SIDE^3 cube in which every
 *            cell reads its 6 neighbours' values written by the sweep
 *            before, on other threads; the cells either in order
 *            (neighbours mostly near in memory and on the same thread) or
 *            shuffled (neighbours anywhere). SIDE 35 (42,875 cells, the
 *            Lorenz '63 grid's size) runs 1,138 steps, as that case does;
 *            larger cubes fewer, for the same work.
 * Each kind runs the same total work on 1 and on T threads; the rates and
 * the ratio are printed, then what a barrier and a parallel region cost on
 * T threads.
 *
 *   gcc -O2 -fopenmp tools/cpu-scaling.c -o /tmp/cpu-scaling
 *   /tmp/cpu-scaling [THREADS [MEGABYTES [SIDE]]]   (default: all cores, 1024 MB, 35) */
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

#define STENCIL_LINKS 6
/* 1,138 steps of 35^3 cells; other sides keep the work */
#define STENCIL_WORK (1138.0 * 35 * 35 * 35)

typedef struct {
  int side, cells, steps;
  uint32_t *nbr;
  double *a, *b;
} stencil_grid;

/* The cube's cells at place[c] (c in order: the identity), each linked to
 * its 6 neighbours, wrapping at the faces. */
static void stencil_links(stencil_grid *g, const uint32_t *place)
{
  const int side = g->side;
  for (int i = 0; i < side; i++)
    for (int j = 0; j < side; j++)
      for (int k = 0; k < side; k++) {
        int c = (i * side + j) * side + k;
        int up = (i + 1) % side, down = (i + side - 1) % side, right = (j + 1) % side, left = (j + side - 1) % side;
        int at[STENCIL_LINKS] = {(up * side + j) * side + k,    (down * side + j) * side + k,
                                 (i * side + right) * side + k, (i * side + left) * side + k,
                                 (i * side + j) * side + (k + 1) % side, (i * side + j) * side + (k + side - 1) % side};
        for (int l = 0; l < STENCIL_LINKS; l++) g->nbr[(size_t)place[c] * STENCIL_LINKS + l] = place[at[l]];
        g->a[place[c]] = 1e-3 * (c % 1000), g->b[place[c]] = 0.0;
      }
}

static void stencil_sweep(const stencil_grid *g, const double *from, double *to)
{
#pragma omp for schedule(static)
  for (int c = 0; c < g->cells; c++) {
    double v = from[c];
    for (int l = 0; l < STENCIL_LINKS; l++) v += from[g->nbr[(size_t)c * STENCIL_LINKS + l]];
    to[c] = v * (1.0 / (STENCIL_LINKS + 1));
  }
}

static double stencil(int threads, stencil_grid *g)
{
  for (int s = 0; s < g->steps; s++) {
#pragma omp parallel num_threads(threads)
    {
      stencil_sweep(g, g->a, g->b);
      stencil_sweep(g, g->b, g->a);
    }
  }
  return g->a[0];
}

/* What a team's synchronisation costs, in seconds: an OpenMP barrier
 * (*barrier) and the start and end of a parallel region (*region), each the
 * faster of two runs of 20,000. */
static void sync_costs(int threads, double *barrier, double *region)
{
  const int n = 20000;
  *barrier = *region = 1e300;
  for (int rep = 0; rep < 2; rep++) {
    double t0 = now();
#pragma omp parallel num_threads(threads)
    for (int k = 0; k < n; k++) {
#pragma omp barrier
    }
    double t1 = now();
    for (int k = 0; k < n; k++) {
#pragma omp parallel num_threads(threads)
      __asm__ volatile("");
    }
    double t2 = now();
    *barrier = (t1 - t0) / n < *barrier ? (t1 - t0) / n : *barrier;
    *region = (t2 - t1) / n < *region ? (t2 - t1) / n : *region;
  }
}

/* Seconds of the faster of two runs of one kind. */
static double best_seconds(int kind, int threads, const double *x, const uint32_t *at, size_t n, stencil_grid *g,
                           double *sink)
{
  double best = 1e300;
  for (int rep = 0; rep < 2; rep++) {
    double t0 = now();
    if (kind == 0) *sink += compute(threads, 400000000L);
    else if (kind == 1) *sink += stream(threads, x, n);
    else if (kind == 2) *sink += gather(threads, x, at, n);
    else *sink += stencil(threads, &g[kind - 3]);
    double t = now() - t0;
    if (t < best) best = t;
  }
  return best;
}

/* The data (x, at, the cubes' links and values) set up, then every kind on
 * 1 and on `threads` threads. */
static void run(int threads, double *x, uint32_t *at, size_t n, uint32_t *place, stencil_grid *grids)
{
  uint64_t state = 88172645463325252ULL;
#pragma omp parallel for num_threads(threads)
  for (size_t j = 0; j < n; j++) x[j] = 1e-9 * (double)(j % 1000);
  for (size_t j = 0; j < n; j++) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    at[j] = (uint32_t)(state % n);
  }
  for (uint32_t c = 0; c < (uint32_t)grids[0].cells; c++) place[c] = c;
  stencil_links(&grids[0], place);
  for (uint32_t c = (uint32_t)grids[0].cells - 1; c > 0; c--) { /* Fisher-Yates */
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    uint32_t other = (uint32_t)(state % (c + 1)), keep = place[c];
    place[c] = place[other], place[other] = keep;
  }
  stencil_links(&grids[1], place);
  const char *names[] = {"compute", "stream", "gather", "stencil, cells in order", "stencil, cells shuffled"};
  double sink = 0.0;
  printf("%-24s  1 thread s  %2d threads s  speed-up\n", "kind", threads);
  for (int kind = 0; kind < 5; kind++) {
    double one = best_seconds(kind, 1, x, at, n, grids, &sink), all = best_seconds(kind, threads, x, at, n, grids, &sink);
    printf("%-24s  %10.3f  %12.3f  %7.1fx\n", names[kind], one, all, one / all);
  }
  double barrier, region;
  sync_costs(threads, &barrier, &region);
  printf("on %d threads: a barrier %.2f us, a parallel region %.2f us\n", threads, 1e6 * barrier, 1e6 * region);
  printf("(checksum %g)\n", sink);
}

int main(int argc, char **argv)
{
  int threads = argc > 1 ? atoi(argv[1]) : omp_get_num_procs();
  size_t mb = argc > 2 ? (size_t)atol(argv[2]) : 1024, n = mb * 1024 * 1024 / sizeof(double);
  int side = argc > 3 ? atoi(argv[3]) : 35;
  if (threads < 1 || n < GATHER_READS || n > UINT32_MAX || side < 3 || side > 600) {
    fprintf(stderr, "usage: cpu-scaling [THREADS [MEGABYTES <= 32768 [SIDE in 3..600]]]\n");
    return 1;
  }
  const int cells = side * side * side;
  stencil_grid grids[2];
  for (int k = 0; k < 2; k++) {
    grids[k].side = side, grids[k].cells = cells, grids[k].steps = (int)(STENCIL_WORK / cells + 0.5);
    grids[k].nbr = malloc((size_t)cells * STENCIL_LINKS * sizeof(uint32_t));
    grids[k].a = malloc(2 * (size_t)cells * sizeof(double));
    grids[k].b = grids[k].a ? grids[k].a + cells : NULL;
  }
  double *x = malloc(n * sizeof *x);
  uint32_t *at = malloc(n * sizeof *at), *place = malloc((size_t)cells * sizeof *place);
  int fits = x && at && place && grids[0].nbr && grids[0].a && grids[1].nbr && grids[1].a;
  if (!fits) fprintf(stderr, "cpu-scaling: %zu MB and a cube of side %d do not fit in memory\n", mb, side);
  if (fits) run(threads, x, at, n, place, grids);
  free(x), free(at), free(place);
  for (int k = 0; k < 2; k++) free(grids[k].nbr), free(grids[k].a);
  return fits ? 0 : 1;
}
