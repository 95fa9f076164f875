#' Kriging predictions from a Gaussian-process fit
#'
#' Universal kriging at new locations: the best linear unbiased predictor of
#' the noise-free field \eqn{x_0^\top\beta + S(x_0)} given the data,
#' \deqn{x_0^\top\hat\beta + c_0^\top \Sigma^{-1}(y - X\hat\beta),}
#' with \eqn{c_0} the covariances between the new and the observed
#' locations, and its standard error
#' \deqn{\sqrt{\sigma^2 - c_0^\top\Sigma^{-1}c_0 + d^\top (X^\top\Sigma^{-1}X)^{-1} d},
#' \quad d = x_0 - X^\top\Sigma^{-1}c_0,}
#' which includes the uncertainty of the trend coefficients (for a
#' zero-mean fit the last term is absent: simple kriging). The covariance
#' parameters are taken as known. `interval = "confidence"` gives intervals
#' for the noise-free field, `"prediction"` for a new observation at
#' \eqn{x_0} (the nugget added to the variance: what gstat's `krige()`
#' reports as its variance when the nugget is part of the variogram). The
#' covariance is factored in the precision of the fit.
#'
#' **Non-Gaussian fits** (`family = poisson()` or `binomial()` in
#' [gp_fit()]): given the data, the latent field is approximately Gaussian
#' about its posterior mode \eqn{\hat f = K a} (the Laplace approximation
#' the fit maximised), with \eqn{a = \partial \log p(y \mid f) / \partial f}
#' and \eqn{W = -\partial^2 \log p(y \mid f) / \partial f^2} at the mode.
#' The prediction of the linear predictor at \eqn{x_0} is
#' \deqn{\mathrm{offset}_0 + x_0^\top\hat\beta + c_0^\top a,}
#' with the variance
#' \deqn{\sigma^2 - c_0^\top (K + W^{-1})^{-1} c_0 + d^\top (X^\top (K + W^{-1})^{-1} X)^{-1} d,
#' \quad d = x_0 - X^\top (K + W^{-1})^{-1} c_0,}
#' which is universal kriging of the working responses
#' \eqn{\hat f + W^{-1} a} with independent errors of variances
#' \eqn{W^{-1}}, the trend's uncertainty added as for Gaussian fits
#' (Rasmussen and Williams 2006, section 3.4.2). It is computed with the
#' factor of \eqn{B = I + W^{1/2} K W^{1/2}} of the fit's Newton iteration
#' (never \eqn{W^{-1}}, huge where events are rare), block of new
#' locations by block as Gaussian kriging is, on the CPU. At an observed
#' location (`newdata` missing) and without a nugget the prediction is the
#' mode, \eqn{\mathrm{offset} + x^\top\hat\beta + \hat f}. A formula's
#' `offset()` terms are evaluated in `newdata`. `type = "link"` (the
#' default) gives the linear predictor; `type = "response"` the mean of a
#' response (per trial for the binomial: a probability) by the inverse
#' link, its standard error by the delta method and the confidence
#' interval's bounds those of the link scale transformed. `interval =
#' "prediction"` is an error for these fits: draw new responses with
#' [simulate.gp_fit()] instead. A nugget (`nugget = TRUE` in [gp_fit()]) is
#' an independent effect of each observation: as for Gaussian fits, the
#' predictions are of the field without it.
#'
#' @param object A `gp_fit`.
#' @param newdata Where to predict (missing: at the observed locations, the
#'   fitted values with their standard errors): for a formula fit, a data frame with the
#'   coordinate and covariate columns, or an sf, sp, stars or terra object;
#'   for a matrix fit, a matrix or data frame of coordinates (a data frame's
#'   columns are matched by name when the fit's coordinates have names), or
#'   an sf, sp, stars or terra object. An sf or sp object or a
#'   `terra::SpatVector` gives its points (or pixels, grid cells); a stars
#'   grid of two dimensions (x and y) or a `terra::SpatRaster` gives the
#'   centres of its cells that have a value in some attribute or layer (all
#'   of them if it has none), the layers being the covariates. Coordinates far outside the fitted ones give a
#'   warning (swapped columns, other units).
#' @param se.fit If `TRUE`, also return the standard errors of the
#'   noise-free predictions.
#' @param interval `"none"`, `"confidence"` or `"prediction"`.
#' @param level The level of the intervals.
#' @param X For a matrix fit with covariates: their values at `newdata`.
#' @param m_pred For a fit with `approx = "vecchia"`: the number of nearest
#'   observations each new location is conditioned on (default: twice the
#'   fit's `m`, at least 60, at most the observations). With every
#'   observation it is exact kriging under the fitted parameters.
#' @param device `"auto"`, `"cpu"` or `"gpu"`.
#' @param cluster For a Vecchia fit: `NULL` for one process, or a cluster of
#'   the parallel package (as [gp_fit()]'s `cluster`) whose workers share the
#'   new locations, a region of space each: a worker gets its region's new
#'   locations with the observations their conditioning sets name (found
#'   once on the driver) and returns their predictions, the same as one
#'   process's (each new location is conditioned on observations alone).
#'   Each worker uses its `gpustats.threads` and `gpustats.gpus` as in the fit.
#' @param type For a non-Gaussian fit: `"link"` (the linear predictor) or
#'   `"response"` (the mean of a response, by the inverse link), as
#'   [stats::predict.glm()]; Gaussian fits have the identity link, so both
#'   give the same.
#' @param ... Nothing: any other argument is an error that names it (a
#'   misspelt `newdata` would otherwise give the fitted values).
#' @return As [stats::predict.lm()]: a vector of predictions, or with an
#'   interval a matrix with columns `fit`, `lwr`, `upr`; with
#'   `se.fit = TRUE` a list with components `fit` (either of those) and
#'   `se.fit`. For a fit of replicates (`y` a matrix in [gp_fit()]) the
#'   predictions are a matrix with a column per replicate (each replicate's
#'   own kriging, with the trend coefficients pooled over all), or with an
#'   interval an array (new location, replicate, `fit`/`lwr`/`upr`); the
#'   standard errors are the same for every replicate, their trend term
#'   that of the pooled coefficients, unless replicates have missing values:
#'   each is then kriged from its own observed values and `se.fit` is a
#'   matrix with a column per replicate.
#'
#'   With `newdata` an sf, sp, stars or terra object, an object of the same
#'   class (as gstat's `predict()` returns), its geometry and coordinate
#'   reference system those of `newdata` and its columns (for stars,
#'   attributes; for a `SpatRaster`, layers) the
#'   predictions: `fit`, with an interval `fit`, `lwr`, `upr`, and with
#'   `se.fit = TRUE` also `se.fit`; for replicates `fit.<replicate>`,
#'   `lwr.<replicate>`, `upr.<replicate>` (the replicates' names as in
#'   [simulate.gp_fit()]) and one `se.fit` (with missing values,
#'   `se.fit.<replicate>`). An sp object gets the
#'   `*DataFrame` of its geometry (points a `SpatialPointsDataFrame`, pixels
#'   a `SpatialPixelsDataFrame`); a stars grid gets a stars grid with the
#'   same dimensions and a `SpatRaster` a `SpatRaster` of the same
#'   geometry, `NA` in the cells that are not predicted. The columns
#'   (layers) of `newdata` are not kept.
#' @seealso [gp_fit()], [simulate.gp_fit()] for conditional simulation,
#'   [gp_map()]
#' @examples
#' set.seed(2)
#' locs <- matrix(runif(400), ncol = 2)
#' y <- 1 + gp_simulate(locs, sigma2 = 1, range = 0.2, smoothness = 1, nugget = 0.01)
#' fit <- gp_fit(y, locs, cov = "matern32", control = list(trace = FALSE))
#' predict(fit, rbind(c(0.5, 0.5), c(0.1, 0.9)), interval = "prediction")
#'
#' # counts: the expected count at new locations, with confidence intervals
#' counts <- rpois(200, exp(0.5 + gp_simulate(locs, sigma2 = 0.5, range = 0.2, smoothness = 1)))
#' pois <- gp_fit(counts, locs, family = poisson(), cov = "matern32", control = list(trace = FALSE))
#' predict(pois, rbind(c(0.5, 0.5), c(0.1, 0.9)), type = "response", interval = "confidence")
#' @export
predict.gp_fit <- function(object, newdata, se.fit = FALSE, interval = c("none", "confidence", "prediction"),
                           level = 0.95, X = NULL, m_pred = NULL, device = getOption("gpustats.device", "auto"),
                           type = c("link", "response"), cluster = NULL, ...) {
  call <- environment()
  validate_gp_fit(object, "object", call)
  check_dots_unused("predict", setdiff(names(formals(predict.gp_fit)), "..."), call, ...)
  if (!is.null(cluster)) {
    if (!identical(object$approx, "vecchia")) abort_arg("{.arg cluster} shares the kriging of a Vecchia fit ({.code approx = \"vecchia\"}) among its workers.", call)
    check_cluster(cluster, call)
  }
  check_flag(se.fit, "se.fit", call)
  interval <- match_choice(interval, c("none", "confidence", "prediction"), "interval", call)
  type <- match_choice(type, c("link", "response"), "type", call)
  check_scalar(level, "level", call, 0, open = TRUE)
  if (level >= 1) abort_arg("{.arg level} must be below 1, not {level}.", call)
  new <- if (missing(newdata)) {
    list(locs = object$locs, X = object$X, offset = object$offset)
  } else {
    gp_newdata(object, newdata, X, call)
  }
  out <- if (fit_is_glmm(object)) {
    glmm_predict(object, new, type, se.fit, interval, level, call, m_pred, device)
  } else {
    gaussian_predict(object, new, se.fit, interval, level, m_pred, device, call, cluster)
  }
  if (!missing(newdata) && is_spatial(newdata)) spatial_result(newdata, prediction_columns(object, out)) else out
}

