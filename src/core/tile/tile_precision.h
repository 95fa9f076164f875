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

/* The formats, from the most precise: code and the name R knows it by (the
 * precision map of tile_chol). Written once: the enum and the table R reads
 * at load (gs_r_tables) are generated from this list. */
#define GS_TILE_FORMATS(X)     \
  X(GS_TILE_FP64, "double")    \
  X(GS_TILE_FP32, "single")    \
  X(GS_TILE_FP16, "half")      \
  X(GS_TILE_FP8, "fp8")

#define GS_TILE_FORMAT_ENUM_ENTRY(code, name) code,
typedef enum { GS_TILE_FORMATS(GS_TILE_FORMAT_ENUM_ENTRY) GS_TILE_PRECISIONS } gs_tile_precision;
#undef GS_TILE_FORMAT_ENUM_ENTRY

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

/* |f| (its bits ax, finite) in a binary format with `mbits` mantissa bits
 * and smallest normal 2^emin, rounded to nearest even: the format's bits
 * without the sign; the caller checks its largest exponent. */
static inline GS_HD uint32_t narrow_float_bits(uint32_t ax, int mbits, int emin)
{
  if (ax < (uint32_t)(127 + emin) << 23) { /* below 2^emin: a multiple of 2^(emin - mbits), exactly rounded by rintf */
    float a;
    memcpy(&a, &ax, sizeof a);
    return (uint32_t)rintf(a * (float)(1u << (mbits - emin)));
  }
  const int shift = 23 - mbits;
  const uint32_t r = ax - ((uint32_t)(126 + emin) << 23); /* the exponent rebiased from 127 to 1 - emin */
  return (r + (1u << (shift - 1)) - 1u + ((r >> shift) & 1u)) >> shift;
}

/* The magnitude of a finite value of that format: exponent field e,
 * mantissa m. */
static inline GS_HD float narrow_float_value(uint32_t e, uint32_t m, int mbits, int emin)
{
  if (e == 0) return (float)m / (float)(1u << (mbits - emin));
  const uint32_t x = ((e + (uint32_t)(126 + emin)) << 23) | (m << (23 - mbits));
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
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
  return (uint16_t)(sign | narrow_float_bits(ax, 10, -14));
}

static inline GS_HD float half_to_float(uint16_t h)
{
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  const float v = e == 31 ? (m ? NAN : INFINITY) : narrow_float_value(e, m, 10, -14);
  return (h & 0x8000u) ? -v : v;
}

/* FP8 E4M3 (the OCP format: bias 7, no infinities, largest value 448,
 * 0x7f the NaN) from a float, rounded to nearest even; values beyond 464
 * become NaN. */
static inline GS_HD uint8_t fp8_from_float(float f)
{
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 24) & 0x80u, ax = x & 0x7fffffffu;
  const uint32_t code = ax >= 0x7f800000u ? 0x7fu : narrow_float_bits(ax, 3, -6);
  return (uint8_t)(sign | (code > 0x7eu ? 0x7fu : code));
}

static inline GS_HD float fp8_to_float(uint8_t b)
{
  if ((b & 0x7fu) == 0x7fu) return NAN;
  const float v = narrow_float_value((b >> 3) & 0xfu, b & 0x7u, 3, -6);
  return (b & 0x80u) ? -v : v;
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
