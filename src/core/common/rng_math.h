/* A counter-based uniform generator: draw i of stream seed is a fixed
 * function of (seed, i), so any thread of the CPU or the GPU produces the
 * same numbers for the same seed, whatever the order of evaluation. The
 * function is SplitMix64's output mix applied to seed + (i + 1) * golden
 * gamma, i.e. element i of the SplitMix64 stream started at seed. */
#ifndef GS_RNG_MATH_H
#define GS_RNG_MATH_H

#include <stdint.h>

#include "gs_common.h"

GS_HD static inline uint64_t rng_mix64(uint64_t z)
{
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Uniform on (0, 1): 53 random bits, offset by half a step so that neither
 * 0 nor 1 is drawn. */
GS_HD static inline double rng_uniform(uint64_t seed, uint64_t i)
{
  uint64_t r = rng_mix64(seed + (i + 1) * UINT64_C(0x9e3779b97f4a7c15));
  return ((double)(r >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

#endif
