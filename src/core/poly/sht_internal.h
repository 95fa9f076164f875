/* The Legendre part of the CPU spherical-harmonic transforms
 * (sht_legendre_cpu.c), called by the driver (sht_cpu.c). */
#ifndef GS_SHT_INTERNAL_H
#define GS_SHT_INTERNAL_H

#include "gs_poly.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Latitudes per block: the recurrence runs on SHT_LANES lanes at once (one
 * vector loop the compiler turns into SIMD instructions). */
#define SHT_LANES 16

/* The latitudes as lanes: a pair of mirror latitudes x and -x (the nodes
 * and their low parts exactly opposite) shares one lane, since Pbar_l^m(-x) =
 * (-1)^(l-m) Pbar_l^m(x); other latitudes have a lane of their own. Lanes
 * are sorted by |x| from the equator, padded to a multiple of SHT_LANES. */
typedef struct {
  long n;
  long *north, *south; /* latitude indices; south (or both, padding) -1 */
  double *x, *x_lo, *sin_t, *w_n, *w_s; /* node of the north latitude, sin(theta), weights (0: none) */
} sht_lanes;

gs_status sht_lanes_make(const gs_sht_args *a, sht_lanes *ln);
void sht_lanes_free(sht_lanes *ln);

/* The Legendre sums of one field over all orders: analysis turns gc/gs
 * (nlat x (lmax + 1), the longitude integrals) into the coefficients,
 * synthesis the reverse. The progress callback (or NULL) is called between
 * batches of orders; GS_ERR_INTERRUPTED when it asks to stop, GS_ERR_NOMEM
 * when out of memory. */
gs_status sht_legendre(const gs_sht_args *a, const sht_lanes *ln, double *gc, double *gs, long field, int analysis,
                       int threads, gs_progress_fn progress);

#ifdef __cplusplus
}
#endif

#endif
