/* The rule of a covariance model, as an error message. */
#include "gs_matern.h"

gs_status gs_cov_model_check(const gs_cov_model *m, int dim, char *msg)
{
  switch (gs_cov_model_problem(m, dim)) {
  case GS_COV_OK: return GS_OK;
  case GS_COV_BAD_FAMILY: return gs_set_msg(msg, GS_ERR_ARG, "unknown covariance family or distance");
  case GS_COV_BAD_COMMON:
    return gs_set_msg(msg, GS_ERR_ARG, "covariance parameters must have sigma2 >= 0, range > 0 and nugget >= 0, "
                                       "finite but the range, which may be Inf");
  case GS_COV_BAD_SHAPE:
    return gs_set_msg(msg, GS_ERR_ARG, "shape parameters out of their domain: Matérn smoothness > 0, power in "
                                       "(0, 2], tail > 0, Wendland kappa 0, 1 or 2, all finite");
  case GS_COV_BAD_DIMENSION:
    return gs_set_msg(msg, GS_ERR_ARG, "the covariance is not positive definite in %d dimensions: the spherical "
                                       "needs at most 3, the Wendland mu >= (dimensions + 1) / 2 + kappa", dim);
  default:
    return gs_set_msg(msg, GS_ERR_ARG, "the covariance is not positive definite with great-circle distance: the "
                                       "Gaussian never is, the powered exponential and the Cauchy need power <= 1, "
                                       "the spherical and the Wendland a range of at most pi times the Earth's "
                                       "radius and the Wendland mu >= 2 + kappa");
  }
}
