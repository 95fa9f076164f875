/* Monte Carlo reference for GBEES: each sample follows the model with
 * classical fourth-order Runge-Kutta steps. Built-in fields run one sample
 * per thread, and so does a user field compiled for the CPU or a GPU; an R
 * function is called once per stage for all samples. The steps run
 * in batches sized so that one takes about GBEES_MC_BATCH_SECONDS, with
 * progress reported (and interrupts seen) between batches. Step s starts at
 * t0 + s h however the steps are batched, so batching changes no result. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbees_math.h"
#include "gs_cpu.h"
#include "gbees_internal.h"

#define GBEES_MC_BATCH_SECONDS 0.2

/* One Monte Carlo run: the states (x on the host, or on a GPU) and steps of h from t0. */
typedef struct {
  const gs_gbees_model *model;
  int threads;
  double *x;
  size_t n;
  double t0, h;
  double *stages; /* a user field on the CPU: the four stages and the stage state, n dim each */
  gbees_gpu_mc *gpu;
} mc_run;

GS_CPU_DISPATCH
static void builtin_rk4(const gs_gbees_model *m, int threads, double *x, size_t n, long n_steps, double h)
{
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t p = 0; p < n; p++) gbees_builtin_rk4(m->kind, m->par, m->dim, x + p * m->dim, n_steps, h);
}

/* A field compiled for the CPU: one sample per thread, as the built-in ones. */
static void compiled_rk4(const mc_run *r, long first, long count)
{
  const gs_gbees_model *m = r->model;
#pragma omp parallel for schedule(static) num_threads(r->threads)
  for (size_t p = 0; p < r->n; p++) m->rk4(r->x + p * m->dim, r->t0, first, count, r->h);
}

static gs_status callback_rk4(const mc_run *r, long first, long count, char *msg)
{
  const gs_gbees_model *m = r->model;
  size_t len = r->n * m->dim;
  double *x = r->x, *k = r->stages, *z = k + 4 * len, h = r->h;
  static const double frac[4] = {0.0, 0.5, 0.5, 1.0};
  for (long s = first; s < first + count; s++) {
    double t = r->t0 + s * h;
    for (int st = 0; st < 4; st++) {
      for (size_t q = 0; q < len; q++) z[q] = st ? x[q] + frac[st] * h * k[(st - 1) * len + q] : x[q];
      gs_status status = m->field(m->ctx, t + frac[st] * h, z, r->n, k + st * len, msg);
      if (status != GS_OK) return status;
    }
    for (size_t q = 0; q < len; q++) x[q] += h / 6.0 * (k[q] + 2.0 * k[len + q] + 2.0 * k[2 * len + q] + k[3 * len + q]);
  }
  return GS_OK;
}

/* Steps first .. first + count - 1. */
static gs_status advance(const mc_run *r, long first, long count, char *msg)
{
  if (r->gpu) return gbees_gpu_mc_advance(r->gpu, r->t0, first, count, r->h, msg);
  if (r->model->kind == GS_GBEES_CALLBACK) {
    if (!r->model->rk4) return callback_rk4(r, first, count, msg);
    compiled_rk4(r, first, count);
    return GS_OK;
  }
  builtin_rk4(r->model, r->threads, r->x, r->n, count, r->h);
  return GS_OK;
}

static gs_status run_batches(const mc_run *r, long n_steps, gs_progress_fn progress, char *msg)
{
  long done = 0, batch = 1;
  while (done < n_steps) {
    long count = batch < n_steps - done ? batch : n_steps - done;
    double start = gs_wall_seconds();
    gs_status st = advance(r, done, count, msg);
    if (st != GS_OK) return st;
    done += count;
    /* halved too when the machine is busier than the batch that set the size */
    double took = gs_wall_seconds() - start;
    batch = (long)gs_batch_resize((size_t)batch, took, GBEES_MC_BATCH_SECONDS, 1);
    if (progress && progress((double)done / (double)n_steps)) return gs_interrupted(msg);
  }
  return GS_OK;
}

/* The run's resources (stages on the host, or the states on a GPU), then its batches. */
static gs_status run(mc_run *r, int device, long n_steps, gs_progress_fn progress, char *msg)
{
  gs_status st = GS_OK;
  if (device >= 0) {
    st = gbees_gpu_mc_start(device, r->model, r->x, r->n, &r->gpu, msg);
  } else if (r->model->kind == GS_GBEES_CALLBACK && !r->model->rk4) {
    r->stages = (double *)malloc(5 * r->n * r->model->dim * sizeof(double));
    if (!r->stages)
      st = gs_set_msg(msg, GS_ERR_NOMEM, "%.0f Monte Carlo states do not fit in host memory", (double)r->n);
  }
  if (st == GS_OK) st = run_batches(r, n_steps, progress, msg);
  if (st == GS_OK && r->gpu) st = gbees_gpu_mc_finish(r->gpu, r->x, msg);
  gbees_gpu_mc_free(r->gpu);
  free(r->stages);
  return st;
}

gs_status gbees_model_device_check(const gs_gbees_model *model, int device, char *msg)
{
  if (model->kind != GS_GBEES_CALLBACK) return GS_OK;
  if (device >= 0 && !model->device_source)
    return gs_set_msg(msg, GS_ERR_ARG, "a model given as an R function runs on the CPU only");
  if (device < 0 && !model->field && !model->rk4)
    return gs_set_msg(msg, GS_ERR_ARG, "the model's field is not compiled for the CPU");
  return GS_OK;
}

gs_status gs_gbees_monte_carlo(const gs_gbees_model *model, int threads, int device, double *x, size_t n, double t0,
                               double t1, double step, gs_progress_fn progress, char *msg)
{
  if (!(t1 >= t0) || !(step > 0.0)) return gs_set_msg(msg, GS_ERR_ARG, "need t1 >= t0 and a positive step");
  gs_status st = gbees_model_device_check(model, device, msg);
  if (st != GS_OK) return st;
  if (t1 == t0 || n == 0) return GS_OK;
  /* counted in double first: a long holds no quotient beyond its range */
  double steps = ceil((t1 - t0) / step);
  if (!(steps <= GS_GBEES_MAX_STEPS))
    return gs_set_msg(msg, GS_ERR_ARG,
                      "following the samples from time %.6g to %.6g would take %.3g Runge-Kutta steps of at most "
                      "%.3g, more than the %.0e allowed: use a larger step or a shorter time span",
                      t0, t1, steps, step, GS_GBEES_MAX_STEPS);
  long n_steps = steps < 1.0 ? 1 : (long)steps; /* a span below the smallest double times step rounds to 0 */
  mc_run r = {model, gs_cpu_threads_for(threads, (double)n * (double)n_steps), x, n, t0, (t1 - t0) / (double)n_steps, NULL, NULL};
  return run(&r, device, n_steps, progress, msg);
}
