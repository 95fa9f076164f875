/* The two methods of the Legendre <-> Chebyshev conversions (gs_legcheb_cpu
 * dispatches): the direct O(n^2) product and the O(n log n) Toeplitz-Hankel
 * method. Both take n >= 1 and ncol >= 1 and write out (n x ncol). */
#ifndef GS_LEGCHEB_INTERNAL_H
#define GS_LEGCHEB_INTERNAL_H

#include "gs_poly.h"

gs_status gs_legcheb_direct(const gs_legcheb_args *a, char *msg);
gs_status gs_legcheb_toeplitz_hankel(const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg);

#endif
