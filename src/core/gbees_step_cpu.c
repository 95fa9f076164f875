/* One GBEES time step on the CPU: growth, velocities, the CFL rate, the
 * conservative flux update, normalization and pruning.
 *
 * Every flux lives on a face and is owned by the face's lower cell: the
 * donor-cell flux, the corner-transport-upwind (CTU) transverse terms and
 * the MC-limited second-order correction of the face between X and X + e_j
 * are summed into flux[X, j], and each cell then changes by
 * -dt/dx_j (flux[X, j] - flux[X - e_j, j]). A face with a missing cell on
 * either side carries nothing, so the update conserves mass exactly (to
 * rounding); the reference code lets mass leave through missing + faces.
 * The CTU terms are gathered by the cell that owns the face they land on,
 * so cells are updated in parallel without atomics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbees_internal.h"
#include "gbees_math.h"
#include "gs_cpu.h"

#define NB(g, c, i, side) ((g)->nbr[(size_t)(c) * 2 * (g)->dim + 2 * (i) + (side)])
#define V(g, c, i) ((g)->v[(size_t)(c) * (g)->dim + (i)])

static void cell_center(const gs_gbees *g, int32_t c, double *x)
{
  for (int i = 0; i < g->dim; i++) x[i] = g->opt.center[i] + g->opt.dx[i] * g->key[(size_t)c * g->dim + i];
}

static gs_status check_velocities(const gs_gbees *g, int32_t first, char *msg)
{
  for (int32_t c = first; c < g->n_cells; c++) {
    if (isfinite(g->rate[c])) continue;
    double x[GS_GBEES_MAX_DIM];
    cell_center(g, c, x);
    char at[160];
    int len = 0;
    for (int i = 0; i < g->dim && len < (int)sizeof at - 24; i++)
      len += snprintf(at + len, sizeof at - len, "%s%.6g", i ? ", " : "", x[i]);
    return gs_set_msg(msg, GS_ERR_ARG, "the model's vector field is not finite near the state (%s) at time %.6g", at,
                      g->time);
  }
  return GS_OK;
}

GS_CPU_DISPATCH
static void builtin_velocities(gs_gbees *g, int32_t first)
{
  int d = g->dim;
#pragma omp parallel for schedule(static) num_threads(g->opt.threads)
  for (int32_t c = first; c < g->n_cells; c++) {
    double x[GS_GBEES_MAX_DIM], rate = 0.0;
    cell_center(g, c, x);
    for (int i = 0; i < d; i++) {
      double xi = x[i];
      x[i] += 0.5 * g->opt.dx[i];
      double v = gbees_builtin_field(g->model.kind, g->model.par, d, x, i);
      x[i] = xi;
      V(g, c, i) = v;
      rate += fabs(v) / g->opt.dx[i];
    }
    g->rate[c] = rate;
  }
}

/* A user field is called once for all new cells: dim states per cell (one
 * per face centre), of which component i of the i-th is kept. */
static gs_status callback_velocities(gs_gbees *g, int32_t first, double t, char *msg)
{
  int d = g->dim;
  size_t n_new = (size_t)(g->n_cells - first), n_points = n_new * d;
  if (n_new == 0) return GS_OK;
  double *x = (double *)malloc(2 * n_points * d * sizeof(double));
  if (!x)
    return gs_set_msg(msg, GS_ERR_NOMEM, "%.0f model evaluations do not fit in host memory", (double)n_points);
  double *f = x + n_points * d;
  for (size_t k = 0; k < n_new; k++) {
    double center[GS_GBEES_MAX_DIM];
    cell_center(g, first + (int32_t)k, center);
    for (int i = 0; i < d; i++) {
      double *p = x + (k * d + i) * d;
      memcpy(p, center, d * sizeof(double));
      p[i] += 0.5 * g->opt.dx[i];
    }
  }
  if (g->model.field(g->model.ctx, t, x, n_points, f, msg) != 0) {
    free(x);
    return GS_ERR_ARG;
  }
  for (size_t k = 0; k < n_new; k++) {
    int32_t c = first + (int32_t)k;
    double rate = 0.0;
    for (int i = 0; i < d; i++) {
      double v = f[(k * d + i) * d + i];
      V(g, c, i) = v;
      rate += fabs(v) / g->opt.dx[i];
    }
    g->rate[c] = rate;
  }
  free(x);
  return GS_OK;
}

gs_status gbees_velocities(gs_gbees *g, int32_t first, double t, char *msg)
{
  gs_status st = GS_OK;
  if (g->model.kind == GS_GBEES_CALLBACK)
    st = callback_velocities(g, first, t, msg);
  else
    builtin_velocities(g, first);
  return st != GS_OK ? st : check_velocities(g, first, msg);
}

/* New cells downwind of every cell at or above the threshold: the face
 * neighbour in the direction of each velocity component and the edge
 * neighbours beside it, as in the GBEES papers. */
