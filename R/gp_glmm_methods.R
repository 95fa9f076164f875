# fitted(), residuals() and simulate() of spatial GLMM fits: means from the
# latent field's mode, residuals as glm() defines them, and draws of new
# responses or of the field given the data (the Laplace approximation).

# The stats family object of a fit (its variance, deviance residuals and
# link functions).
fit_family_object <- function(fit) {
  switch(fit$family,
    poisson = stats::poisson(link = fit$link),
    binomial = stats::binomial(link = fit$link),
    negative_binomial = {
      if (!requireNamespace("MASS", quietly = TRUE)) {
        cli::cli_abort("The negative binomial's variance and deviance come from MASS's family: install {.pkg MASS}.",
                       class = c("gpustats_error_missing_package", "gpustats_error"))
      }
      MASS::negative.binomial(fit$family_parameter[[1]], link = fit$link)
    },
    Gamma = stats::Gamma(link = fit$link)
  )
}

# The linear predictor without the field (offset and trend), and at the
# mode.
glmm_trend_eta <- function(fit) (fit$offset %||% 0) + as.vector(fit$X %*% fit$beta)
glmm_eta <- function(fit) glmm_trend_eta(fit) + fit$mode

# The responses as glm() takes them with their prior weights: proportions
# of successes for the binomial, with the numbers of trials times the prior
# weights (1 without).
glmm_glm_response <- function(fit) {
  weights <- rep_len(fit$weights %||% 1, fit$n) * (fit$trials %||% 1)
  list(y = if (fit$family == "binomial") fit$y / fit$trials else fit$y, weights = weights)
}

# fitted(): the means at the mode (per trial for the binomial), as glm's.
glmm_fitted <- function(fit) fit_family_object(fit)$linkinv(glmm_eta(fit))

# residuals() of the types glm() has, at the mode's means.
glmm_residuals <- function(fit, type) {
  family <- fit_family_object(fit)
  eta <- glmm_eta(fit)
  mu <- family$linkinv(eta)
  r <- glmm_glm_response(fit)
  switch(type,
    response = r$y - mu,
    working = (r$y - mu) / family$mu.eta(eta),
    pearson = (r$y - mu) * sqrt(r$weights / family$variance(mu)),
    deviance = sign(r$y - mu) * sqrt(pmax(family$dev.resids(r$y, mu, r$weights), 0))
  )
}

# Responses (n x nsim) drawn given linear predictors eta (n x nsim):
# counts, successes out of the fit's trials, or Gamma values with the shape
# times the prior weights (the others' prior weights do not change their
# law, as in glm's simulate()).
glmm_draw_responses <- function(fit, eta) {
  mu <- fit_family_object(fit)$linkinv(eta)
  k <- length(mu)
  y <- switch(fit$family,
    poisson = stats::rpois(k, mu),
    binomial = stats::rbinom(k, rep_len(fit$trials, k), mu),
    negative_binomial = stats::rnbinom(k, size = fit$family_parameter[[1]], mu = mu),
    Gamma = {
      shape <- rep_len(fit$weights %||% 1, k) * fit$family_parameter[[1]]
      stats::rgamma(k, shape = shape, rate = shape / mu)
    }
  )
  matrix(as.double(y), nrow(eta))
}

