/* GBEES arithmetic shared by the CPU loops and the GPU kernels: the built-in
 * vector fields (their velocities and Runge-Kutta steps: gbees_field_math.h),
 * measurements of states, the key hash, growth targets, the conservative
 * flux update and the pruning test. The grid is seen through gbees_cells, the same
 * arrays (cell-major) on the host or on the device. */
#ifndef GBEES_MATH_H
#define GBEES_MATH_H

#include <math.h>
#include <stdint.h>

#include "gs_common.h"
#include "gs_gbees.h"
#include "gbees_field_math.h"

#define GBEES_NONE (-1)

typedef struct {
  int dim;
  double dx[GS_GBEES_MAX_DIM];
  const int32_t *key; /* dim per cell */
  const int32_t *nbr; /* 2 dim per cell: [2i] = cell - e_i, [2i + 1] = cell + e_i, or GBEES_NONE */
  const double *v;    /* dim per cell: velocity component i at the cell's + face in dimension i */
  const double *prob;
  const double *face; /* dim per cell: (P - P(cell - e_i)) / (2 dx_i), 0 without that neighbour */
} gbees_cells;

static inline GS_HD int32_t gbees_nbr(const gbees_cells *g, int32_t c, int i, int side)
{
  return g->nbr[(size_t)c * 2 * g->dim + 2 * i + side];
}

static inline GS_HD double gbees_v(const gbees_cells *g, int32_t c, int i)
{
  return g->v[(size_t)c * g->dim + i];
}

/* max(x, 0) and min(x, 0) of a number that is not NaN, as comparisons: a C
 * compiler calls the library for fmax and fmin, which must handle NaN. */
static inline GS_HD double gbees_pos(double x) { return x > 0.0 ? x : 0.0; }
static inline GS_HD double gbees_neg(double x) { return x < 0.0 ? x : 0.0; }

/* Monotonized-central limiter phi(theta) = max(0, min((1 + theta)/2, 2, 2 theta)).
 * theta = +-Inf (a flat face) gives 2 or 0; NaN (0/0) cannot occur because
 * the caller skips faces without a jump. */
static inline GS_HD double gbees_mc_limiter(double theta)
{
  double half = 0.5 * (1.0 + theta), twice = 2.0 * theta;
  double m = half < 2.0 ? half : 2.0;
  return gbees_pos(twice < m ? twice : m);
}

/* Component i of a built-in field at x (kind != GS_GBEES_CALLBACK). */
static inline GS_HD double gbees_builtin_field(int kind, const double *par, int dim, const double *x, int i)
{
  switch (kind) {
  case GS_GBEES_LORENZ63: /* the form of the GBEES papers: sigma, b, r = par[0..2] */
    if (i == 0) return par[0] * (x[1] - x[0]);
    if (i == 1) return -x[1] - x[0] * x[2];
    return -par[1] * x[2] + x[0] * x[1] - par[1] * par[2];
  case GS_GBEES_LORENZ96: {
    int ip1 = (i + 1) % dim, im1 = (i + dim - 1) % dim, im2 = (i + dim - 2) % dim;
    return (x[ip1] - x[im2]) * x[im1] - x[i] + par[0];
  }
  case GS_GBEES_PCR3BP: {
    if (i < 2) return x[i + 2];
    double mu = par[0];
    double d1x = x[0] + mu, d2x = x[0] - 1.0 + mu, y = x[1];
    double r1 = sqrt(d1x * d1x + y * y), r2 = sqrt(d2x * d2x + y * y);
    double r1c = r1 * r1 * r1, r2c = r2 * r2 * r2;
    if (i == 2) return 2.0 * x[3] + x[0] - (1.0 - mu) * d1x / r1c - mu * d2x / r2c;
    return -2.0 * x[2] + y - (1.0 - mu) * y / r1c - mu * y / r2c;
  }
  default:
    return NAN;
  }
}

/* A built-in field as the shared field arithmetic (gbees_field_math.h) sees it. */
typedef struct {
  int kind, dim;
  const double *par;
} gbees_builtin;

static inline GS_HD double gbees_builtin_component(const void *ctx, double t, const double *x, int i)
{
  const gbees_builtin *b = (const gbees_builtin *)ctx;
  (void)t; /* the built-in fields are autonomous */
  return gbees_builtin_field(b->kind, b->par, b->dim, x, i);
}

/* The velocities of a built-in field at the + face centres of the cell
 * centred at x, into v; returns the cell's CFL rate. */
static inline GS_HD double gbees_builtin_velocity(int kind, const double *par, int dim, const double *dx, double *x,
                                                  double *v)
{
  gbees_builtin b = {.kind = kind, .dim = dim, .par = par};
  return gbees_face_velocities(gbees_builtin_component, &b, dim, 0.0, dx, x, v);
}

