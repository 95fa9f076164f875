/* DCTs on the CPU through FFTW's r2r plans: one plan for a column, executed
 * on every column by the threads of the package's thread policy (the new-array
 * execute is thread-safe; the planner is not, so it runs on the calling
 * thread only). */
#include <math.h>

#include "gs_cpu.h"
#include "gs_poly.h"
#include "poly_internal.h"
#include "poly_fftw.h"

#ifdef GS_HAVE_FFTW

int gs_poly_have_fftw(void) { return 1; }

static fftw_r2r_kind dct_kind(int type)
{
  return type == 2 ? FFTW_REDFT10 : type == 3 ? FFTW_REDFT01 : FFTW_REDFT11;
}

gs_status gs_dct_cpu(int type, long n, long batch, const double *in, double *out, int threads, char *msg)
{
  if (type < 2 || type > 4) return gs_set_msg(msg, GS_ERR_ARG, "DCT type %d: 2, 3 or 4 are supported", type);
  if (n < 1 || batch < 1) return GS_OK;
  if (n > 2147483647L) return gs_set_msg(msg, GS_ERR_ARG, "a DCT of length %ld is too long", n);
  if (in != out)
    for (long i = 0; i < n * batch; ++i) out[i] = in[i];
  fftw_plan p = fftw_plan_r2r_1d((int)n, out, out, dct_kind(type), FFTW_ESTIMATE | FFTW_UNALIGNED);
  if (!p) return gs_set_msg(msg, GS_ERR_NOMEM, "FFTW could not plan a DCT of length %ld", n);
  const int nt = gs_cpu_threads_for(threads, 5.0 * n * batch * (1.0 + log((double)n)) / POLY_FLOPS_PER_WORK);
#pragma omp parallel for num_threads(nt) schedule(static)
  for (long j = 0; j < batch; ++j) fftw_execute_r2r(p, out + j * n, out + j * n);
  fftw_destroy_plan(p);
  return GS_OK;
}

#else

int gs_poly_have_fftw(void) { return 0; }

gs_status gs_dct_cpu(int type, long n, long batch, const double *in, double *out, int threads, char *msg)
{
  (void)type, (void)n, (void)batch, (void)in, (void)out, (void)threads;
  return gs_poly_no_fftw(msg);
}

#endif
