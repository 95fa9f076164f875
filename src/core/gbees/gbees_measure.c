/* GBEES measurement updates with Gaussian noise: the log-likelihood of every
 * cell centre on the grid's device, for a measurement of states (the
 * package's code) or a user's measurement function (compiled at run time),
 * through the one likelihood of gbees_field_math.h, then Bayes' rule
 * (gs_gbees_reweight). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbees_cpu.h"
#include "gbees_internal.h"
#include "gs_cpu.h"

struct gs_gbees_measurement {
  int device, dim, m;
  int by_state;                       /* h observes the states index */
  int index[GS_GBEES_MAX_DIM];
  double L[GS_GBEES_MAX_DIM * GS_GBEES_MAX_DIM];
  gs_gbees_loglik_fn loglik;          /* a user's function on the CPU */
  gbees_gpu_measurement *gpu;         /* on a GPU */
};

static gs_status check_spec(const gs_gbees_measurement_spec *spec, char *msg)
{
  int d = spec->dim, m = spec->m;
  if (d < 1 || d > GS_GBEES_MAX_DIM) return gs_set_msg(msg, GS_ERR_ARG, "GBEES needs 1 to %d dimensions", GS_GBEES_MAX_DIM);
  if (m < 1 || m > GS_GBEES_MAX_DIM)
    return gs_set_msg(msg, GS_ERR_ARG, "a measurement observes 1 to %d quantities, not %d", GS_GBEES_MAX_DIM, m);
  if (!spec->index && !(spec->device < 0 ? spec->loglik != NULL : spec->device_source != NULL))
    return gs_set_msg(msg, GS_ERR_ARG, "the measurement function is not compiled for the %s",
                      spec->device < 0 ? "CPU" : "GPU");
  for (int j = 0; j < m; j++) {
    if (spec->index && (spec->index[j] < 0 || spec->index[j] >= d))
      return gs_set_msg(msg, GS_ERR_ARG, "the measurement observes state %d; the model has %d", spec->index[j] + 1, d);
    if (!(spec->L[j + j * m] > 0.0) || !isfinite(spec->L[j + j * m]))
      return gs_set_msg(msg, GS_ERR_ARG, "the noise covariance is not positive definite");
  }
  return GS_OK;
}

gs_status gs_gbees_measurement_create(const gs_gbees_measurement_spec *spec, gs_gbees_measurement **out, char *msg)
{
  *out = NULL;
  gs_status st = check_spec(spec, msg);
  if (st != GS_OK) return st;
  gs_gbees_measurement *h = (gs_gbees_measurement *)calloc(1, sizeof *h);
  if (!h) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  *h = (gs_gbees_measurement){.device = spec->device, .dim = spec->dim, .m = spec->m, .by_state = spec->index != NULL,
                              .loglik = spec->index ? NULL : spec->loglik};
  if (spec->index) memcpy(h->index, spec->index, spec->m * sizeof(int));
  memcpy(h->L, spec->L, (size_t)spec->m * spec->m * sizeof(double));
  if (spec->device >= 0 &&
      (st = gbees_gpu_measurement_start(spec->device, spec->dim, spec->index ? NULL : spec->device_source, &h->gpu,
                                        msg)) != GS_OK) {
    gs_gbees_measurement_free(h);
    return st;
  }
  *out = h;
  return GS_OK;
}

void gs_gbees_measurement_free(gs_gbees_measurement *h)
{
  if (!h) return;
  gbees_gpu_measurement_free(h->gpu);
  free(h);
}

gbees_geometry gbees_grid_geometry(const gs_gbees *g)
{
  gbees_geometry geo;
  memcpy(geo.center, g->opt.center, sizeof geo.center);
  memcpy(geo.dx, g->opt.dx, sizeof geo.dx);
  return geo;
}

/* The log-likelihood of every cell of a grid on the host. */
static void host_loglik(const gs_gbees *g, const gs_gbees_measurement *h, const gbees_observation *obs,
                        double *loglik)
{
  int32_t n = g->n_cells;
  int d = g->dim;
  gbees_geometry geo = gbees_grid_geometry(g);
#pragma omp parallel for schedule(static) num_threads(gbees_team(g, n))
  for (int32_t c = 0; c < n; c++) {
    const int32_t *key = g->key + (size_t)c * d;
    loglik[c] = h->by_state ? gbees_cell_loglik(gbees_state_component, h->index, obs, &geo, d, key)
                            : h->loglik(obs, &geo, key);
  }
}

gs_status gs_gbees_measure(gs_gbees *g, const gs_gbees_measurement *h, double t, int m, const double *y, char *msg)
{
  int device = g->gpu ? g->opt.device : -1;
  if (m != h->m) return gs_set_msg(msg, GS_ERR_ARG, "the measurement observes %d quantities, not %d", h->m, m);
  if (h->dim != g->dim || h->device != device)
    return gs_set_msg(msg, GS_ERR_ARG, "the measurement was prepared for %d states on device %d, not %d on %d", h->dim,
                      h->device, g->dim, device);
  gbees_observation obs = {.t = t, .m = h->m};
  memcpy(obs.y, y, h->m * sizeof(double));
  memcpy(obs.L, h->L, (size_t)h->m * h->m * sizeof(double));
  int32_t n = g->n_cells;
  double *loglik = (double *)malloc((size_t)n * sizeof(double) + 1);
  if (!loglik) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for %d cells", n);
  gs_status st = GS_OK;
  const double since = gs_wall_seconds();
  if (g->gpu)
    st = gbees_gpu_measurement_loglik(g, h->gpu, h->by_state ? h->index : NULL, &obs, loglik, msg);
  else
    host_loglik(g, h, &obs, loglik);
  gbees_lap(g, GS_GBEES_PHASE_UPDATE, since);
  if (st == GS_OK) st = gs_gbees_reweight(g, loglik, msg);
  free(loglik);
  return st;
}
