/* Gaussian kernel sums for the accuracy measures of GBEES: the sources are
 * sorted into boxes once on the host (gbees_kde_math.h), then every
 * evaluation point sums its neighbours, on all cores or a GPU. Points run in
 * batches sized so that one takes about GBEES_KDE_BATCH_SECONDS, with
 * progress reported (and interrupts seen) between them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbees_internal.h"
#include "gbees_kde_math.h"
#include "gs_cpu.h"

#define GBEES_KDE_BATCH_SECONDS 0.2
#define GBEES_KDE_GROUP_SPAN 2.0

/* Digits of the radix sort: 11 bits, 2,048 counters. */
#define GBEES_KDE_RADIX_BITS 11

typedef struct {
  int64_t key, index;
} keyed_source;

/* Sorts a[0..n) by key, ties in input order, through the buffer tmp of n:
 * least significant digit first, over the bits that keys up to max_key use
 * (three passes for a Lorenz '96 grid of 1.7e7 cells, a quarter of the time
 * that qsort took). */
static void radix_sort(keyed_source *a, keyed_source *tmp, size_t n, int64_t max_key)
{
  size_t start[1 << GBEES_KDE_RADIX_BITS];
  int64_t mask = (INT64_C(1) << GBEES_KDE_RADIX_BITS) - 1;
  keyed_source *from = a, *to = tmp;
  for (int shift = 0; shift < 63 && (max_key >> shift) > 0; shift += GBEES_KDE_RADIX_BITS) {
    memset(start, 0, sizeof start);
    for (size_t j = 0; j < n; j++) start[(from[j].key >> shift) & mask]++;
    for (size_t b = 0, at = 0; b <= (size_t)mask; b++) {
      size_t count = start[b];
      start[b] = at, at += count;
    }
    for (size_t j = 0; j < n; j++) to[start[(from[j].key >> shift) & mask]++] = from[j];
    keyed_source *swap = from;
    from = to, to = swap;
  }
  if (from != a) memcpy(a, from, n * sizeof *a);
}

/* The order of n points (rows of x) by the box that holds them, in order
 * (2 n pairs: the second half is the sort's buffer). */
static void sort_by_box(const gbees_kde_sources *s, const double *x, size_t n, int threads, keyed_source *order)
{
#pragma omp parallel for num_threads(gs_cpu_threads_for(threads, (double)n))
  for (size_t j = 0; j < n; j++) {
    int64_t box[GS_GBEES_MAX_DIM];
    for (int i = 0; i < s->dim; i++) box[i] = gbees_kde_box(s, i, x[j * s->dim + i]);
    order[j] = (keyed_source){.key = gbees_kde_key(s, box), .index = (int64_t)j};
  }
  radix_sort(order, order + n, n, gbees_kde_key(s, s->box_max));
}

/* The sources' lowest coordinates (where box 0 starts) and the boxes of
 * their highest, capped so that keys keep to GBEES_KDE_KEY_BITS. */
static void source_span(const double *src, size_t n, gbees_kde_sources *s)
{
  int dim = s->dim;
  double hi[GS_GBEES_MAX_DIM], cap = (double)((INT64_C(1) << (GBEES_KDE_KEY_BITS / dim)) - 1);
  for (int i = 0; i < dim; i++) s->lo[i] = hi[i] = n ? src[i] : 0.0;
  for (size_t j = 1; j < n; j++) {
    for (int i = 0; i < dim; i++) {
      s->lo[i] = fmin(s->lo[i], src[j * dim + i]);
      hi[i] = fmax(hi[i], src[j * dim + i]);
    }
  }
  for (int i = 0; i < dim; i++) s->box_max[i] = (int64_t)fmin(floor((hi[i] - s->lo[i]) / s->width), cap);
}

