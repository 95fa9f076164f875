/* An approximate maxmin ordering by nested r-nets (Schäfer, Katzfuss and
 * Owhadi 2021, "Sparse Cholesky factorization by Kullback-Leibler
 * minimization", sec. 3.2: an ordering whose distances are within a constant
 * factor of the maxmin ones gives the same accuracy of the approximation).
 *
 * After the point nearest the mean, level k = 1, 2, ... takes radius
 * r_k = D / 2^k (D the largest extent of the locations) and goes once over
 * the points not yet ordered, taking each that lies at distance r_k or more
 * from every point taken so far. A point left at the end of level k is
 * within r_k of a taken one, so a point taken at level k + 1 is between
 * r_{k+1} and 2 r_{k+1} from the earlier ones: its maxmin distance to within
 * a factor of 2. The exact ordering pops the farthest point one at a time
 * (sequential heap and tree work with scattered memory access); a level here
 * is one pass in Z-order (Morton order) over the points left, looking up the
 * cells of width r_k around each: a point within r_k of x lies in the 3^dim
 * cells around x's cell. A level's points go into the ordering in a fixed
 * scramble, not in Z-order: they are r_k apart whatever their order, and a
 * scramble keeps the sweep out of the conditioning sets.
 *
 * Cells are prefixes of each point's Morton key of `bits` bits per coordinate,
 * so levels stop at k = bits (31 for 1 or 2 coordinates, 21 for 3): points
 * still left are within D 2^-bits of a taken point, nearly coinciding, and
 * go last. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_vecchia.h"
#include "vecchia_internal.h"

#define NET_BATCH 65536L

static int net_bits(int dim) { return dim == 3 ? 21 : 31; }

/* The Morton key of cell c (bits per coordinate): bit j of coordinate d at
 * bit j dim + d. */
static uint64_t morton_encode(const uint64_t *c, int dim, int bits)
{
  uint64_t key = 0;
  for (int j = bits - 1; j >= 0; --j)
    for (int d = 0; d < dim; ++d) key = (key << 1) | ((c[d] >> j) & 1u);
  return key;
}

/* Points as Morton keys with their coordinates (row-major) and indices. */
typedef struct {
  uint64_t *key;
  double *x;
  long *index, count;
} net_points;

/* The points taken so far, in two runs sorted by Morton key: `taken`
 * (earlier levels) and `fresh` (this level, in scan order, which is
 * Z-order). A cell at level k is a prefix of the key, so its points are one
 * contiguous range of each run: indexed by cell while the level has at most
 * about 2n cells, found by binary search on finer levels (where few points
 * are left); a pass in Z-order looks up nearby cells one after another,
 * which keeps the memory it reads in cache. */
typedef struct {
  int dim, bits, level;
  double r2;
  /* the bits of each coordinate in a cell code of the level (see grid_covers) */
  uint64_t coord_bits[GS_VECCHIA_NET_MAX_DIM];
  net_points taken, fresh;
  /* Levels of at most dense_cells cells also index each run by cell: the
   * first point of the cell, -1 for none (a lookup without the search). */
  long dense_cells;
  int dense;
  int32_t *taken_from, *fresh_from;
} net_grid;

static uint64_t cell_code(const net_grid *g, uint64_t key) { return key >> (g->dim * (g->bits - g->level)); }

