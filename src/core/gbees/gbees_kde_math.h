/* Gaussian kernel sums with a cut-off, the arithmetic that the CPU loop and
 * the CUDA kernel share. Coordinates are whitened (the kernel covariance is
 * the identity), so one evaluation point y receives
 *   sum_j w_j exp(-|y - z_j|^2 / 2) over the sources z_j with |y - z_j| <= radius.
 * The sources are sorted by the box that holds them in every coordinate
 * (boxes of side radius / GBEES_KDE_BOX_SPLIT, keys in lexicographic order of
 * the box indices). A point visits only the boxes that meet its ball: it runs
 * over the boxes of the leading dim - 1 coordinates closer than the radius,
 * and for each of those the boxes along the last coordinate that meet the ball
 * are one contiguous run of keys, found by two binary searches. So the work
 * per point follows the sources within a few radii of it, in any dimension,
 * and the index is linear in the sources. Box indices are clamped to
 * [0, box_max[i]], the box of the highest source in coordinate i: box 0
 * reaches down to minus infinity and box box_max[i] up to infinity (a far
 * outlier only joins an edge box). Box edges are widened by
 * a slack far above rounding, so no pair within the radius is missed; the
 * pair test itself is exact. The same walk serves a region of points (the
 * GPU walks once for a group of points and tests every source of its runs
 * against each): the runs then cover every point's ball, so each point gets
 * the terms of its own walk; the CPU adds them in key order, the GPU's lanes
 * in parts added in a fixed order. */
#ifndef GBEES_KDE_MATH_H
#define GBEES_KDE_MATH_H

#include <math.h>
#include <stdint.h>

#include "gs_common.h"
#include "gs_gbees.h"

/* Boxes per radius. In 6-D a point scans the sources of about 48, 10 and 5
 * times its ball's volume through about 110, 1,000 and 4,700 runs of keys
 * for 1, 2 and 3 boxes per radius; on the grid's own cells (a Lorenz '96
 * grid of 3e6 cells, 2e4 of them in a ball) 3 was the fastest of 1 to 4. */
#define GBEES_KDE_BOX_SPLIT 3
/* Bits of all box indices together: with the last index one past its
 * largest, a key stays below 2^62. Keys are mixed-radix numbers with one
 * place per coordinate of box_max[i] + 1 values, so that they take only the
 * bits that the sources' spread needs (a sort of the keys is then short). */
#define GBEES_KDE_KEY_BITS 62
#define GBEES_KDE_SLACK 1e-9
/* The most points a GPU warp sums over one walk, a lane each. */
#define GBEES_KDE_GROUP 32

/* The sources in box order: dim coordinates per source in z, weights w
 * (NULL: all 1) and box keys. */
typedef struct {
  int dim;
  double radius, width;         /* the cut-off and the box side */
  int64_t box_max[GS_GBEES_MAX_DIM]; /* the largest box index in each coordinate */
  double lo[GS_GBEES_MAX_DIM];  /* the lowest source coordinate: box 0 starts there */
  const double *z;
  const double *w;
  const int64_t *key;
  int64_t n;
} gbees_kde_sources;

static inline GS_HD int64_t gbees_kde_box(const gbees_kde_sources *s, int i, double y)
{
  double b = floor((y - s->lo[i]) / s->width);
  if (!(b > 0.0)) return 0;
  return b < (double)s->box_max[i] ? (int64_t)b : s->box_max[i];
}

/* Box indices in mixed radix; an index of box_max + 1 in the last place
 * gives the key that follows every box of the same leading indices. */
static inline GS_HD int64_t gbees_kde_key(const gbees_kde_sources *s, const int64_t *box)
{
  int64_t key = 0;
  for (int i = 0; i < s->dim; i++) key = key * (s->box_max[i] + 1) + box[i];
  return key;
}

/* The first of the sorted keys in [from, n) that is >= key, by steps that
 * double from `from` and then bisection: the next run of a point is most
 * often a few keys on, so the search stays near memory just read. */
