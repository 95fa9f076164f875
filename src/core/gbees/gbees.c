/* GBEES driver: the initial Gaussian grid, time marching to a requested
 * time, Bayesian measurement updates and read-out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbees_cpu.h"

static gs_status check_options(const gs_gbees_model *model, const gs_gbees_options *opt, char *msg)
{
  int d = model->dim;
  if (d < 1 || d > GS_GBEES_MAX_DIM)
    return gs_set_msg(msg, GS_ERR_ARG, "GBEES needs 1 to %d dimensions, not %d", GS_GBEES_MAX_DIM, d);
  if (model->kind == GS_GBEES_CALLBACK ? !model->field && !model->velocities && !model->device_source
                                       : (model->kind < GS_GBEES_LORENZ63 || model->kind > GS_GBEES_PCR3BP))
    return gs_set_msg(msg, GS_ERR_ARG, "unknown GBEES model");
  for (int i = 0; i < d; i++) {
    if (!(opt->dx[i] > 0.0) || !isfinite(opt->dx[i]) || !isfinite(opt->center[i]))
      return gs_set_msg(msg, GS_ERR_ARG, "cell widths must be positive and finite and the centre finite");
    if (fabs(opt->center[i]) * GS_GBEES_MIN_RELATIVE_DX > opt->dx[i])
      return gs_set_msg(msg, GS_ERR_ARG,
                        "cells %.3g wide cannot be told apart near state %d = %.6g in double precision: use cells at "
                        "least %.3g wide, or shift the states towards 0",
                        opt->dx[i], i + 1, opt->center[i], fabs(opt->center[i]) * GS_GBEES_MIN_RELATIVE_DX);
  }
  if (!(opt->threshold >= 0.0 && opt->threshold < 1.0))
    return gs_set_msg(msg, GS_ERR_ARG, "the threshold must be in [0, 1)");
  if (!(opt->cfl > 0.0 && opt->cfl <= 1.0)) return gs_set_msg(msg, GS_ERR_ARG, "cfl must be in (0, 1]");
  if (opt->prune_every < 1) return gs_set_msg(msg, GS_ERR_ARG, "prune_every must be at least 1");
  return gbees_model_device_check(model, opt->device, msg);
}

static void note_size(gs_gbees *g)
{
  if ((size_t)g->n_cells > g->info.peak_cells) g->info.peak_cells = (size_t)g->n_cells;
}

double gbees_lap(gs_gbees *g, int phase, double since)
{
  double now = gs_wall_seconds();
  g->info.phase_seconds[phase] += now - since;
  return now;
}

/* The grid's cells at t0 on the host, their velocities (unless a GPU
 * computes them) and links, normalized. */
static gs_status initial_grid(gs_gbees *g, const double *prec, const int *half_width, double t0, char *msg)
{
  gs_status st = gbees_scratch_new(g, msg);
  if (st == GS_OK) st = gbees_grid_fill_box(g, prec, half_width, msg);
  if (st != GS_OK) return st;
  /* a user field on a GPU gives the first velocities there too */
  if (g->opt.device >= 0 && g->model.kind == GS_GBEES_CALLBACK) {
    gbees_grid_link(g, 0);
  } else {
    st = gbees_settle(g, 0, NULL, t0, gbees_team(g, g->n_cells), msg);
    g->dt = gbees_courant_step(g->opt.cfl, g->max_rate);
  }
  if (st == GS_OK) gbees_normalize(g);
  return st;
}

gs_status gs_gbees_create(const gs_gbees_model *model, const gs_gbees_options *opt, const double *prec,
                          const int *half_width, double t0, gs_gbees **out, char *msg)
{
  *out = NULL;
  gs_status st = check_options(model, opt, msg);
  if (st != GS_OK) return st;
  gs_gbees *g = (gs_gbees *)calloc(1, sizeof *g);
  if (!g) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  g->model = *model;
  g->opt = *opt;
  g->opt.threads = gs_cpu_threads(opt->threads);
  g->dim = model->dim;
  g->time = t0;
  g->dt = INFINITY;
  double since = gs_wall_seconds();
  st = initial_grid(g, prec, half_width, t0, msg);
  note_size(g);
  if (st == GS_OK && opt->device >= 0) st = gbees_gpu_start(g, opt->device, msg);
  if (st != GS_OK) {
    gs_gbees_free(g);
    return st;
  }
  gbees_lap(g, GS_GBEES_PHASE_SETUP, since);
  g->model.device_source = NULL; /* not kept (gs_gbees_model) */
  *out = g;
  return GS_OK;
}

void gs_gbees_free(gs_gbees *g)
{
  if (!g) return;
  gbees_gpu_free(g->gpu);
  gbees_grid_free(g);
  gbees_scratch_free(g);
  free(g);
}

