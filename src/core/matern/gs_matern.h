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

/* The parameters of a model: their place in gs_cov_model.par (and the bit
 * of each in a derivative mask) and the name R knows each by. sigma2, range
 * and nugget belong to every family; the shape parameters follow, each
 * used by the families whose shape mask holds its bit (GS_COV_FAMILIES):
 * the Matérn smoothness nu; the power alpha of the powered exponential and
 * the generalized Cauchy; the Cauchy's tail beta; the generalized
 * Wendland's kappa (0, 1 or 2, held fixed) and mu. */
#define GS_COV_PARAMS(X)                  \
  X(GS_COV_SIGMA2, "sigma2")              \
  X(GS_COV_RANGE, "range")                \
  X(GS_COV_SMOOTHNESS, "smoothness")      \
  X(GS_COV_NUGGET, "nugget")              \
  X(GS_COV_POWER, "power")                \
  X(GS_COV_TAIL, "tail")                  \
  X(GS_COV_KAPPA, "kappa")                \
  X(GS_COV_MU, "mu")

#define GS_COV_ENUM_ENTRY(code, name) code,
enum { GS_COV_PARAMS(GS_COV_ENUM_ENTRY) GS_COV_NPAR };
#undef GS_COV_ENUM_ENTRY

#define GS_COV_BIT(code) (1 << (code))

/* The covariance families: code, the name R knows it by, and the mask of
 * its shape parameters (rho is the correlation of z = d / range):
 *   matern     M_nu(z) (matern_math.h)
 *   gaussian   exp(-z^2)
 *   spherical  1 - 3z/2 + z^3/2 for z < 1, 0 beyond
 *   powexp     exp(-z^alpha), 0 < alpha <= 2
 *   cauchy     (1 + z^alpha)^(-beta/alpha), 0 < alpha <= 2, beta > 0
 *   wendland   (1 - z)_+^(mu + kappa) P_kappa(z) (cov_family_math.h) */
#define GS_COV_FAMILIES(X)                                                             \
  X(GS_COV_MATERN, "matern", GS_COV_BIT(GS_COV_SMOOTHNESS))                            \
  X(GS_COV_GAUSSIAN, "gaussian", 0)                                                    \
  X(GS_COV_SPHERICAL, "spherical", 0)                                                  \
  X(GS_COV_POWEXP, "powexp", GS_COV_BIT(GS_COV_POWER))                                 \
  X(GS_COV_CAUCHY, "cauchy", GS_COV_BIT(GS_COV_POWER) | GS_COV_BIT(GS_COV_TAIL))       \
  X(GS_COV_WENDLAND, "wendland", GS_COV_BIT(GS_COV_KAPPA) | GS_COV_BIT(GS_COV_MU))

#define GS_COV_FAMILY_ENUM_ENTRY(code, name, shapes) code,
enum { GS_COV_FAMILIES(GS_COV_FAMILY_ENUM_ENTRY) GS_COV_FAMILY_COUNT };
#undef GS_COV_FAMILY_ENUM_ENTRY

/* The mask of a family's shape parameters (0 for an unknown family). */
GS_HD static inline int gs_cov_family_shapes(int family)
{
  switch (family) {
#define GS_COV_FAMILY_SHAPES_CASE(code, name, shapes) \
  case code: return shapes;
    GS_COV_FAMILIES(GS_COV_FAMILY_SHAPES_CASE)
#undef GS_COV_FAMILY_SHAPES_CASE
  default: return 0;
  }
}

/* The parameters a family's covariance can be differentiated in: sigma2,
 * range, nugget and its shapes but the discrete kappa. */
GS_HD static inline int gs_cov_family_derivable(int family)
{
  return (GS_COV_BIT(GS_COV_SIGMA2) | GS_COV_BIT(GS_COV_RANGE) | GS_COV_BIT(GS_COV_NUGGET) | gs_cov_family_shapes(family)) &
         ~GS_COV_BIT(GS_COV_KAPPA);
}

/* The parameters a correlation depends on (the range and every shape): the
 * derivatives computed pair by pair, beside sigma2's (the correlation) and
 * the nugget's (the identity). */
#define GS_COV_CORR_PARAMS (((1 << GS_COV_NPAR) - 1) & ~(GS_COV_BIT(GS_COV_SIGMA2) | GS_COV_BIT(GS_COV_NUGGET)))

/* A stationary covariance of the distance d between two locations,
 * C(d) = sigma2 rho(d / range) + nugget [same location], with rho the
 * family's correlation. The one description of a model: covariance
 * matrices, the Gaussian-process and Vecchia objects, tile sources and the
 * map op all take it. A new family is an entry in GS_COV_FAMILIES (and its
 * shape parameters in GS_COV_PARAMS), its rule in gs_cov_model_valid and
 * gs_cov_model_check, its correlation and derivatives in
 * cov_family_math.h. Parameters outside the family's shape mask are
 * ignored. */
