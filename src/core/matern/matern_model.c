/* The rule of a covariance model, as an error message. */
#include "gs_matern.h"

gs_status gs_cov_model_check(const gs_cov_model *m, char *msg)
{
  if (gs_cov_model_valid(m)) return GS_OK;
  return gs_set_msg(msg, GS_ERR_ARG, "covariance parameters must be finite (the range may be Inf), with "
                                     "sigma2 >= 0, range > 0, smoothness > 0 and nugget >= 0, of a known family "
                                     "and distance");
}
