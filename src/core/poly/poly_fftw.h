/* FFTW3 for the CPU transforms, where configure found it (GS_HAVE_FFTW). */
#ifndef GS_POLY_FFTW_H
#define GS_POLY_FFTW_H

#include "gs_common.h"

#ifdef GS_HAVE_FFTW
#include <fftw3.h>
#endif

/* The error of an FFT-based function in a build without FFTW3. */
static inline gs_status gs_poly_no_fftw(char *msg)
{
  return gs_set_msg(msg, GS_ERR_ARG,
                    "gpustats was built without FFTW3; install libfftw3-dev (Debian/Ubuntu) or "
                    "fftw3-devel and reinstall gpustats");
}

#endif