# predict() of a Gaussian fit at `new` (gp_newdata's list).
gaussian_predict <- function(object, new, se.fit, interval, level, m_pred, device, call, cluster = NULL) {
  k <- if (identical(object$approx, "vecchia")) {
    vecchia_predict_fit(object, new$locs, new$X, m_pred, device, call, "predict", cluster)
  } else {
    gp_krige(object, new$locs, new$X, as.matrix(object$y), device, call, "predict", fit_replicates(object),
             se = se.fit || interval != "none")
  }
  fit <- replicate_columns(object, k$fit)
  se <- if (is.matrix(k$se)) replicate_columns(object, k$se) else k$se # per replicate with missing values
  if (interval != "none") {
    half <- stats::qnorm((1 + level) / 2) * if (interval == "prediction") sqrt(se^2 + object$covariance[["nugget"]]) else se
    fit <- if (is.matrix(fit)) {
      array(c(fit, fit - half, fit + half), c(dim(fit), 3L), list(NULL, colnames(fit), c("fit", "lwr", "upr")))
    } else {
      cbind(fit = fit, lwr = fit - half, upr = fit + half)
    }
  }
  if (se.fit) list(fit = fit, se.fit = se) else fit
}

# Kriging of each column of `ys` (data at the fitted locations) at `locs`
# with design `X0`: the predictions (m x k) and, with `se`, the standard
# errors of the noise-free field (m; else NULL). `replicates` > 1:
# consecutive groups of that many columns are replicates sharing the trend,
# whose GLS coefficients are then pooled over the group (the mean of the
# columns'), with r times the information (1 / r times the covariance).
# The cross-covariances are built, solved and reduced in native code, block
# by block, where the factor is (gs_gp_krige), so that none of them reaches
# R. A large problem shows progress bars labelled `label`, one for the
# factorization and one over the new locations. Replicates with missing
# values (NA in `ys`) are kriged pattern by pattern, each from its own
# observed values (pattern_krige()), and their standard errors differ: `se`
# is then an m x k matrix.
gp_krige <- function(fit, locs, X0, ys, device, call, label, replicates = 1L, se = TRUE) {
  m <- nrow(locs)
  if (m == 0L) {
    return(list(fit = matrix(0, 0L, ncol(ys)), se = if (se) (if (anyNA(ys)) matrix(0, 0L, ncol(ys)) else numeric(0))))
  }
  p <- fit$covariance
  geom <- p[fit$model$params]
  obs <- gp_cov_map(fit$model, geom, fit$locs)
  new <- gp_cov_map(fit$model, geom, locs)
  params <- gp_cov_params(p[["sigma2"]], obs$range, p[fit$model$shapes], p[["nugget"]])
  if (anyNA(ys)) return(pattern_krige(fit, obs, new, X0, ys, params, device, call, label, replicates, se))
  gp <- gp_open(obs$locs, fit$distance, device, call, fit$accuracy %||% 0, fit$model$native)
  on.exit(gp_close(gp))
  gp_factor(gp, params, obs$locs, call, bar = gp_progress_bar(gp, paste0(label, ": factoring the covariance"), call))
  W <- gp_apply(gp, "forward", fit$X, call)
  Z <- gp_apply(gp, "forward", ys, call)
  A <- if (ncol(W)) solve(crossprod(W)) else matrix(0, 0, 0)
  B <- pool_coefficients(A %*% crossprod(W, Z), replicates) # GLS coefficients of each column
  if (replicates > 1L) A <- A / replicates # their covariance, pooled over the replicates
  storage.mode(X0) <- "double"
  # as the factorization's bar, in covariance entries generated (and solved against)
  bar <- gs_progress_bar(as.double(m) * fit$n, paste0(label, ": kriging"), call)
  gs_call(.Call(gs_r_gp_krige, gp$ptr, cov_model(params, fit$distance, fit$model$native), new$locs, X0, W, Z - W %*% B, B, A, se, bar),
          call)
}