/* The sources in box order, in arrays allocated here (one block at z). */
static gs_status sort_sources(int dim, const double *src, const double *weight, size_t n, double radius,
                              int threads, gbees_kde_sources *s, char *msg)
{
  *s = (gbees_kde_sources){.dim = dim, .radius = radius, .width = radius / GBEES_KDE_BOX_SPLIT, .n = (int64_t)n};
  source_span(src, n, s);
  size_t bytes = n * (dim + 1) * sizeof(double) + n * sizeof(int64_t);
  keyed_source *order = (keyed_source *)malloc(2 * n * sizeof *order + 1);
  char *block = (char *)malloc(bytes + 1);
  if (!order || !block) {
    free(order), free(block);
    return gs_set_msg(msg, GS_ERR_NOMEM, "%.0f kernel sources do not fit in host memory", (double)n);
  }
  sort_by_box(s, src, n, threads, order);
  double *z = (double *)block, *w = z + n * dim;
  int64_t *key = (int64_t *)(w + n);
  /* reads scattered over the sources wait on memory: threads overlap them */
#pragma omp parallel for num_threads(gs_cpu_threads_for(threads, (double)n))
  for (size_t j = 0; j < n; j++) {
    memcpy(z + j * dim, src + order[j].index * dim, dim * sizeof(double));
    w[j] = weight ? weight[order[j].index] : 1.0;
    key[j] = order[j].key;
  }
  free(order);
  s->z = z, s->w = w, s->key = key;
  return GS_OK;
}

/* Box indices of the reach of [lo, hi] in coordinate i, the walk's count. */
static double reach_boxes(const gbees_kde_sources *s, int i, double lo, double hi)
{
  return (double)(gbees_kde_box(s, i, hi + s->radius) - gbees_kde_box(s, i, lo - s->radius) + 1);
}

/* Splits n points (in box order) into the groups of consecutive points
 * that a GPU warp sums together over one walk (gbees_kde_cuda.cu): a point
 * joins the group while the boxes that the group's walk spans (the product
 * over coordinates of the boxes in reach) stay within GBEES_KDE_GROUP_SPAN
 * times those of the first point's own walk, up to GBEES_KDE_GROUP points.
 * Every point of a group tests every source of the group's walk, so a group
 * must not span much more than one point: points far apart (sparse
 * evaluation points, an outlier) keep to their own walks, while points whose
 * balls cover the same sources share one. group[k] is the first point of
 * group k, group[count] = n; returns count. */
size_t gbees_kde_groups(const gbees_kde_sources *s, const double *y, size_t n, int64_t *group)
{
  int dim = s->dim;
  double lo[GS_GBEES_MAX_DIM], hi[GS_GBEES_MAX_DIM], alone = 0.0;
  size_t count = 0;
  for (size_t p = 0; p < n; p++) {
    const double *yp = y + p * dim;
    int joins = count > 0 && p - (size_t)group[count - 1] < GBEES_KDE_GROUP;
    if (joins) {
      double span = 1.0;
      for (int i = 0; i < dim; i++) span *= reach_boxes(s, i, fmin(lo[i], yp[i]), fmax(hi[i], yp[i]));
      joins = span <= GBEES_KDE_GROUP_SPAN * alone;
    }
    if (joins) {
      for (int i = 0; i < dim; i++) lo[i] = fmin(lo[i], yp[i]), hi[i] = fmax(hi[i], yp[i]);
    } else {
      group[count++] = (int64_t)p;
      alone = 1.0;
      for (int i = 0; i < dim; i++) {
        lo[i] = hi[i] = yp[i];
        alone *= reach_boxes(s, i, yp[i], yp[i]);
      }
    }
  }
  group[count] = (int64_t)n;
  return count;
}

GS_CPU_DISPATCH
static void cpu_sums(const gbees_kde_sources *s, const double *eval, size_t first, size_t count, int threads,
                     double *out)
{
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
  for (size_t p = first; p < first + count; p++) out[p] = gbees_kde_sum(s, eval + p * s->dim);
}