static inline GS_HD int64_t gbees_kde_lower_bound(const int64_t *keys, int64_t from, int64_t n, int64_t key)
{
  int64_t lo = from, hi = from, step = 1;
  while (hi < n && keys[hi] < key) {
    lo = hi + 1;
    hi = n - from > step ? from + step : n;
    step *= 2;
  }
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* How far apart rounding could leave a computed box edge and coordinate
 * in coordinate i, with a wide margin, for coordinates up to |y|. */
static inline GS_HD double gbees_kde_slack(const gbees_kde_sources *s, int i, double y)
{
  return GBEES_KDE_SLACK * (fabs(y) + fabs(s->lo[i]) + s->radius);
}

/* The walk over the runs of sources whose boxes meet the points within the
 * radius of the region [lo, hi] (a point: lo = hi), depth first over the
 * leading coordinates' boxes; the state of gbees_kde_walk_next. */
typedef struct {
  const gbees_kde_sources *s;
  double lo[GS_GBEES_MAX_DIM], hi[GS_GBEES_MAX_DIM], part[GS_GBEES_MAX_DIM];
  double slack[GS_GBEES_MAX_DIM]; /* gbees_kde_slack for the region's coordinates */
  int64_t at_lo[GS_GBEES_MAX_DIM], at_hi[GS_GBEES_MAX_DIM], bottom[GS_GBEES_MAX_DIM], top[GS_GBEES_MAX_DIM];
  int64_t box[GS_GBEES_MAX_DIM];
  int64_t from; /* where the next run's search starts: runs come in increasing key order */
  int depth;    /* the coordinate whose box moves next; -1 when the walk is over */
} gbees_kde_walk;

static inline GS_HD void gbees_kde_walk_start(gbees_kde_walk *w, const gbees_kde_sources *s, const double *lo,
                                              const double *hi)
{
  w->s = s;
  for (int k = 0; k < s->dim; k++) {
    w->lo[k] = lo[k], w->hi[k] = hi[k];
    w->slack[k] = gbees_kde_slack(s, k, fmax(fabs(lo[k]), fabs(hi[k])));
  }
  for (int k = 0; k + 1 < s->dim; k++) {
    double reach = s->radius + w->slack[k];
    w->at_lo[k] = gbees_kde_box(s, k, lo[k]);
    w->at_hi[k] = gbees_kde_box(s, k, hi[k]);
    w->bottom[k] = w->box[k] = gbees_kde_box(s, k, lo[k] - reach);
    w->top[k] = gbees_kde_box(s, k, hi[k] + reach);
  }
  w->part[0] = 0.0;
  w->from = 0;
  w->depth = 0;
}

/* A lower bound of the distance in coordinate i from the region to the
 * sources of box b. */
static inline GS_HD double gbees_kde_gap(const gbees_kde_walk *w, int i, int64_t b)
{
  const gbees_kde_sources *s = w->s;
  double gap = 0.0;
  if (b < w->at_lo[i]) gap = w->lo[i] - (s->lo[i] + (double)(b + 1) * s->width);
  else if (b > w->at_hi[i]) gap = s->lo[i] + (double)b * s->width - w->hi[i];
  gap -= w->slack[i];
  return gap > 0.0 ? gap : 0.0;
}

/* The run of sources in the boxes along the last coordinate that meet the
 * region's reach, for the leading boxes in w->box at squared distance gap2. */
static inline GS_HD void gbees_kde_row(gbees_kde_walk *w, double gap2, int64_t *first, int64_t *end)
{
  const gbees_kde_sources *s = w->s;
  int last = s->dim - 1;
  double reach = sqrt(fmax(s->radius * s->radius - gap2, 0.0)) + w->slack[last];
  w->box[last] = gbees_kde_box(s, last, w->lo[last] - reach);
  *first = gbees_kde_lower_bound(s->key, w->from, s->n, gbees_kde_key(s, w->box));
  w->box[last] = gbees_kde_box(s, last, w->hi[last] + reach) + 1;
  *end = gbees_kde_lower_bound(s->key, *first, s->n, gbees_kde_key(s, w->box));
  w->from = *end;
}

/* The next run [first, end) of the walk; 0 when there is none. */
static inline GS_HD int gbees_kde_walk_next(gbees_kde_walk *w, int64_t *first, int64_t *end)
{
  int last = w->s->dim - 1;
  double r2 = w->s->radius * w->s->radius;
  if (w->depth < 0) return 0;
  if (last == 0) {
    gbees_kde_row(w, 0.0, first, end);
    w->depth = -1;
    return 1;
  }
  for (;;) {
    int i = w->depth;
    if (w->box[i] > w->top[i]) {
      if (i == 0) {
        w->depth = -1;
        return 0;
      }
      w->box[--w->depth]++;
      continue;
    }
    double gap = gbees_kde_gap(w, i, w->box[i]), g2 = w->part[i] + gap * gap;
    if (g2 > r2) {
      w->box[i]++;
    } else if (i + 1 < last) {
      w->part[++w->depth] = g2;
      w->box[w->depth] = w->bottom[w->depth];
    } else {
      gbees_kde_row(w, g2, first, end);
      w->box[i]++;
      return 1;
    }
  }
}

static inline GS_HD double gbees_kde_dist2(int dim, const double *y, const double *z)
{
  double d2 = 0.0;
  for (int i = 0; i < dim; i++) d2 += (y[i] - z[i]) * (y[i] - z[i]);
  return d2;
}

/* The sum at one point y over its own walk. */
static inline GS_HD double gbees_kde_sum(const gbees_kde_sources *s, const double *y)
{
  gbees_kde_walk w;
  int64_t first, end;
  double r2 = s->radius * s->radius, sum = 0.0;
  gbees_kde_walk_start(&w, s, y, y);
  while (gbees_kde_walk_next(&w, &first, &end)) {
    for (int64_t j = first; j < end; j++) {
      double d2 = gbees_kde_dist2(s->dim, y, s->z + j * s->dim);
      if (d2 <= r2) sum += (s->w ? s->w[j] : 1.0) * exp(-0.5 * d2);
    }
  }
  return sum;
}

#endif
