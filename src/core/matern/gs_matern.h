/* The covariance model every domain takes (gs_cov_model), and Matérn
 * covariance matrices between two sets of locations. */
#ifndef GS_MATERN_H
#define GS_MATERN_H

#include <math.h>

#include "gs_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The distances between locations: code and the name R knows it by
 * (matern_cov's `distance`). Written once: the enum and the table R reads
 * at load (gs_r_tables) are generated from this list. */
#define MATERN_METRICS(X)                   \
  X(MATERN_EUCLIDEAN, "euclidean")          \
  X(MATERN_GREAT_CIRCLE, "great_circle")

#define MATERN_METRIC_ENUM_ENTRY(code, name) code,
enum { MATERN_METRICS(MATERN_METRIC_ENUM_ENTRY) MATERN_METRIC_COUNT };
#undef MATERN_METRIC_ENUM_ENTRY

/* The covariance families: code and the name R knows it by. */
#define GS_COV_FAMILIES(X) X(GS_COV_MATERN, "matern")

/* The parameters of a model: their place in gs_cov_model.par (and the bit
 * of each in a derivative mask) and the name R knows each by. sigma2, range
 * and nugget belong to every family; a family's shape parameters follow
 * (the Matérn smoothness nu). */
#define GS_COV_PARAMS(X)                  \
  X(GS_COV_SIGMA2, "sigma2")              \
  X(GS_COV_RANGE, "range")                \
  X(GS_COV_SMOOTHNESS, "smoothness")      \
  X(GS_COV_NUGGET, "nugget")

#define GS_COV_ENUM_ENTRY(code, name) code,
enum { GS_COV_FAMILIES(GS_COV_ENUM_ENTRY) GS_COV_FAMILY_COUNT };
enum { GS_COV_PARAMS(GS_COV_ENUM_ENTRY) GS_COV_NPAR };
#undef GS_COV_ENUM_ENTRY

/* A stationary covariance of the distance d between two locations,
 * C(d) = sigma2 rho(d / range) + nugget [same location], with rho the
 * family's correlation (Matérn: M_nu, nu the smoothness; matern_math.h).
 * The one description of a model: Matérn matrices, the Gaussian-process
 * and Vecchia objects, tile sources and the map op all take it. A new
 * family is an entry in GS_COV_FAMILIES (and its shape parameters in
 * GS_COV_PARAMS), its rule in gs_cov_model_valid and its correlation in
 * matern_math.h's matern_model_cov. */
typedef struct {
  int family;              /* GS_COV_MATERN */
  int metric;              /* MATERN_EUCLIDEAN or MATERN_GREAT_CIRCLE */
  double par[GS_COV_NPAR]; /* indexed by GS_COV_SIGMA2, GS_COV_RANGE, ... */
} gs_cov_model;

GS_HD static inline gs_cov_model gs_cov_matern(int metric, double sigma2, double range, double smoothness, double nugget)
{
  gs_cov_model m = {.family = GS_COV_MATERN, .metric = metric, .par = {0}};
  m.par[GS_COV_SIGMA2] = sigma2;
  m.par[GS_COV_RANGE] = range;
  m.par[GS_COV_SMOOTHNESS] = smoothness;
  m.par[GS_COV_NUGGET] = nugget;
  return m;
}

/* The one rule for a model: a known family and metric, sigma2 >= 0,
 * range > 0, smoothness > 0, nugget >= 0, all finite but the range, which
 * may be +Inf (the limit: a correlation of 1 at every distance). */
GS_HD static inline int gs_cov_model_valid(const gs_cov_model *m)
{
  if (m->family != GS_COV_MATERN || m->metric < 0 || m->metric >= MATERN_METRIC_COUNT) return 0;
  for (int k = 0; k < GS_COV_NPAR; ++k)
    if (isnan(m->par[k]) || (isinf(m->par[k]) && k != GS_COV_RANGE)) return 0;
  return m->par[GS_COV_SIGMA2] >= 0.0 && m->par[GS_COV_RANGE] > 0.0 && m->par[GS_COV_SMOOTHNESS] > 0.0 &&
         m->par[GS_COV_NUGGET] >= 0.0;
}

/* GS_ERR_ARG with the rule in msg when the model breaks it. */
gs_status gs_cov_model_check(const gs_cov_model *m, char *msg);

typedef struct {
  const double *locs1; /* n1 x dim, column-major */
  long n1;
  const double *locs2; /* n2 x dim; NULL: locs1 against itself (symmetric) */
  long n2;
  int dim;
  gs_cov_model model;  /* its nugget: the diagonal of the symmetric case */
  int lower_only;      /* symmetric case: leave the strict upper triangle unwritten */
  double *out;         /* n1 x n2, column-major */
} gs_matern_cov_args;

/* The lower triangle of the n x n covariance of locs with itself (locs may
 * be NULL where a device kernel is given its locations apart), into out. */
static inline gs_matern_cov_args gs_matern_cov_self(const double *locs, long n, int dim, const gs_cov_model *model,
                                                    double *out)
{
  const gs_matern_cov_args a = {.locs1 = locs,
                                .n1 = n,
                                .locs2 = NULL,
                                .n2 = 0,
                                .dim = dim,
                                .model = *model,
                                .lower_only = 1,
                                .out = out};
  return a;
}

/* Both check the model (gs_cov_model_check). */
gs_status gs_matern_cov_cpu(const gs_matern_cov_args *a, int threads, gs_progress_fn progress,
                            char *msg);
gs_status gs_matern_cov_gpu(int device, const gs_matern_cov_args *a, gs_progress_fn progress,
                            char *msg);

#ifdef __cplusplus
}
#endif

#endif