/* The first of the count keys that is >= key. */
static long lower_bound(const uint64_t *keys, long count, uint64_t key)
{
  long lo = 0, hi = count;
  while (lo < hi) {
    const long mid = lo + (hi - lo) / 2;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int near(const double *a, const double *b, int dim, double r2)
{
  double s = 0.0;
  for (int d = 0; d < dim; ++d) s += (a[d] - b[d]) * (a[d] - b[d]);
  return s < r2;
}

static int run_covers(const net_grid *g, const net_points *run, const int32_t *from, uint64_t code, const double *x)
{
  const int shift = g->dim * (g->bits - g->level);
  long i = g->dense ? from[code] : lower_bound(run->key, run->count, code << shift);
  if (i < 0) return 0;
  for (; i < run->count && run->key[i] >> shift == code; ++i)
    if (near(run->x + (long)g->dim * i, x, g->dim, g->r2)) return 1;
  return 0;
}

/* Starts a level: the coordinates' bits in its cell codes, whether its
 * cells are indexed, and the index of taken. */
static void net_index(net_grid *g)
{
  for (int d = 0; d < g->dim; ++d) {
    g->coord_bits[d] = 0;
    for (int j = 0; j < g->level; ++j) g->coord_bits[d] |= (uint64_t)1 << (j * g->dim + g->dim - 1 - d);
  }
  const long cells = g->dim * g->level < 62 ? 1L << (g->dim * g->level) : LONG_MAX;
  g->dense = cells <= g->dense_cells;
  if (!g->dense) return;
  for (long c = 0; c < cells; ++c) g->taken_from[c] = g->fresh_from[c] = -1;
  for (long i = g->taken.count - 1; i >= 0; --i) g->taken_from[cell_code(g, g->taken.key[i])] = (int32_t)i;
}

/* The cell next to `code` along coordinate d (bits `bits`, lowest `unit`),
 * one step up or down: arithmetic on that coordinate's interleaved bits
 * alone (the carry or borrow runs through the other coordinates' bits, set
 * or cleared for it), the others kept, where decoding and encoding the key
 * took a pass over every bit. */
static uint64_t cell_up(uint64_t code, uint64_t bits, uint64_t unit)
{
  return (((code | ~bits) + unit) & bits) | (code & ~bits);
}

static uint64_t cell_down(uint64_t code, uint64_t bits, uint64_t unit)
{
  return (((code & bits) - unit) & bits) | (code & ~bits);
}

/* Whether a point of `run` lies within distance r of x (Morton key `key`):
 * x's own cell first (where a covering point mostly is), then the others of
 * the 3^dim around it inside the grid. */
static int grid_covers(const net_grid *g, const net_points *run, const int32_t *from, uint64_t key, const double *x)
{
  const uint64_t own = cell_code(g, key);
  if (run_covers(g, run, from, own, x)) return 1;
  int step[GS_VECCHIA_NET_MAX_DIM];
  for (int d = 0; d < g->dim; ++d) step[d] = -1;
  for (;;) {
    int inside = 1, moved = 0;
    uint64_t nb = own;
    for (int d = 0; d < g->dim; ++d) {
      const uint64_t bits = g->coord_bits[d], unit = (uint64_t)1 << (g->dim - 1 - d), c = own & bits;
      inside = inside && !((step[d] < 0 && c == 0) || (step[d] > 0 && c == bits));
      moved = moved || step[d] != 0;
      if (step[d] < 0) nb = cell_down(nb, bits, unit);
      if (step[d] > 0) nb = cell_up(nb, bits, unit);
    }
    if (inside && moved && run_covers(g, run, from, nb, x)) return 1;
    int d = 0;
    while (d < g->dim && step[d] == 1) step[d++] = -1;
    if (d == g->dim) return 0;
    ++step[d];
  }
}

static void points_copy(net_points *to, long i, const net_points *from, long j, int dim)
{
  to->key[i] = from->key[j];
  to->index[i] = from->index[j];
  for (int d = 0; d < dim; ++d) to->x[(long)dim * i + d] = from->x[(long)dim * j + d];
}

/* One level: takes from `rest` (in Z-order) the points no taken point
 * covers, into `fresh` (in Z-order); keeps the others in rest. A point is
 * taken when neither an earlier level's point (`taken`) nor one taken
 * earlier in this level's pass (`fresh`) covers it. The first question
 * reads only `taken`, which the level does not change, so it is asked of
 * every point of rest at once on the package's threads (most of the work:
 * most points are covered by an earlier level); the pass in Z-order then
 * asks the second of the points left, as one pass over rest asking both
 * would: the same points taken, in the same order, for any thread count.
 * covered: room for n flags. */
static gs_status net_scan(net_grid *g, net_points *rest, unsigned char *covered, gs_progress_fn progress, long n,
                          char *msg)
{
  for (long k0 = 0; k0 < rest->count; k0 += NET_BATCH) {
    const long k1 = rest->count - k0 < NET_BATCH ? rest->count : k0 + NET_BATCH;
#pragma omp parallel for schedule(dynamic, 1024) num_threads(gs_cpu_threads_for(0, (double)(k1 - k0)))
    for (long k = k0; k < k1; ++k)
      covered[k] = (unsigned char)grid_covers(g, &g->taken, g->taken_from, rest->key[k], rest->x + (long)g->dim * k);
    if (progress && progress((double)(n - rest->count + k1) / n)) return gs_interrupted(msg);
  }
  long kept = 0;
  g->fresh.count = 0;
  for (long k = 0; k < rest->count; ++k) {
    if (covered[k] || grid_covers(g, &g->fresh, g->fresh_from, rest->key[k], rest->x + (long)g->dim * k)) {
      points_copy(rest, kept++, rest, k, g->dim);
    } else {
      const uint64_t code = cell_code(g, rest->key[k]);
      if (g->dense && g->fresh_from[code] < 0) g->fresh_from[code] = (int32_t)g->fresh.count;
      points_copy(&g->fresh, g->fresh.count++, rest, k, g->dim);
    }
  }
  rest->count = kept;
  return GS_OK;
}

/* Merges the level's points into `taken` (room for all n), both in Z-order,
 * from the top down. */
static void net_merge(net_grid *g)
{
  long i = g->taken.count - 1, j = g->fresh.count - 1, o = g->taken.count + g->fresh.count - 1;
  while (j >= 0) {
    if (i >= 0 && g->taken.key[i] > g->fresh.key[j]) points_copy(&g->taken, o--, &g->taken, i--, g->dim);
    else points_copy(&g->taken, o--, &g->fresh, j--, g->dim);
  }
  g->taken.count += g->fresh.count;
}

/* The largest extent of the locations and their lower corner. */
static double extent(const double *locs, long n, int dim, double *lo)
{
  double d_max = 0.0;
  for (int d = 0; d < dim; ++d) {
    double a = INFINITY, b = -INFINITY;
    for (long i = 0; i < n; ++i) {
      const double v = locs[i + (long)d * n];
      a = fmin(a, v);
      b = fmax(b, v);
    }
    lo[d] = a;
    d_max = fmax(d_max, b - a);
  }
  return d_max;
}

static long gcd(long a, long b)
{
  while (b) {
    const long t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* A level's points enter the ordering as j * stride mod count (stride prime
 * to count): a fixed scramble of the Z-order in which they were taken. */
static long scramble_stride(long n)
{
  long s = (long)(0.6180339887498949 * (double)n) | 1L;
  while (n > 1 && gcd(s, n) != 1) s += 2;
  return s;
}

/* Sorts the (key, index) pairs by key, stably (equal keys keep the order of
 * their indices), by least-significant-digit radix sort on 16-bit digits:
 * four linear passes instead of qsort's n log n comparisons through a
 * function pointer (2.5 s at 1e7 points, 30 s at 1e8). Digits that all keys
 * share are skipped. tmp: room for count pairs; start: NET_RADIX_BUCKETS. */
#define NET_RADIX_BITS 16
#define NET_RADIX_BUCKETS (1L << NET_RADIX_BITS)
static void sort_pairs(uint64_t (*pairs)[2], uint64_t (*tmp)[2], long *start, long count)
{
  const long buckets = NET_RADIX_BUCKETS;
  for (int shift = 0; shift < 64; shift += NET_RADIX_BITS) {
    memset(start, 0, (size_t)buckets * sizeof(long));
    for (long k = 0; k < count; ++k) ++start[(pairs[k][0] >> shift) & (buckets - 1)];
    if (count > 0 && start[(pairs[0][0] >> shift) & (buckets - 1)] == count) continue; /* one digit: in order */
    for (long b = 0, at = 0; b < buckets; ++b) {
      const long c = start[b];
      start[b] = at;
      at += c;
    }
    for (long k = 0; k < count; ++k) {
      const long to = start[(pairs[k][0] >> shift) & (buckets - 1)]++;
      tmp[to][0] = pairs[k][0];
      tmp[to][1] = pairs[k][1];
    }
    memcpy(pairs, tmp, (size_t)count * sizeof *pairs);
  }
}

/* The box of the locations: lower corner and largest extent. */
typedef struct {
  double lo[GS_VECCHIA_NET_MAX_DIM], extent;
} net_box;

static uint64_t point_key(const double *locs, long n, int dim, int bits, const net_box *box, long i)
{
  const double cells = ldexp(1.0, bits);
  uint64_t c[GS_VECCHIA_NET_MAX_DIM];
  for (int d = 0; d < dim; ++d) {
    const double q = box->extent > 0 ? floor((locs[i + (long)d * n] - box->lo[d]) / box->extent * cells) : 0.0;
    c[d] = (uint64_t)fmin(q, cells - 1);
  }
  return morton_encode(c, dim, bits);
}

/* The points other than `first` in Z-order into rest, ties in the order of
 * their indices. */
static gs_status net_sort(const double *locs, long n, int dim, int bits, const net_box *box, long first,
                          net_points *rest, char *msg)
{
  uint64_t(*pairs)[2] = (uint64_t(*)[2])rest->x; /* (key, index): room for 2 doubles a point */
  const long count = n - 1;
  uint64_t(*tmp)[2] = (uint64_t(*)[2])malloc((size_t)(count > 0 ? count : 1) * sizeof *tmp);
  long *start = (long *)malloc((size_t)NET_RADIX_BUCKETS * sizeof(long));
  if (!tmp || !start) {
    free(tmp);
    free(start);
    return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the sort of %ld points", n);
  }
#pragma omp parallel for schedule(static) num_threads(gs_cpu_threads_for(0, 4.0 * n))
  for (long i = 0; i < n; ++i) {
    if (i == first) continue;
    const long at = i < first ? i : i - 1;
    pairs[at][0] = point_key(locs, n, dim, bits, box, i);
    pairs[at][1] = (uint64_t)i;
  }
  sort_pairs(pairs, tmp, start, count);
  free(tmp);
  free(start);
  for (long k = 0; k < count; ++k) {
    rest->key[k] = pairs[k][0];
    rest->index[k] = (long)pairs[k][1];
  }
  for (long k = 0; k < count; ++k)
    for (int d = 0; d < dim; ++d) rest->x[(long)dim * k + d] = locs[rest->index[k] + (long)d * n];
  rest->count = count;
  return GS_OK;
}

static int points_alloc(net_points *p, long n, int dim)
{
  const long width = dim < 2 ? 2 : dim; /* net_sort's pairs use rest->x */
  p->key = (uint64_t *)malloc((size_t)n * sizeof(uint64_t));
  p->index = (long *)malloc((size_t)n * sizeof(long));
  p->x = (double *)malloc((size_t)n * width * sizeof(double));
  p->count = 0;
  return p->key && p->index && p->x;
}

static void points_free(net_points *p)
{
  free(p->key);
  free(p->index);
  free(p->x);
}

/* Appends the level's points to the ordering in a fixed scramble. */
static void net_append(const net_points *fresh, long *order, long *done)
{
  const long stride = scramble_stride(fresh->count);
  for (long j = 0; j < fresh->count; ++j)
    order[(*done)++] = fresh->index[(long)(((unsigned long long)j * stride) % (unsigned long long)fresh->count)];
}

static gs_status net_run(net_grid *g, net_points *rest, unsigned char *covered, const net_box *box, long n,
                         long *order, gs_progress_fn progress, char *msg)
{
  long done = 0;
  net_append(&g->fresh, order, &done); /* the first point */
  net_merge(g);
  for (g->level = 1; g->level <= g->bits && rest->count > 0 && box->extent > 0; ++g->level) {
    const double r = ldexp(box->extent, -g->level);
    g->r2 = r * r;
    net_index(g);
    gs_status st = net_scan(g, rest, covered, progress, n, msg);
    if (st != GS_OK) return st;
    net_append(&g->fresh, order, &done);
    net_merge(g);
  }
  for (long k = 0; k < rest->count; ++k) order[done++] = rest->index[k];
  return GS_OK;
}

gs_status gs_vecchia_maxmin_approx(const double *locs, long n, int dim, long *order, gs_progress_fn progress,
                                   char *msg)
{
  if (n < 1 || dim < 1 || dim > GS_VECCHIA_NET_MAX_DIM)
    return gs_set_msg(msg, GS_ERR_ARG, "need n >= 1 locations of 1 to %d coordinates", GS_VECCHIA_NET_MAX_DIM);
  if (n > INT32_MAX) /* the cell indexes hold int32 positions */
    return gs_set_msg(msg, GS_ERR_ARG, "the approximate maxmin ordering takes at most %ld points", (long)INT32_MAX);
  /* the cell indexes: up to about 2 n cells (4 bytes each) */
  net_grid g = {.dim = dim, .bits = net_bits(dim), .dense_cells = 1};
  while (g.dense_cells < 2 * n) g.dense_cells *= 2;
  g.taken_from = (int32_t *)malloc((size_t)g.dense_cells * sizeof(int32_t));
  g.fresh_from = (int32_t *)malloc((size_t)g.dense_cells * sizeof(int32_t));
  net_points rest = {0};
  unsigned char *covered = (unsigned char *)malloc((size_t)n);
  net_box box;
  long first = 0;
  gs_status st;
  const int ok = points_alloc(&g.taken, n, dim), ok_fresh = points_alloc(&g.fresh, n, dim),
            ok_rest = points_alloc(&rest, n, dim);
  if (!ok || !ok_fresh || !ok_rest || !g.taken_from || !g.fresh_from || !covered) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the approximate maxmin ordering of %ld points", n);
  } else {
    box.extent = extent(locs, n, dim, box.lo);
    first = vecchia_central_point(locs, n, dim);
    st = net_sort(locs, n, dim, g.bits, &box, first, &rest, msg);
  }
  if (st == GS_OK) {
    g.fresh.key[0] = point_key(locs, n, dim, g.bits, &box, first);
    g.fresh.index[0] = first;
    for (int d = 0; d < dim; ++d) g.fresh.x[d] = locs[first + (long)d * n];
    g.fresh.count = 1;
    st = net_run(&g, &rest, covered, &box, n, order, progress, msg);
  }
  points_free(&g.taken);
  points_free(&g.fresh);
  points_free(&rest);
  free(g.taken_from);
  free(g.fresh_from);
  free(covered);
  return st;
}
