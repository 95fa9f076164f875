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
 * pair test itself is exact. Every point visits its sources in the same
 * order on either device. */
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
 * in coordinate i, with a wide margin. */
static inline GS_HD double gbees_kde_slack(const gbees_kde_sources *s, int i, double y)
{
  return GBEES_KDE_SLACK * (fabs(y) + fabs(s->lo[i]) + s->radius);
}

/* A lower bound of the distance in coordinate i from y to the sources of
 * box b, when y lies in box at. */
static inline GS_HD double gbees_kde_gap(const gbees_kde_sources *s, int i, double y, int64_t at, int64_t b)
{
  double gap = 0.0;
  if (b < at) gap = y - (s->lo[i] + (double)(b + 1) * s->width);
  else if (b > at) gap = s->lo[i] + (double)b * s->width - y;
  gap -= gbees_kde_slack(s, i, y);
  return gap > 0.0 ? gap : 0.0;
}

static inline GS_HD double gbees_kde_range_sum(const gbees_kde_sources *s, const double *y, int64_t first,
                                               int64_t end)
{
  double r2 = s->radius * s->radius, sum = 0.0;
  for (int64_t j = first; j < end; j++) {
    const double *z = s->z + j * s->dim;
    double d2 = 0.0;
    for (int i = 0; i < s->dim; i++) d2 += (y[i] - z[i]) * (y[i] - z[i]);
    if (d2 <= r2) sum += (s->w ? s->w[j] : 1.0) * exp(-0.5 * d2);
  }
  return sum;
}

/* The sources in the boxes along the last coordinate that meet the ball,
 * for the leading box indices in box and their squared distance gap2 from
 * y; *from is where the search starts (rows come in increasing key order). */
static inline GS_HD double gbees_kde_row(const gbees_kde_sources *s, const double *y, int64_t *box, double gap2,
                                         int64_t *from)
{
  int last = s->dim - 1;
  double reach = sqrt(fmax(s->radius * s->radius - gap2, 0.0)) + gbees_kde_slack(s, last, y[last]);
  box[last] = gbees_kde_box(s, last, y[last] - reach);
  int64_t first = gbees_kde_lower_bound(s->key, *from, s->n, gbees_kde_key(s, box));
  box[last] = gbees_kde_box(s, last, y[last] + reach) + 1;
  int64_t end = gbees_kde_lower_bound(s->key, first, s->n, gbees_kde_key(s, box));
  *from = end;
  return gbees_kde_range_sum(s, y, first, end);
}

/* Depth first over the leading coordinates' boxes that meet the ball. */
static inline GS_HD double gbees_kde_sum(const gbees_kde_sources *s, const double *y)
{
  int last = s->dim - 1, i = 0;
  double r2 = s->radius * s->radius, part[GS_GBEES_MAX_DIM], sum = 0.0;
  int64_t at[GS_GBEES_MAX_DIM], bottom[GS_GBEES_MAX_DIM], top[GS_GBEES_MAX_DIM], box[GS_GBEES_MAX_DIM], from = 0;
  for (int k = 0; k < last; k++) {
    double reach = s->radius + gbees_kde_slack(s, k, y[k]);
    at[k] = gbees_kde_box(s, k, y[k]);
    bottom[k] = box[k] = gbees_kde_box(s, k, y[k] - reach);
    top[k] = gbees_kde_box(s, k, y[k] + reach);
  }
  if (last == 0) return gbees_kde_row(s, y, box, 0.0, &from);
  part[0] = 0.0;
  for (;;) {
    if (box[i] > top[i]) {
      if (i == 0) break;
      box[--i]++;
      continue;
    }
    double gap = gbees_kde_gap(s, i, y[i], at[i], box[i]), g2 = part[i] + gap * gap;
    if (g2 > r2) {
      box[i]++;
    } else if (i + 1 < last) {
      part[++i] = g2;
      box[i] = bottom[i];
    } else {
      sum += gbees_kde_row(s, y, box, g2, &from);
      box[i]++;
    }
  }
  return sum;
}

#endif
