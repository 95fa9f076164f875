# Predictions of a spatial GLMM's latent field at new locations from the
# Laplace approximation: given the data, the field is approximately Gaussian
# around its mode, and that approximation is Gaussian kriging of the
# working responses z = f + W^-1 a with independent errors of variances
# W^-1 (W the weights at the mode): mean c_0'a, variance
# sigma2 - c_0'(K + W^-1)^-1 c_0, plus the trend coefficients' uncertainty
# (X'(K + W^-1)^-1 X)^-1 as universal kriging adds it for Gaussian fits.
# src/core/glmm/laplace_krige.c runs it through the Gaussian kriging's
# block loop with B's factor.

# The Laplace likelihood of a fit's data (glmm_likelihood), closed by the
# caller, started at the fit's mode, and its mode at the estimates (one
# Newton step there).
glmm_fit_likelihood <- function(fit, call) {
  d <- list(y = fit$y, locs = fit$locs, X = fit$X, trials = fit$trials, offset = fit$offset, weights = fit$weights)
  glmm_likelihood(d, list(family = fit$family, param = fit$family_parameter), fit$distance, call,
                  a = fit$mode_a %||% numeric(fit$n), cov_family = fit$model$native)
}

glmm_fit_mode <- function(fit, lik, call) {
  mode <- lik$mode(fit$beta, fit$covariance)
  if (!mode$converged) {
    cli::cli_abort("The Laplace approximation's Newton iteration did not converge at the fit's estimates.",
                   class = c("gpustats_error_not_converged", "gpustats_error"), call = call)
  }
  mode
}

# The Laplace approximation at a fit's estimates as kriging uses it, on
# the fit's likelihood `lik` (glmm_fit_likelihood): the mode; forward(b),
# G^-1 b with Sigma = K + W^-1 = G G' (gs_laplace_forward); Wx = G^-1 X
# and A = (Wx'Wx)^-1, the trend's GLS covariance; krige(locs, X0, R, B,
# se), kriging of k data sets at new locations given R = G^-1 (Z - X B)
# (n x k) and B (p x k).
glmm_conditioning <- function(fit, lik, call, label) {
  mode <- glmm_fit_mode(fit, lik, call)
  forward <- function(b) gs_call(.Call(gs_r_laplace_forward, lik$ptr, as.matrix(b)), call)
  Wx <- forward(fit$X)
  params <- fit$covariance[intersect(names(gs_table("cov_param")), names(fit$covariance))]
  krige <- function(locs, X0, R, B, se) {
    storage.mode(X0) <- "double"
    bar <- gs_progress_bar(as.double(nrow(locs)) * fit$n, paste0(label, ": kriging"), call)
    gs_call(.Call(gs_r_laplace_krige, lik$ptr, cov_model(params, fit$distance, fit$model$native), locs, X0, Wx, R, B, A, se, bar), call)
  }
  A <- if (ncol(Wx)) solve(crossprod(Wx)) else matrix(0, 0, 0)
  list(mode = mode, forward = forward, Wx = Wx, A = A, krige = krige)
}

# The mode's working responses of the field, f + W^-1 a (0 / 0 where W
# underflowed to 0: a is 0 there).
glmm_working_field <- function(mode) mode$f + ifelse(mode$W > 0, mode$a / mode$W, 0)

# The latent field's prediction at `new$locs` (design new$X) on the link
# scale without the offset: list(fit, se) (se NULL without `se`).
glmm_krige <- function(fit, new, se, call, m_pred = NULL, device = "cpu") {
  if (nrow(new$locs) == 0L) return(list(fit = numeric(0), se = if (se) numeric(0)))
  if (identical(fit$approx, "vecchia")) return(glmm_vecchia_krige(fit, new, m_pred, device, call))
  lik <- glmm_fit_likelihood(fit, call)
  on.exit(lik$close())
  cond <- glmm_conditioning(fit, lik, call, "predict")
  R <- cond$forward(glmm_working_field(cond$mode))
  k <- cond$krige(new$locs, new$X, R, matrix(as.double(fit$beta)), se)
  list(fit = drop(k$fit), se = k$se)
}

# The same from a Vecchia-Laplace fit: at the estimates, the field given
# the data is approximately that given its pseudo-data f + a / W at the
# mode, observed with independent errors of variances 1 / W; each new
# location is conditioned on its m_pred nearest pseudo-data (as a Gaussian
# Vecchia fit's predictions, vecchia_krige()), and the trend's uncertainty
# added through the covariance of its coefficients in the fit.
glmm_vecchia_krige <- function(fit, new, m_pred, device, call) {
  d <- list(y = fit$y, locs = fit$locs, X = fit$X, trials = fit$trials, offset = fit$offset, weights = fit$weights)
  lik <- glmm_likelihood_vecchia(d, list(family = fit$family, param = fit$family_parameter), fit$distance, fit$m, call,
                                 cov_family = fit$model$native, device = device, f = fit$mode)
  on.exit(lik$close())
  mode <- glmm_fit_mode(fit, lik, call)
  params <- fit$covariance[intersect(names(gs_table("cov_param")), names(fit$covariance))]
  k <- vecchia_krige(fit$locs, glmm_working_field(mode), new$locs, params, vecchia_m_pred(fit, m_pred, call), X = fit$X,
                     X0 = new$X, distance = fit$distance, device = device, call = call, family = fit$model$native,
                     noise = 1 / mode$W)
  trend <- if (ncol(new$X)) rowSums((k$xres %*% fit$vcov_beta) * k$xres) else 0
  list(fit = unname(drop(new$X %*% fit$beta) + k$mean), se = unname(sqrt(pmax(k$var + trend, 0))))
}

# The family's link of a fit (stats::make.link's list: linkfun, linkinv,
# mu.eta).
fit_link <- function(fit) stats::make.link(fit$link)

# predict() of a non-Gaussian fit: the linear predictor (offset, trend and
# the field's conditional mean) on the link scale, or the mean of a
# response (per trial for the binomial) by the inverse link, its standard
# error by the delta method and its interval the link scale's transformed
# (the links are increasing).
glmm_predict <- function(fit, new, type, se.fit, interval, level, call, m_pred = NULL, device = "cpu") {
  if (interval == "prediction") {
    abort_arg(c("Prediction intervals are for Gaussian fits; a non-Gaussian fit's responses are not normal about the prediction.",
                i = "Use {.code interval = \"confidence\"} (for the mean), or {.fn simulate} new responses."), call)
  }
  k <- glmm_krige(fit, new, se.fit || interval != "none", call, m_pred, device)
  eta <- k$fit + (new$offset %||% 0)
  link <- fit_link(fit)
  response <- type == "response"
  value <- if (response) link$linkinv(eta) else eta
  if (interval != "none") {
    half <- stats::qnorm((1 + level) / 2) * k$se
    bounds <- cbind(fit = eta, lwr = eta - half, upr = eta + half)
    value <- if (response) array(link$linkinv(bounds), dim(bounds), dimnames(bounds)) else bounds
  }
  if (!se.fit) return(value)
  list(fit = value, se.fit = if (response) abs(link$mu.eta(eta)) * k$se else k$se)
}