# The GLS coefficients B (p x k) pooled over consecutive groups of r columns:
# each column gets its group's mean.
pool_coefficients <- function(B, r) {
  if (r == 1L || !nrow(B)) return(B)
  group <- rep(seq_len(ncol(B) %/% r), each = r)
  (t(rowsum(t(B), group)) / r)[, group, drop = FALSE]
}

#' Simulate from a Gaussian-process fit, unconditionally or given the data
#'
#' Without `newdata`, `nsim` draws of the response at the fitted locations
#' from the fitted model (trend, field and nugget), as [stats::simulate()]
#' does for other models. With `newdata`, conditional simulation: draws of
#' the noise-free field \eqn{x_0^\top\beta + S(x_0)} at the new locations
#' given the observations, by kriging the difference between the data and an
#' unconditional draw at the observed and new locations together (Journel
#' and Huijbregts 1978); their mean is the kriging prediction and their
#' variance its squared standard error (trend uncertainty included). The
#' draws come from R's generator, so `seed` or `set.seed()` makes them
#' reproducible.
#'
#' For a fit of replicates (`y` a matrix in [gp_fit()]), a draw without
#' `newdata` is one replicate's response (they are independent copies of one
#' process), and with `newdata` each simulation draws every replicate's field
#' conditional on that replicate's data, the trend coefficients pooled over
#' all of them as in [predict.gp_fit()]: `nsim` times `r` columns, named
#' `sim_1.<replicate>`, ... (the replicates' column names, else `rep_1`, ...).
#' A replicate with missing values is conditioned on its observed values;
#' a draw without `newdata` is a whole replicate, at every location.
#'
#' For a non-Gaussian fit (`family = poisson()` or `binomial()` in
#' [gp_fit()]), a draw without `newdata` is new responses at the observed
#' locations from the fitted model, a new latent field each (counts, or
#' successes out of the fit's trials), as [stats::simulate()] draws from a
#' `glm`: a parametric bootstrap. With `newdata`, draws of the linear
#' predictor at the new locations given the data, from the Laplace
#' approximation of the field's posterior: Gaussian, with the mean and
#' covariance whose diagonal [predict.gp_fit()] gives (the trend's
#' uncertainty included), drawn by conditioning unconditional draws of the
#' field and of working errors of variances \eqn{W^{-1}} with the
#' approximation's kriging, as for Gaussian fits; `type = "response"` maps
#' them by the inverse link (draws of the mean: intensities,
#' probabilities).
#'
#' @param object A `gp_fit`.
#' @param nsim Number of draws.
#' @param seed `NULL`, or an integer for `set.seed()`.
#' @param newdata,X Where to simulate, as for [predict.gp_fit()] (data
#'   frames, matrices, sf, sp and stars objects).
#' @param m_pred For a fit with `approx = "vecchia"`, as for
#'   [predict.gp_fit()]: the new locations are drawn one after another, each
#'   conditioned on its `m_pred` nearest observed and earlier drawn points
#'   (GpGp's `cond_sim`), the trend held at its estimate.
#' @param device `"auto"`, `"cpu"` or `"gpu"`.
#' @param type For a non-Gaussian fit's draws given the data (`newdata`):
#'   `"link"` (the linear predictor) or `"response"` (the mean, by the
#'   inverse link).
#' @param ... Nothing: any other argument is an error that names it.
#' @return A data frame with one column per draw (`sim_1`, ...) and a row
#'   per location; with `newdata` an sf, sp, stars or terra object, an object
#'   of the same class with those columns (stars: attributes; SpatRaster:
#'   layers), as
#'   [predict.gp_fit()] returns its predictions.
#' @export
simulate.gp_fit <- function(object, nsim = 1, seed = NULL, newdata = NULL, X = NULL, m_pred = NULL,
                            device = getOption("gpustats.device", "auto"), type = c("link", "response"), ...) {
  call <- environment()
  validate_gp_fit(object, "object", call)
  check_dots_unused("simulate", setdiff(names(formals(simulate.gp_fit)), "..."), call, ...)
  check_nsim(nsim, call)
  type <- match_choice(type, c("link", "response"), "type", call)
  if (!is.null(seed)) {
    if (!is.numeric(seed) || length(seed) != 1L || !is.finite(seed) || abs(seed) > .Machine$integer.max) {
      abort_arg("{.arg seed} must be NULL or one whole number for {.fn set.seed}, not {.obj_type_friendly {seed}}.", call)
    }
    set.seed(seed)
  }
  draws <- if (fit_is_glmm(object)) {
    glmm_simulate(object, nsim, if (!is.null(newdata)) gp_newdata(object, newdata, X, call), type, device, call, m_pred)
  } else if (identical(object$approx, "vecchia")) {
    vecchia_draws_fit(object, if (!is.null(newdata)) gp_newdata(object, newdata, X, call), nsim, m_pred, device, call)
  } else if (is.null(newdata)) {
    gp_draws(object, object$locs, nsim, device, call) + drop(object$X %*% object$beta) +
      sqrt(object$covariance[["nugget"]]) * matrix(stats::rnorm(object$n * nsim), object$n)
  } else {
    gp_conditional_draws(object, gp_newdata(object, newdata, X, call), nsim, device, call)
  }
  draws <- as.data.frame(draws)
  names(draws) <- simulation_names(object, nsim, conditional = !is.null(newdata))
  if (is_spatial(newdata)) spatial_result(newdata, draws) else draws
}

