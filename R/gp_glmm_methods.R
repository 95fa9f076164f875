# fitted(), residuals() and simulate() of spatial GLMM fits: means from the
# latent field's mode, residuals as glm() defines them, and draws of new
# responses or of the field given the data (the Laplace approximation).

# The stats family object of a fit (its variance, deviance residuals and
# link functions).
fit_family_object <- function(fit) {
  switch(fit$family, poisson = stats::poisson(link = fit$link), binomial = stats::binomial(link = fit$link))
}

# The linear predictor without the field (offset and trend), and at the
# mode.
glmm_trend_eta <- function(fit) (fit$offset %||% 0) + as.vector(fit$X %*% fit$beta)
glmm_eta <- function(fit) glmm_trend_eta(fit) + fit$mode

# The responses as glm() takes them with their prior weights: proportions
# of successes and the numbers of trials for the binomial, counts and 1 for
# the Poisson.
glmm_glm_response <- function(fit) {
  if (fit$family == "binomial") list(y = fit$y / fit$trials, weights = fit$trials) else list(y = fit$y, weights = rep(1, fit$n))
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

# Responses (n x nsim) drawn given linear predictors eta (n x nsim): counts,
# or successes out of the fit's trials.
glmm_draw_responses <- function(fit, eta) {
  mu <- fit_family_object(fit)$linkinv(eta)
  y <- switch(fit$family,
    poisson = stats::rpois(length(mu), mu),
    binomial = stats::rbinom(length(mu), rep_len(fit$trials, length(mu)), mu)
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
glmm_simulate <- function(fit, nsim, new, type, device, call) {
  nugget <- fit$covariance[["nugget"]]
  if (is.null(new)) {
    S <- gp_draws(fit, fit$locs, nsim, device, call) + sqrt(nugget) * matrix(stats::rnorm(fit$n * nsim), fit$n)
    return(glmm_draw_responses(fit, glmm_trend_eta(fit) + S))
  }
  m <- nrow(new$locs)
  n <- fit$n
  if (m == 0L) return(matrix(0, 0L, nsim))
  S <- gp_draws(fit, rbind(fit$locs, new$locs), nsim, device, call)
  cond <- glmm_conditioning(fit, call, "simulate")
  on.exit(cond$close())
  # W^-1/2 times a standard normal; 0 where W underflowed (that observation
  # carries no information, and G^-1 scales its row by W^1/2 = 0)
  w <- cond$mode$weights
  e <- ifelse(w > 0, 1 / sqrt(w), 0) * matrix(stats::rnorm(n * nsim), n)
  R_star <- cond$forward(S[seq_len(n), , drop = FALSE] + sqrt(nugget) * matrix(stats::rnorm(n * nsim), n) + e)
  B_star <- cond$A %*% crossprod(cond$Wx, R_star) # their GLS coefficients
  R <- cbind(cond$forward(glmm_working_field(cond$mode)), R_star - cond$Wx %*% B_star)
  B <- matrix(c(fit$beta, B_star), length(fit$beta), nsim + 1L)
  k <- cond$krige(new$locs, new$X, R, B, se = FALSE)$fit
  eta <- (new$offset %||% 0) + k[, 1L] + S[-seq_len(n), , drop = FALSE] - k[, -1L, drop = FALSE]
  if (type == "response") fit_family_object(fit)$linkinv(eta) else eta
}