gs_status gbees_step_guard(const gs_gbees *g, double dt, double t_end, char *msg)
{
  if (!(dt < INFINITY)) return GS_OK; /* nothing moves, or the step is not known yet */
  double steps = (t_end - g->time) / dt;
  if (steps > GS_GBEES_MAX_STEPS)
    return gs_set_msg(msg, GS_ERR_ARG,
                      "reaching time %.6g from %.6g would take about %.3g time steps of %.3g (cfl %.3g over the "
                      "largest sum_i |v_i| / dx_i, %.3g), more than the %.0e allowed: use wider cells, a larger cfl "
                      "or a shorter time span, or check that the model's velocities are of a sensible size",
                      t_end, g->time, steps, dt, g->opt.cfl, g->opt.cfl / dt, GS_GBEES_MAX_STEPS);
  double latest = fmax(fabs(g->time), fabs(t_end)), spacing = nextafter(latest, INFINITY) - latest;
  if (spacing * GS_GBEES_MIN_STEP_ULPS > dt)
    return gs_set_msg(msg, GS_ERR_ARG,
                      "near time %.6g double precision resolves times only to %.3g, too coarse for time steps of "
                      "%.3g: the time span is lost in rounding; measure time from a nearer origin (t0 closer to 0)",
                      latest, spacing, dt);
  return GS_OK;
}

int gbees_progress(gs_gbees *g, double t_start, double t_end)
{
  double now = gs_wall_seconds();
  if (!g->opt.progress || now - g->last_report < 0.1) return 0;
  g->last_report = now;
  return g->opt.progress(t_end > t_start ? (g->time - t_start) / (t_end - t_start) : 1.0);
}

gs_status gs_gbees_propagate(gs_gbees *g, double t_end, char *msg)
{
  if (!(t_end >= g->time))
    return gs_set_msg(msg, GS_ERR_ARG, "cannot propagate backwards, from time %.6g to %.6g", g->time, t_end);
  gs_status guard = gbees_step_guard(g, g->dt, t_end, msg);
  if (guard != GS_OK) return guard;
  if (g->gpu) return gbees_gpu_propagate(g, t_end, msg);
  double t_start = g->time;
  while (g->time < t_end) {
    gs_status st = gbees_cpu_step(g, t_end, msg);
    if (st != GS_OK) return st;
    double since = gs_wall_seconds();
    int stop = gbees_progress(g, t_start, t_end);
    gbees_lap(g, GS_GBEES_PHASE_PROGRESS, since);
    if (stop) return gs_interrupted(msg);
  }
  return GS_OK;
}

static gs_status reweight(gs_gbees *g, const double *loglik, char *msg)
{
  int32_t n = g->n_cells;
  double *prob = g->prob;
  if (g->gpu) {
    if (!(prob = (double *)malloc((size_t)n * sizeof(double) + 1)))
      return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for %d probabilities", n);
    gs_status st = gbees_gpu_cells(g, NULL, prob, msg);
    if (st != GS_OK) {
      free(prob);
      return st;
    }
  }
  double top = -INFINITY;
  int32_t nan_at = n;
  gs_status st = GS_OK;
  /* the largest and the first are the same whatever the threads' share */
#pragma omp parallel for schedule(static) num_threads(gbees_team(g, n)) reduction(max : top) reduction(min : nan_at)
  for (int32_t c = 0; c < n; c++) {
    if (isnan(loglik[c]))
      nan_at = c < nan_at ? c : nan_at;
    else if (prob[c] > 0.0 && loglik[c] > top)
      top = loglik[c];
  }
  if (nan_at < n) st = gs_set_msg(msg, GS_ERR_ARG, "the measurement log-likelihood is NaN at cell %d", nan_at + 1);
  /* exp(top) == 0: the measurement lies tens of standard deviations from every cell that holds mass, so
   * the update would keep only the cells nearest to it, whatever the density said */
  if (st == GS_OK && !(exp(top) > 0.0))
    st = gs_set_msg(msg, GS_ERR_ARG,
                    "the measurement is impossible under the propagated density: its likelihood underflows to 0 "
                    "wherever the density is positive (largest log-likelihood %.4g); check y, h and cov",
                    top);
  if (st == GS_OK) {
#pragma omp parallel for schedule(static) num_threads(gbees_team(g, n))
    for (int32_t c = 0; c < n; c++) prob[c] *= exp(loglik[c] - top);
    if (g->gpu) {
      st = gbees_gpu_reweighted(g, prob, msg);
    } else {
      gbees_normalize(g);
      st = gbees_prune(g, msg);
      gbees_normalize(g);
    }
  }
  if (g->gpu) free(prob);
  return st;
}

gs_status gs_gbees_reweight(gs_gbees *g, const double *loglik, char *msg)
{
  double since = gs_wall_seconds();
  gs_status st = reweight(g, loglik, msg);
  gbees_lap(g, GS_GBEES_PHASE_UPDATE, since);
  return st;
}

size_t gs_gbees_cell_count(const gs_gbees *g)
{
  return (size_t)g->n_cells;
}

int gs_gbees_dim(const gs_gbees *g)
{
  return g->dim;
}

gs_status gs_gbees_cells(const gs_gbees *g, int32_t *keys, double *prob, char *msg)
{
  if (g->gpu) return gbees_gpu_cells(g, keys, prob, msg);
  memcpy(keys, g->key, (size_t)g->n_cells * g->dim * sizeof(int32_t));
  memcpy(prob, g->prob, (size_t)g->n_cells * sizeof(double));
  return GS_OK;
}

void gs_gbees_get_info(const gs_gbees *g, gs_gbees_info *info)
{
  *info = g->info;
  info->cells = (size_t)g->n_cells;
  info->time = g->time;
  if (!g->gpu) info->memory_bytes = gbees_grid_bytes(g);
}