static gs_status cpu_batches(const gbees_kde_sources *s, const double *eval, size_t n_eval, int threads,
                             gs_progress_fn progress, double *out, char *msg)
{
  size_t done = 0, batch = 64;
  int nt = gs_cpu_threads_for(threads, (double)n_eval * (double)s->n);
  while (done < n_eval) {
    size_t count = batch < n_eval - done ? batch : n_eval - done;
    double start = gs_wall_seconds();
    cpu_sums(s, eval, done, count, nt, out);
    done += count;
    double took = gs_wall_seconds() - start;
    batch = gs_batch_resize(batch, took, GBEES_KDE_BATCH_SECONDS, 64);
    if (progress && progress((double)done / (double)n_eval)) return gs_interrupted(msg);
  }
  return GS_OK;
}

/* The sums at the points taken in box order, as the sources are: points that
 * follow each other (on one thread, or in one warp of a GPU) visit mostly the
 * same runs of sources, while these are still in cache. Each point's sum is
 * the same in any order. */
static gs_status sums_in_box_order(const gbees_kde_sources *s, const double *eval, size_t n_eval, int threads,
                                   int device, gs_progress_fn progress, double *out, char *msg)
{
  int dim = s->dim;
  keyed_source *order = (keyed_source *)malloc(2 * n_eval * sizeof *order);
  double *sorted = (double *)malloc(n_eval * (dim + 1) * sizeof(double));
  int64_t *group = (int64_t *)malloc((n_eval + 1) * sizeof(int64_t));
  if (!order || !sorted || !group) {
    free(order), free(sorted), free(group);
    return gs_set_msg(msg, GS_ERR_NOMEM, "%.0f kernel evaluation points do not fit in host memory", (double)n_eval);
  }
  sort_by_box(s, eval, n_eval, threads, order);
  for (size_t p = 0; p < n_eval; p++) memcpy(sorted + p * dim, eval + order[p].index * dim, dim * sizeof(double));
  double *sums = sorted + n_eval * dim;
  gs_status st = GS_OK;
  if (device >= 0) {
    size_t groups = gbees_kde_groups(s, sorted, n_eval, group);
    st = gbees_gpu_kernel_sums(device, s, sorted, group, groups, progress, sums, msg);
  } else {
    st = cpu_batches(s, sorted, n_eval, threads, progress, sums, msg);
  }
  for (size_t p = 0; st == GS_OK && p < n_eval; p++) out[order[p].index] = sums[p];
  free(order), free(sorted), free(group);
  return st;
}

gs_status gs_gbees_kernel_sums(int dim, const double *src, const double *weight, size_t n_src, const double *eval,
                               size_t n_eval, double radius, int threads, int device, gs_progress_fn progress,
                               double *out, char *msg)
{
  if (dim < 1 || dim > GS_GBEES_MAX_DIM)
    return gs_set_msg(msg, GS_ERR_ARG, "kernel sums need 1 to %d dimensions", GS_GBEES_MAX_DIM);
  if (!(radius > 0.0) || !isfinite(radius))
    return gs_set_msg(msg, GS_ERR_ARG, "the kernel cut-off must be positive and finite");
  for (size_t q = 0; q < n_src * dim; q++)
    if (!isfinite(src[q])) return gs_set_msg(msg, GS_ERR_ARG, "kernel sources must be finite");
  for (size_t q = 0; q < n_eval * dim; q++)
    if (!isfinite(eval[q])) return gs_set_msg(msg, GS_ERR_ARG, "kernel evaluation points must be finite");
  if (n_eval == 0) return GS_OK;
  gbees_kde_sources s;
  gs_status st = sort_sources(dim, src, weight, n_src, radius, threads, &s, msg);
  if (st != GS_OK) return st;
  st = sums_in_box_order(&s, eval, n_eval, threads, device, progress, out, msg);
  free((void *)s.z);
  return st;
}