gs_status gbees_grow(gs_gbees *g, char *msg)
{
  int d = g->dim;
  int32_t n = g->n_cells, first = n;
  for (int32_t c = 0; c < n; c++) {
    if (!(g->prob[c] >= g->opt.threshold)) continue;
    int32_t key[GS_GBEES_MAX_DIM];
    memcpy(key, g->key + (size_t)c * d, d * sizeof(int32_t));
    for (int i = 0; i < d; i++) {
      double vi = V(g, c, i);
      if (vi == 0.0) continue;
      int si = vi > 0.0, step_i = si ? 1 : -1;
      int32_t face = NB(g, c, i, si);
      key[i] += step_i;
      if (face == GBEES_NONE && gbees_grid_insert(g, key, msg) == GBEES_NONE) return GS_ERR_NOMEM;
      for (int j = 0; j < d; j++) {
        double vj = V(g, c, j);
        if (j == i || vj == 0.0) continue;
        int sj = vj > 0.0;
        if (face != GBEES_NONE && NB(g, face, j, sj) != GBEES_NONE) continue;
        key[j] += sj ? 1 : -1;
        int32_t added = gbees_grid_insert(g, key, msg);
        key[j] -= sj ? 1 : -1;
        if (added == GBEES_NONE) return GS_ERR_NOMEM;
      }
      key[i] -= step_i;
    }
  }
  if (g->n_cells == first) return GS_OK;
  gs_status st = gbees_velocities(g, first, g->time, msg);
  if (st != GS_OK) return st;
  gbees_grid_link(g, first);
  return GS_OK;
}

double gbees_max_rate(const gs_gbees *g)
{
  double m = 0.0;
#pragma omp parallel for schedule(static) reduction(max : m) num_threads(g->opt.threads)
  for (int32_t c = 0; c < g->n_cells; c++) m = fmax(m, g->rate[c]);
  return m;
}

/* The jump term dt (P(A) - P(A - e_i)) / (2 dx_i) of A's lower face in
 * dimension i, 0 where there is no such face or A is missing. */
static inline double face_jump(const gs_gbees *g, int32_t a, int i)
{
  return a == GBEES_NONE ? 0.0 : g->face[(size_t)a * g->dim + i];
}

/* Total flux through the + face of cell x in dimension j. */
static double upper_face_flux(const gs_gbees *g, int32_t x, int j, double dt)
{
  int32_t k = NB(g, x, j, 1);
  if (k == GBEES_NONE) return 0.0;
  int d = g->dim;
  const double *P = g->prob;
  double u = V(g, x, j), vj_pos = fmax(u, 0.0), vj_neg = fmin(u, 0.0);
  double flux = vj_pos * P[x] + vj_neg * P[k];

  /* CTU: the transverse part of the waves crossing the faces in dimension
   * i != j next to this face. */
  for (int i = 0; i < d; i++) {
    if (i == j) continue;
    int32_t xm = NB(g, x, i, 0), xp = NB(g, x, i, 1), km = NB(g, k, i, 0), kp = NB(g, k, i, 1);
    if (xm != GBEES_NONE) flux -= fmax(V(g, xm, i), 0.0) * vj_pos * face_jump(g, x, i);
    flux -= fmin(V(g, x, i), 0.0) * vj_pos * face_jump(g, xp, i);
    if (km != GBEES_NONE) flux -= fmax(V(g, km, i), 0.0) * vj_neg * face_jump(g, k, i);
    flux -= fmin(V(g, k, i), 0.0) * vj_neg * face_jump(g, kp, i);
  }

  /* second-order correction, limited by the upwind jump */
  double jump = face_jump(g, k, j);
  if (jump != 0.0) {
    double dP = P[k] - P[x], theta;
    if (u > 0.0) {
      int32_t xm = NB(g, x, j, 0);
      theta = (P[x] - (xm == GBEES_NONE ? 0.0 : P[xm])) / dP;
    } else {
      int32_t kp = NB(g, k, j, 1);
      theta = ((kp == GBEES_NONE ? 0.0 : P[kp]) - P[k]) / dP;
    }
    double au = fabs(u);
    flux += au * (g->opt.dx[j] / dt - au) * jump * gbees_mc_limiter(theta);
  }
  return flux;
}