/* One classical Runge-Kutta path of a built-in field: n_steps steps of h. */
static inline GS_HD void gbees_builtin_rk4(int kind, const double *par, int dim, double *y, long n_steps, double h)
{
  gbees_builtin b = {.kind = kind, .dim = dim, .par = par};
  gbees_rk4(gbees_builtin_component, &b, dim, y, 0.0, 0, n_steps, h);
}

static inline GS_HD uint64_t gbees_key_hash(const int32_t *key, int dim)
{
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < dim; i++) {
    h = (h ^ (uint32_t)key[i]) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return h;
}

static inline GS_HD int gbees_key_equal(const int32_t *a, const int32_t *b, int dim)
{
  for (int i = 0; i < dim; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* The cell with this key in a table of n_slots (a power of two) slots with
 * linear probing, or GBEES_NONE. */
static inline GS_HD int32_t gbees_table_find(const int32_t *slot, int64_t n_slots, const int32_t *keys, int dim,
                                             const int32_t *key)
{
  uint64_t mask = (uint64_t)n_slots - 1, s = gbees_key_hash(key, dim) & mask;
  for (;;) {
    int32_t c = slot[s];
    if (c == GBEES_NONE || gbees_key_equal(keys + (size_t)c * dim, key, dim)) return c;
    s = (s + 1) & mask;
  }
}

/* Growth. A cell at or above the threshold adds, downwind, its face
 * neighbour in the direction of each velocity component and the edge
 * neighbours beside that face, as in the GBEES papers. Its targets are
 * numbered in a fixed order (code i * GS_GBEES_MAX_DIM + j; j == i is the face
 * neighbour across dimension i), and those that may be missing are listed:
 * the face neighbour if unlinked, an edge neighbour if the face neighbour or
 * its link onwards is missing. Returns how many were written to codes (at
 * most dim^2; codes may be NULL to count). */
static inline GS_HD int gbees_growth_targets(const gbees_cells *g, int32_t c, unsigned char *codes)
{
  int d = g->dim, n = 0;
  for (int i = 0; i < d; i++) {
    double vi = gbees_v(g, c, i);
    if (vi == 0.0) continue;
    int32_t face = gbees_nbr(g, c, i, vi > 0.0);
    if (face == GBEES_NONE) {
      if (codes) codes[n] = (unsigned char)(i * GS_GBEES_MAX_DIM + i);
      n++;
    }
    for (int j = 0; j < d; j++) {
      double vj = gbees_v(g, c, j);
      if (j == i || vj == 0.0) continue;
      if (face != GBEES_NONE && gbees_nbr(g, face, j, vj > 0.0) != GBEES_NONE) continue;
      if (codes) codes[n] = (unsigned char)(i * GS_GBEES_MAX_DIM + j);
      n++;
    }
  }
  return n;
}

/* The key of growth target `code` of cell c. */
static inline GS_HD void gbees_growth_key(const gbees_cells *g, int32_t c, int code, int32_t *key)
{
  int d = g->dim, i = code / GS_GBEES_MAX_DIM, j = code % GS_GBEES_MAX_DIM;
  for (int k = 0; k < d; k++) key[k] = g->key[(size_t)c * d + k];
  key[i] += gbees_v(g, c, i) > 0.0 ? 1 : -1;
  if (j != i) key[j] += gbees_v(g, c, j) > 0.0 ? 1 : -1;
}

/* Half the jump across each of cell c's lower faces per unit length, into
 * face (it does not depend on the step, so the GPU computes it alongside
 * the CFL rate). */
static inline GS_HD void gbees_face_jumps(const gbees_cells *g, int32_t c, double *face)
{
  for (int i = 0; i < g->dim; i++) {
    int32_t m = gbees_nbr(g, c, i, 0);
    face[i] = m == GBEES_NONE ? 0.0 : (g->prob[c] - g->prob[m]) / (2.0 * g->dx[i]);
  }
}

static inline GS_HD double gbees_face_jump(const gbees_cells *g, int32_t a, int i)
{
  return a == GBEES_NONE ? 0.0 : g->face[(size_t)a * g->dim + i];
}

/* Every flux is owned by the face's lower cell: the donor-cell flux, the
 * corner-transport-upwind (CTU) transverse terms and the MC-limited
 * second-order correction of the face between X and X + e_j are summed into
 * flux[X, j], and each cell then changes by -dt/dx_j (flux[X, j] -
 * flux[X - e_j, j]). A face with a missing cell on either side carries
 * nothing, so the update conserves mass exactly (to rounding). The CTU terms
 * are gathered by the cell that owns the face they land on, so cells update
 * in parallel without atomics. This is the total flux through the + face of
 * cell x in dimension j. */
static inline GS_HD double gbees_upper_face_flux(const gbees_cells *g, int32_t x, int j, double dt)
{
  int32_t k = gbees_nbr(g, x, j, 1);
  if (k == GBEES_NONE) return 0.0;
  int d = g->dim;
  const double *P = g->prob;
  double u = gbees_v(g, x, j), vj_pos = gbees_pos(u), vj_neg = gbees_neg(u);
  double flux = vj_pos * P[x] + vj_neg * P[k];

  /* CTU: the transverse part of the waves crossing the faces in dimension
   * i != j next to this face. */
  double ctu = 0.0;
  for (int i = 0; i < d; i++) {
    if (i == j) continue;
    int32_t xm = gbees_nbr(g, x, i, 0), xp = gbees_nbr(g, x, i, 1), km = gbees_nbr(g, k, i, 0),
            kp = gbees_nbr(g, k, i, 1);
    if (xm != GBEES_NONE) ctu += gbees_pos(gbees_v(g, xm, i)) * vj_pos * gbees_face_jump(g, x, i);
    ctu += gbees_neg(gbees_v(g, x, i)) * vj_pos * gbees_face_jump(g, xp, i);
    if (km != GBEES_NONE) ctu += gbees_pos(gbees_v(g, km, i)) * vj_neg * gbees_face_jump(g, k, i);
    ctu += gbees_neg(gbees_v(g, k, i)) * vj_neg * gbees_face_jump(g, kp, i);
  }
  flux -= dt * ctu;

  /* second-order correction, limited by the upwind jump */
  double jump = gbees_face_jump(g, k, j);
  if (jump != 0.0) {
    double dP = P[k] - P[x], theta;
    if (u > 0.0) {
      int32_t xm = gbees_nbr(g, x, j, 0);
      theta = (P[x] - (xm == GBEES_NONE ? 0.0 : P[xm])) / dP;
    } else {
      int32_t kp = gbees_nbr(g, k, j, 1);
      theta = ((kp == GBEES_NONE ? 0.0 : P[kp]) - P[k]) / dP;
    }
    double au = fabs(u);
    flux += au * (g->dx[j] - au * dt) * jump * gbees_mc_limiter(theta);
  }
  return flux;
}

/* Cell c's probability after the fluxes (flux: dim per cell), before
 * negative values are clipped. */
static inline GS_HD double gbees_updated_prob(const gbees_cells *g, const double *flux, int32_t c, double dt)
{
  int d = g->dim;
  double p = g->prob[c];
  for (int j = 0; j < d; j++) {
    int32_t m = gbees_nbr(g, c, j, 0);
    double in = m == GBEES_NONE ? 0.0 : flux[(size_t)m * d + j];
    p -= dt / g->dx[j] * (flux[(size_t)c * d + j] - in);
  }
  return p;
}

/* Whether a significant neighbour (face or edge) sends mass into cell c. */
static inline GS_HD int gbees_receives_inflow(const gbees_cells *g, int32_t c, double threshold)
{
  int d = g->dim;
  for (int i = 0; i < d; i++) {
    for (int side = 0; side < 2; side++) {
      /* side 0: the cell below, inflow if its v_i > 0; side 1: above, v_i < 0 */
      int32_t a = gbees_nbr(g, c, i, side);
      if (a == GBEES_NONE) continue;
      double sign_i = side ? -1.0 : 1.0;
      if (sign_i * gbees_v(g, a, i) > 0.0 && g->prob[a] >= threshold) return 1;
      for (int j = 0; j < d; j++) {
        if (j == i) continue;
        for (int sj = 0; sj < 2; sj++) {
          int32_t e = gbees_nbr(g, a, j, sj);
          double sign_j = sj ? -1.0 : 1.0;
          if (e != GBEES_NONE && sign_i * gbees_v(g, e, i) > 0.0 && sign_j * gbees_v(g, e, j) > 0.0 &&
              g->prob[e] >= threshold)
            return 1;
        }
      }
    }
  }
  return 0;
}

/* A measurement of states as a measurement function
 * (gbees_measurement_loglik): component j is the state ctx[j] (0-based
 * indices, an int array). */
static inline GS_HD double gbees_state_component(const void *ctx, double t, const double *x, int j)
{
  (void)t;
  return x[((const int *)ctx)[j]];
}

/* Pruning removes candidates (cells below the threshold without significant
 * inflow) smallest first, while each removed mass stays below the threshold
 * relative to the mass that remains: candidate k (in ascending order, with
 * removed_through_k the mass of candidates 0..k) may go if this holds. The
 * ratio grows with k, so the removable candidates are a prefix. */
static inline GS_HD int gbees_prune_removable(double prob, double removed_through_k, double threshold)
{
  return prob / (1.0 - removed_through_k) < threshold;
}

#endif