# sim_1, ...; for conditional draws of replicates, sim_1.<replicate>, ...
# (draw by draw, the replicates of each together).
simulation_names <- function(fit, nsim, conditional) {
  r <- fit_replicates(fit)
  if (!conditional || r == 1L) return(paste0("sim_", seq_len(nsim)))
  paste0("sim_", rep(seq_len(nsim), each = r), ".", rep(replicate_names(fit), nsim))
}

# nsim draws of the zero-mean field S (no nugget) at `locs` (n x nsim),
# generated once per distinct location so that coinciding ones share a value.
gp_draws <- function(fit, locs, nsim, device, call) {
  p <- fit$covariance
  mapped <- gp_cov_map(fit$model, p[fit$model$params], locs)
  key <- do.call(paste, as.data.frame(locs))
  first <- !duplicated(key)
  params <- gp_cov_params(p[["sigma2"]], mapped$range, p[fit$model$shapes], 0)
  S <- gp_draw_field(mapped$locs[first, , drop = FALSE], params, nsim, fit$distance, fit$accuracy %||% 0, device, call,
                     "simulate: drawing", fit$model$native)
  S[match(key, key[first]), , drop = FALSE]
}

# Conditional draws at new$locs: trend + unconditional field there, plus the
# kriging of (data - unconditional data) from the observed locations. For
# replicates, each simulation draws all of them and krigs their differences
# together (their trend coefficients pooled), so that a draw of each
# replicate is conditioned on its own data and the trend on all.
gp_conditional_draws <- function(fit, new, nsim, device, call) {
  n <- fit$n
  r <- fit_replicates(fit)
  draws <- nsim * r # a draw of every replicate per simulation, kriged with their pooled trend
  S <- gp_draws(fit, rbind(fit$locs, new$locs), draws, device, call)
  trend <- drop(fit$X %*% fit$beta)
  y_star <- trend + S[seq_len(n), , drop = FALSE] +
    sqrt(fit$covariance[["nugget"]]) * matrix(stats::rnorm(n * draws), n)
  y <- if (r == 1L) fit$y else fit$y[, rep(seq_len(r), nsim), drop = FALSE]
  k <- gp_krige(fit, new$locs, new$X, y - y_star, device, call, "simulate", r, se = FALSE)
  drop(new$X %*% fit$beta) + S[-seq_len(n), , drop = FALSE] + k$fit
}

# The number of replicates of a fit (1 for fits of one data set).
fit_replicates <- function(fit) fit$replicates %||% 1L

# Kriged values (m x r) as the fit's response is shaped: a vector for one
# data set, a matrix with the replicates' names for several.
replicate_columns <- function(fit, values) {
  if (fit_replicates(fit) == 1L) return(drop(values))
  colnames(values) <- colnames(fit$y)
  values
}