GS_CPU_DISPATCH
void gbees_advect(gs_gbees *g, double dt)
{
  int d = g->dim;
  int32_t n = g->n_cells;
  double *P = g->prob, before = 0.0, after = 0.0, clipped = 0.0;

#pragma omp parallel num_threads(g->opt.threads)
  {
#pragma omp for schedule(static) reduction(+ : before)
    for (int32_t c = 0; c < n; c++) {
      before += P[c];
      for (int i = 0; i < d; i++) {
        int32_t m = NB(g, c, i, 0);
        g->face[(size_t)c * d + i] = m == GBEES_NONE ? 0.0 : dt * (P[c] - P[m]) / (2.0 * g->opt.dx[i]);
      }
    }
#pragma omp for schedule(static)
    for (int32_t c = 0; c < n; c++)
      for (int j = 0; j < d; j++) g->flux[(size_t)c * d + j] = upper_face_flux(g, c, j, dt);
#pragma omp for schedule(static) reduction(+ : after, clipped)
    for (int32_t c = 0; c < n; c++) {
      double p = P[c];
      for (int j = 0; j < d; j++) {
        int32_t m = NB(g, c, j, 0);
        double in = m == GBEES_NONE ? 0.0 : g->flux[(size_t)m * d + j];
        p -= dt / g->opt.dx[j] * (g->flux[(size_t)c * d + j] - in);
      }
      after += p;
      if (p < 0.0) {
        clipped -= p;
        p = 0.0;
      }
      P[c] = p;
    }
  }
  g->info.mass_error = fmax(g->info.mass_error, fabs(after - before));
  g->info.clipped_mass += clipped;
}

void gbees_normalize(gs_gbees *g)
{
  double sum = 0.0;
  int32_t n = g->n_cells;
#pragma omp parallel for schedule(static) reduction(+ : sum) num_threads(g->opt.threads)
  for (int32_t c = 0; c < n; c++) sum += g->prob[c];
  if (!(sum > 0.0)) return;
#pragma omp parallel for schedule(static) num_threads(g->opt.threads)
  for (int32_t c = 0; c < n; c++) g->prob[c] /= sum;
}

/* Whether a significant neighbour (face or edge) sends mass into cell c. */
static int receives_inflow(const gs_gbees *g, int32_t c)
{
  int d = g->dim;
  double thr = g->opt.threshold;
  for (int i = 0; i < d; i++) {
    for (int side = 0; side < 2; side++) {
      /* side 0: the cell below, inflow if its v_i > 0; side 1: above, v_i < 0 */
      int32_t a = NB(g, c, i, side);
      if (a == GBEES_NONE) continue;
      double sign_i = side ? -1.0 : 1.0;
      if (sign_i * V(g, a, i) > 0.0 && g->prob[a] >= thr) return 1;
      for (int j = 0; j < d; j++) {
        if (j == i) continue;
        for (int sj = 0; sj < 2; sj++) {
          int32_t e = NB(g, a, j, sj);
          double sign_j = sj ? -1.0 : 1.0;
          if (e != GBEES_NONE && sign_i * V(g, e, i) > 0.0 && sign_j * V(g, e, j) > 0.0 && g->prob[e] >= thr)
            return 1;
        }
      }
    }
  }
  return 0;
}

typedef struct {
  double prob;
  int32_t cell;
} prune_candidate;

static int candidate_order(const void *a, const void *b)
{
  double pa = ((const prune_candidate *)a)->prob, pb = ((const prune_candidate *)b)->prob;
  if (pa != pb) return pa < pb ? -1 : 1;
  int32_t ca = ((const prune_candidate *)a)->cell, cb = ((const prune_candidate *)b)->cell;
  return (ca > cb) - (ca < cb);
}

/* Removes cells below the threshold that receive no significant inflow, the
 * smallest first, while each removed mass stays below the threshold
 * relative to the mass that remains. */
gs_status gbees_prune(gs_gbees *g, char *msg)
{
  int32_t n = g->n_cells;
  g->steps_since_prune = 0;
  unsigned char *keep = (unsigned char *)malloc((size_t)n);
  prune_candidate *cand = (prune_candidate *)malloc((size_t)n * sizeof(prune_candidate));
  if (!keep || !cand) {
    free(keep);
    free(cand);
    return gs_set_msg(msg, GS_ERR_NOMEM, "pruning %d GBEES cells ran out of host memory", n);
  }
#pragma omp parallel for schedule(static) num_threads(g->opt.threads)
  for (int32_t c = 0; c < n; c++) keep[c] = !(g->prob[c] < g->opt.threshold) || receives_inflow(g, c);
  int32_t n_cand = 0;
  for (int32_t c = 0; c < n; c++)
    if (!keep[c]) cand[n_cand++] = (prune_candidate){g->prob[c], c};
  for (int32_t c = 0; c < n; c++) keep[c] = 1;
  qsort(cand, (size_t)n_cand, sizeof *cand, candidate_order);
  double removed = 0.0;
  for (int32_t k = 0; k < n_cand; k++) {
    double total = removed + cand[k].prob;
    if (!(cand[k].prob / (1.0 - total) < g->opt.threshold)) break;
    removed = total;
    keep[cand[k].cell] = 0;
  }
  g->info.pruned_mass += removed;
  gbees_grid_compact(g, keep);
  free(keep);
  free(cand);
  return GS_OK;
}
