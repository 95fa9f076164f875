/* Gaussian kernel sums with a cut-off, the arithmetic that the CPU loop and
 * the CUDA kernel share. Coordinates are whitened (the kernel covariance is
 * the identity), so one evaluation point y receives
 *   sum_j w_j exp(-|y - z_j|^2 / 2) over the sources z_j with |y - z_j| <= radius.
 * The sources are sorted by the box of side `radius` that holds them along
 * the first GBEES_KDE_BOX_DIMS coordinates; a source within the radius of y
 * lies in one of the 3^k boxes around y's box, and the three boxes along the
 * last boxed coordinate are contiguous in that order, so a point reads 3^(k-1)
 * ranges found by binary search. Box indices are clamped to
 * [0, GBEES_KDE_BOX_MAX]; the clamp moves two indices no further apart, so
 * no neighbour is missed (a far outlier only joins an edge box). Every point
 * visits its sources in the same order on either device. */
#ifndef GBEES_KDE_MATH_H
#define GBEES_KDE_MATH_H

#include <math.h>
#include <stdint.h>

#include "gs_common.h"

#define GBEES_KDE_BOX_DIMS 3
#define GBEES_KDE_BOX_BITS 21
#define GBEES_KDE_BOX_MAX ((INT64_C(1) << GBEES_KDE_BOX_BITS) - 1)

/* The sources in box order: dim coordinates per source in z, weights w
 * (NULL: all 1) and box keys. */
typedef struct {
  int dim, box_dims;
  double radius;
  double lo[GBEES_KDE_BOX_DIMS]; /* the lowest source coordinate: box 0 starts there */
  const double *z;
  const double *w;
  const int64_t *key;
  int64_t n;
} gbees_kde_sources;

static inline GS_HD int64_t gbees_kde_box(double y, double lo, double radius)
{
  double b = floor((y - lo) / radius);
  if (!(b > 0.0)) return 0;
  return b < (double)GBEES_KDE_BOX_MAX ? (int64_t)b : GBEES_KDE_BOX_MAX;
}

/* Box indices in mixed radix; an index of GBEES_KDE_BOX_MAX + 1 in the last
 * place gives the key that follows every box of the same leading indices. */
static inline GS_HD int64_t gbees_kde_key(const int64_t *box, int box_dims)
{
  int64_t key = 0;
  for (int i = 0; i < box_dims; i++) key = key * (GBEES_KDE_BOX_MAX + 1) + box[i];
  return key;
}

/* The first of the n sorted keys that is >= key. */
static inline GS_HD int64_t gbees_kde_lower_bound(const int64_t *keys, int64_t n, int64_t key)
{
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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

static inline GS_HD double gbees_kde_sum(const gbees_kde_sources *s, const double *y)
{
  int k = s->box_dims, outer = 1;
  int64_t box[GBEES_KDE_BOX_DIMS], near[GBEES_KDE_BOX_DIMS];
  for (int i = 0; i < k; i++) box[i] = gbees_kde_box(y[i], s->lo[i], s->radius);
  for (int i = 0; i < k - 1; i++) outer *= 3;
  double sum = 0.0;
  for (int c = 0; c < outer; c++) {
    int code = c, inside = 1;
    for (int i = 0; i < k - 1; i++, code /= 3) {
      near[i] = box[i] + code % 3 - 1;
      inside &= near[i] >= 0 && near[i] <= GBEES_KDE_BOX_MAX;
    }
    if (!inside) continue;
    near[k - 1] = box[k - 1] > 0 ? box[k - 1] - 1 : 0;
    int64_t first = gbees_kde_lower_bound(s->key, s->n, gbees_kde_key(near, k));
    near[k - 1] = box[k - 1] < GBEES_KDE_BOX_MAX ? box[k - 1] + 2 : GBEES_KDE_BOX_MAX + 1;
    int64_t end = gbees_kde_lower_bound(s->key, s->n, gbees_kde_key(near, k));
    sum += gbees_kde_range_sum(s, y, first, end);
  }
  return sum;
}

#endif
