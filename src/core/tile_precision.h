/* The storage formats of the tiles of a mixed-precision factorization and
 * the conversions between them, shared by the CPU and the GPU so that both
 * round every value the same way.
 *
 * FP16 and FP8 (E4M3) tiles hold scale * value, with a power-of-two scale
 * per tile chosen from the largest entry of the tile of A (tile_scale), so
 * that the small entries of far-off-diagonal tiles stay clear of the
 * format's subnormal range while the factor keeps room to grow below its
 * overflow. The scales are known before the factorization starts, so the
 * GPU's products take them as a host-side alpha. A value that does not fit
 * anyway is reported (the tile is then promoted and the factorization run
 * again). */
#ifndef GS_TILE_PRECISION_H
#define GS_TILE_PRECISION_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gs_common.h"

typedef enum { GS_TILE_FP64 = 0, GS_TILE_FP32 = 1, GS_TILE_FP16 = 2, GS_TILE_FP8 = 3 } gs_tile_precision;
#define GS_TILE_PRECISIONS 4

/* Bytes per entry, and the unit roundoff, of each format. */
static inline GS_HD int tile_precision_bytes(int p)
{
  return p == GS_TILE_FP64 ? 8 : p == GS_TILE_FP32 ? 4 : p == GS_TILE_FP16 ? 2 : 1;
}
static inline double tile_precision_roundoff(int p)
{
  return p == GS_TILE_FP64 ? 0x1p-53 : p == GS_TILE_FP32 ? 0x1p-24 : p == GS_TILE_FP16 ? 0x1p-11 : 0x1p-4;
}

/* The scale of a tile in format p whose tile of A has largest entry
 * max_abs, a power of two: in FP8 E4M3 it brings max_abs to [2^4, 2^5)
 * (largest value 448: room for the factor to grow 14 times; 10 binades of
 * normal numbers, below which the rounding error stays under 2^-14 times
 * the largest entry); in the other formats to [2^7, 2^8), for FP16 (largest
 * value 65504: 2^8 of room, 21 binades of normal numbers). FP64 and FP32
 * tiles store their values unscaled, but their FP16 copies for the GPU's
 * tensor-core products carry this scale. */
static inline float tile_scale(int p, double max_abs)
{
  int e = 0;
  if (!(max_abs > 0.0) || !isfinite(max_abs)) return 1.0f;
  frexp(max_abs, &e); /* max_abs in [2^(e-1), 2^e) */
  e = (p == GS_TILE_FP8 ? 5 : 8) - e;
  e = e < -126 ? -126 : e > 127 ? 127 : e;
  return (float)ldexp(1.0, e);
}

/* IEEE binary16 from a float, rounded to nearest even; values at or beyond
 * 65520 become infinity. */
static inline GS_HD uint16_t half_from_float(float f)
{
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (uint16_t)(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  if (ax < 0x38800000u) { /* below 2^-14: a multiple of 2^-24, exactly rounded by rintf */
    float a;
    memcpy(&a, &ax, sizeof a);
    return (uint16_t)(sign | (uint32_t)rintf(a * 16777216.0f));
  }
  const uint32_t r = ax - 0x38000000u; /* the exponent rebiased from 127 to 15 */
  return (uint16_t)(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
}

static inline GS_HD float half_to_float(uint16_t h)
{
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint32_t x;
  float f;
  if (e == 0) {
    f = (float)m * 5.9604644775390625e-8f; /* 2^-24 */
    return sign ? -f : f;
  }
  x = sign | (e == 31 ? 0x7f800000u | (m << 13) : ((e + 112u) << 23) | (m << 13));
  memcpy(&f, &x, sizeof f);
  return f;
}

/* FP8 E4M3 (the OCP format: bias 7, no infinities, largest value 448,
 * 0x7f the NaN) from a float, rounded to nearest even; values beyond 464
 * become NaN. */
static inline GS_HD uint8_t fp8_from_float(float f)
{
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 24) & 0x80u, ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (uint8_t)(sign | 0x7fu);
  if (ax < 0x3c800000u) { /* below 2^-6: a multiple of 2^-9, exactly rounded by rintf */
    float a;
    memcpy(&a, &ax, sizeof a);
    return (uint8_t)(sign | (uint32_t)rintf(a * 512.0f));
  }
  const uint32_t r = ax - 0x3c000000u; /* the exponent rebiased from 127 to 7 */
  const uint32_t code = (r + 0x7ffffu + ((r >> 20) & 1u)) >> 20;
  return (uint8_t)(sign | (code > 0x7eu ? 0x7fu : code));
}

static inline GS_HD float fp8_to_float(uint8_t b)
{
  const uint32_t sign = (uint32_t)(b & 0x80u) << 24, e = (b >> 3) & 0xfu, m = b & 0x7u;
  uint32_t x;
  float f;
  if ((b & 0x7fu) == 0x7fu) return NAN;
  if (e == 0) {
    f = (float)m * 0.001953125f; /* 2^-9 */
    return sign ? -f : f;
  }
  x = sign | ((e + 120u) << 23) | (m << 20);
  memcpy(&f, &x, sizeof f);
  return f;
}

/* Entry k of a tile in format p (FP16 and FP8 entries divided by the
 * scale), and an entry stored into one; the store returns 0 when the value
 * does not fit. */
static inline GS_HD double tile_entry_get(const void *t, int p, float scale, size_t k)
{
  if (p == GS_TILE_FP64) return ((const double *)t)[k];
  if (p == GS_TILE_FP32) return ((const float *)t)[k];
  if (p == GS_TILE_FP16) return (double)(half_to_float(((const uint16_t *)t)[k]) / scale);
  return (double)(fp8_to_float(((const uint8_t *)t)[k]) / scale);
}

static inline GS_HD int tile_entry_put(void *t, int p, float scale, size_t k, double v)
{
  if (p == GS_TILE_FP64) {
    ((double *)t)[k] = v;
    return 1;
  }
  const float f = (float)v;
  if (p == GS_TILE_FP32) {
    ((float *)t)[k] = f;
    return isfinite(f) || !isfinite(v);
  }
  if (p == GS_TILE_FP16) {
    const uint16_t h = half_from_float(f * scale);
    ((uint16_t *)t)[k] = h;
    return (h & 0x7c00u) != 0x7c00u || !isfinite(v);
  }
  const uint8_t b = fp8_from_float(f * scale);
  ((uint8_t *)t)[k] = b;
  return (b & 0x7fu) != 0x7fu || !isfinite(v);
}

#endif