# simulate() of a non-Gaussian fit. Without newdata: new responses at the
# observed locations from the fitted model (a new field each, as glm's
# simulate draws from the fitted model). With newdata: draws of the linear
# predictor there given the data, from the Laplace approximation (mean and
# covariance those of predict(), the trend's uncertainty included), by
# conditioning unconditional draws as kriging does (Journel and Huijbregts
# 1978): for a draw S of the field at the observed and new locations and
# working errors e ~ N(0, W^-1), the draw is
#   prediction + S_new - UK(S_obs + e),
# UK the universal kriging of the working responses (gs_laplace_krige),
# which reproduces the trend, so that the difference has mean 0 and the
# kriging covariance. type = "response" maps them by the inverse link.
glmm_simulate <- function(fit, nsim, new, type, device, call, m_pred = NULL) {
  if (identical(fit$approx, "vecchia")) return(glmm_vecchia_simulate(fit, nsim, new, type, device, call, m_pred))
  nugget <- fit$covariance[["nugget"]]
  if (is.null(new)) {
    S <- gp_draws(fit, fit$locs, nsim, device, call) + sqrt(nugget) * matrix(stats::rnorm(fit$n * nsim), fit$n)
    return(glmm_draw_responses(fit, glmm_trend_eta(fit) + S))
  }
  m <- nrow(new$locs)
  n <- fit$n
  if (m == 0L) return(matrix(0, 0L, nsim))
  S <- gp_draws(fit, rbind(fit$locs, new$locs), nsim, device, call)
  lik <- glmm_fit_likelihood(fit, call)
  on.exit(lik$close())
  cond <- glmm_conditioning(fit, lik, call, "simulate")
  # W^-1/2 times a standard normal; 0 where W underflowed (that observation
  # carries no information, and G^-1 scales its row by W^1/2 = 0)
  w <- cond$mode$W
  e <- ifelse(w > 0, 1 / sqrt(w), 0) * matrix(stats::rnorm(n * nsim), n)
  R_star <- cond$forward(S[seq_len(n), , drop = FALSE] + sqrt(nugget) * matrix(stats::rnorm(n * nsim), n) + e)
  B_star <- cond$A %*% crossprod(cond$Wx, R_star) # their GLS coefficients
  R <- cbind(cond$forward(glmm_working_field(cond$mode)), R_star - cond$Wx %*% B_star)
  B <- matrix(c(fit$beta, B_star), length(fit$beta), nsim + 1L)
  k <- cond$krige(new$locs, new$X, R, B, se = FALSE)$fit
  eta <- (new$offset %||% 0) + k[, 1L] + S[-seq_len(n), , drop = FALSE] - k[, -1L, drop = FALSE]
  if (type == "response") fit_family_object(fit)$linkinv(eta) else eta
}

# simulate() of a Vecchia-Laplace fit, through the Vecchia approximation
# throughout: without newdata, new responses at the observed locations from
# a draw of the field's Vecchia law (W^-1 z, its nugget included); with
# newdata, draws of the linear predictor there given the pseudo-data at the
# mode (f + a / W with variances 1 / W), each new location conditioned on
# its m_pred nearest earlier points, observed and already drawn (as a
# Gaussian Vecchia fit's conditional draws), the trend at its estimate.
glmm_vecchia_simulate <- function(fit, nsim, new, type, device, call, m_pred) {
  params <- fit$covariance[intersect(names(gs_table("cov_param")), names(fit$covariance))]
  if (is.null(new)) {
    vc <- vecchia_open(fit$locs, fit$m, "maxmin", fit$distance, device, call, label = "simulate: conditioning sets")
    on.exit(vecchia_close(vc))
    vecchia_factor(vc, params, call, label = "simulate: drawing", family = fit$model$native)
    S <- vecchia_apply(vc, matrix(stats::rnorm(fit$n * nsim), fit$n, nsim), call, what = "inverse")
    return(glmm_draw_responses(fit, glmm_trend_eta(fit) + S))
  }
  if (nrow(new$locs) == 0L) return(matrix(0, 0L, nsim))
  d <- list(y = fit$y, locs = fit$locs, X = fit$X, trials = fit$trials, offset = fit$offset, weights = fit$weights)
  lik <- glmm_likelihood_vecchia(d, list(family = fit$family, param = fit$family_parameter), fit$distance, fit$m, call,
                                 cov_family = fit$model$native, device = device, f = fit$mode)
  on.exit(lik$close())
  mode <- glmm_fit_mode(fit, lik, call)
  S <- vecchia_conditional_draws(fit$locs, glmm_working_field(mode), new$locs, params, vecchia_m_pred(fit, m_pred, call),
                                 nsim, fit$distance, device, call, family = fit$model$native, noise = 1 / mode$W)
  eta <- (new$offset %||% 0) + drop(new$X %*% fit$beta) + S
  if (type == "response") fit_family_object(fit)$linkinv(eta) else eta
}
