/* Monte Carlo reference for GBEES: each sample follows the model with
 * classical fourth-order Runge-Kutta steps. Built-in fields run one sample
 * per thread; a user field is called once per stage for all samples (on a
 * GPU, its compiled device code runs one sample per thread). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbees_math.h"
#include "gs_cpu.h"
#include "gbees_internal.h"

GS_CPU_DISPATCH
static void builtin_rk4(const gs_gbees_model *m, int threads, double *x, size_t n, long n_steps, double h)
{
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < n; p++) gbees_builtin_rk4(m->kind, m->par, m->dim, x + p * m->dim, n_steps, h);
}

static gs_status callback_rk4(const gs_gbees_model *m, double *x, size_t n, double t0, long n_steps, double h,
                              char *msg)
{
  size_t len = n * m->dim;
  double *k = (double *)malloc(5 * len * sizeof(double));
  if (!k) return gs_set_msg(msg, GS_ERR_NOMEM, "%.0f Monte Carlo states do not fit in host memory", (double)n);
  double *z = k + 4 * len;
  static const double frac[4] = {0.0, 0.5, 0.5, 1.0};
  for (long s = 0; s < n_steps; s++) {
    double t = t0 + s * h;
    for (int st = 0; st < 4; st++) {
      for (size_t q = 0; q < len; q++) z[q] = st ? x[q] + frac[st] * h * k[(st - 1) * len + q] : x[q];
      if (m->field(m->ctx, t + frac[st] * h, z, n, k + st * len, msg) != 0) {
        free(k);
        return GS_ERR_ARG;
      }
    }
    for (size_t q = 0; q < len; q++) x[q] += h / 6.0 * (k[q] + 2.0 * k[len + q] + 2.0 * k[2 * len + q] + k[3 * len + q]);
  }
  free(k);
  return GS_OK;
}

gs_status gs_gbees_monte_carlo(const gs_gbees_model *model, int threads, int device, double *x, size_t n, double t0,
                               double t1, double step, char *msg)
{
  if (!(t1 >= t0) || !(step > 0.0)) return gs_set_msg(msg, GS_ERR_ARG, "need t1 >= t0 and a positive step");
  if (device >= 0 && model->kind == GS_GBEES_CALLBACK && !model->device_source)
    return gs_set_msg(msg, GS_ERR_ARG, "a model given as an R function runs on the CPU only");
  if (t1 == t0 || n == 0) return GS_OK;
  long n_steps = (long)ceil((t1 - t0) / step);
  double h = (t1 - t0) / (double)n_steps;
  if (device >= 0) return gbees_gpu_monte_carlo(device, model, x, n, t0, n_steps, h, msg);
  if (model->kind == GS_GBEES_CALLBACK) return callback_rk4(model, x, n, t0, n_steps, h, msg);
  builtin_rk4(model, gs_cpu_threads_for(threads, (double)n * (double)n_steps), x, n, n_steps, h);
  return GS_OK;
}