typedef struct {
  int family;              /* GS_COV_MATERN, GS_COV_GAUSSIAN, ... */
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

#define MATERN_EARTH_RADIUS_KM 6371.0

/* Why a model is invalid in `dim` dimensions (the columns of its
 * locations), or GS_COV_OK, and the name R gives each (the class
 * gpustats_error_cov_<name> of its error): an unknown family or metric;
 * sigma2, range or nugget; a shape parameter outside the family's domain;
 * not positive definite in this many dimensions; not positive definite
 * with great-circle distance. */
#define GS_COV_PROBLEMS(X)               \
  X(GS_COV_OK, "ok")                     \
  X(GS_COV_BAD_FAMILY, "family")         \
  X(GS_COV_BAD_COMMON, "parameter")      \
  X(GS_COV_BAD_SHAPE, "shape")           \
  X(GS_COV_BAD_DIMENSION, "dimension")   \
  X(GS_COV_BAD_SPHERE, "sphere")

#define GS_COV_PROBLEM_ENUM_ENTRY(code, name) code,
enum { GS_COV_PROBLEMS(GS_COV_PROBLEM_ENUM_ENTRY) GS_COV_PROBLEM_COUNT };
#undef GS_COV_PROBLEM_ENUM_ENTRY

/* The one rule for a model: a known family and metric; sigma2 >= 0,
 * range > 0, nugget >= 0, all finite but the range, which may be +Inf (the
 * limit: a correlation of 1 at every distance); the family's shapes in
 * their domain: Matérn smoothness > 0, powered exponential and Cauchy power
 * in (0, 2], Cauchy tail > 0, Wendland kappa in {0, 1, 2}. Positive
 * definiteness then holds in every dimension, but for the spherical (up to
 * 3) and the Wendland (mu >= (dim + 1) / 2 + kappa). Great-circle distance
 * on the sphere (Gneiting 2013, Bernoulli 19, 1327-1349): the completely
 * monotone members only for the powered exponential and the Cauchy (power
 * <= 1; the Gaussian never), and the compactly supported families where
 * they are valid in 3 dimensions with a support of at most half the great
 * circle (range <= pi R). The Matérn with great-circle distance, valid
 * only for smoothness <= 1/2, is left to a warning in R, as it always was. */
GS_HD static inline int gs_cov_model_problem(const gs_cov_model *m, int dim)
{
  if (m->family < 0 || m->family >= GS_COV_FAMILY_COUNT || m->metric < 0 || m->metric >= MATERN_METRIC_COUNT)
    return GS_COV_BAD_FAMILY;
  const int shapes = gs_cov_family_shapes(m->family);
  for (int k = 0; k < GS_COV_NPAR; ++k) {
    const int common = k == GS_COV_SIGMA2 || k == GS_COV_RANGE || k == GS_COV_NUGGET;
    if (!common && !((shapes >> k) & 1)) continue;
    if (isnan(m->par[k]) || (isinf(m->par[k]) && k != GS_COV_RANGE)) return common ? GS_COV_BAD_COMMON : GS_COV_BAD_SHAPE;
  }
  if (!(m->par[GS_COV_SIGMA2] >= 0.0 && m->par[GS_COV_RANGE] > 0.0 && m->par[GS_COV_NUGGET] >= 0.0))
    return GS_COV_BAD_COMMON;
  const double power = m->par[GS_COV_POWER], kappa = m->par[GS_COV_KAPPA], mu = m->par[GS_COV_MU];
  const int sphere = m->metric == MATERN_GREAT_CIRCLE;
  const int space = sphere ? 3 : dim; /* the sphere lies in 3 dimensions */
  switch (m->family) {
  case GS_COV_MATERN: return m->par[GS_COV_SMOOTHNESS] > 0.0 ? GS_COV_OK : GS_COV_BAD_SHAPE;
  case GS_COV_GAUSSIAN: return sphere ? GS_COV_BAD_SPHERE : GS_COV_OK;
  case GS_COV_SPHERICAL:
    if (space > 3) return GS_COV_BAD_DIMENSION;
    return sphere && !(m->par[GS_COV_RANGE] <= M_PI * MATERN_EARTH_RADIUS_KM) ? GS_COV_BAD_SPHERE : GS_COV_OK;
  case GS_COV_POWEXP:
  case GS_COV_CAUCHY:
    if (!(power > 0.0 && power <= 2.0) || (m->family == GS_COV_CAUCHY && !(m->par[GS_COV_TAIL] > 0.0)))
      return GS_COV_BAD_SHAPE;
    return sphere && power > 1.0 ? GS_COV_BAD_SPHERE : GS_COV_OK;
  case GS_COV_WENDLAND:
    if (!(kappa == 0.0 || kappa == 1.0 || kappa == 2.0)) return GS_COV_BAD_SHAPE;
    if (!(mu >= 0.5 * (space + 1) + kappa)) return sphere ? GS_COV_BAD_SPHERE : GS_COV_BAD_DIMENSION;
    return sphere && !(m->par[GS_COV_RANGE] <= M_PI * MATERN_EARTH_RADIUS_KM) ? GS_COV_BAD_SPHERE : GS_COV_OK;
  default: return GS_COV_BAD_FAMILY;
  }
}

GS_HD static inline int gs_cov_model_valid(const gs_cov_model *m, int dim)
{
  return gs_cov_model_problem(m, dim) == GS_COV_OK;
}

/* GS_ERR_ARG with the rule the model breaks in `dim` dimensions in msg. */
gs_status gs_cov_model_check(const gs_cov_model *m, int dim, char *msg);

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
