#' Maximum-likelihood fit of a Matérn Gaussian process
#'
#' Estimates `sigma2`, `range`, `smoothness` and, with `nugget = TRUE`, the
#' nugget of a zero-mean Gaussian process with Matérn covariance (see
#' [matern()]) by maximising the exact likelihood ([gp_loglik()]). The
#' locations are uploaded and the \eqn{n \times n} workspace allocated once;
#' each likelihood evaluation then generates the covariance, factors it and
#' solves, on the GPU when one is used.
#'
#' `sigma2` is profiled out: for fixed correlation parameters its maximum
#' likelihood estimate is \eqn{y^\top R^{-1} y / n} (with the nugget
#' expressed as a ratio to `sigma2`), which removes one dimension from the
#' search. The search (`stats::nlminb()`) runs over \eqn{\log}(range),
#' \eqn{\log}(smoothness) and the nugget ratio; a covariance that is not
#' positive definite at a trial point counts as an infeasible point, and the
#' search continues. Standard errors come from the observed information: a
#' central-difference Hessian of the full log-likelihood at the estimate (a
#' nugget estimated at 0, on the boundary, gets no standard error).
#'
#' A fit needs more observations than estimated parameters, and, without a
#' nugget, distinct locations (duplicated ones make the covariance singular
#' at any parameters); start values and bounds must lie in the parameter
#' space (range and smoothness > 0, nugget >= 0).
#'
#' @param y Numeric vector of observations at the rows of `locs` (no `NA`).
#' @inheritParams matern_cov
#' @param start Named list or vector of starting values for some of
#'   `sigma2`, `range`, `smoothness`, `nugget`; the rest come from the data
#'   (`var(y)`, a tenth of the diameter of the locations, 1 and a tenth of
#'   `var(y)`).
#' @param lower,upper Named bounds for `range`, `smoothness` and `nugget`.
#'   The search moves the ratio nugget / sigma2, so nugget bounds (and a
#'   nugget start value) are turned into ratios with the starting `sigma2`.
#'   Defaults: range in \[1e-4, 10\] times the diameter of the locations,
#'   smoothness in \[0.05, 5\], ratio in \[0, 10\].
#' @param fixed Named list of parameters held at given values.
#' @param nugget If `TRUE`, estimate a nugget; if `FALSE` (default) it is 0
#'   unless given in `fixed`.
#' @param precision,accuracy `"double"` (FP64) or `"mixed"`: every
#'   likelihood evaluation factors the covariance with the tile Cholesky in
#'   mixed precision, accurate to `accuracy` (see [gp_loglik()]). That
#'   likelihood moves in small steps as the parameters change (the tiles'
#'   roundings and precisions change with them), so the search takes its
#'   gradients from central differences over steps of 0.001 on its scale
#'   (log range, log smoothness, nugget ratio), well above those steps,
#'   rather than from `nlminb`'s own. On simulated data (n = 20,000, all
#'   three parameters, three correlations) the mixed estimates were within
#'   0.05 FP64 standard errors of the FP64 ones at accuracy 1e-5 and 1e-8,
#'   and at n = 100,000 (weak correlation, smoothness fixed, accuracy 1e-5)
#'   within 0.24; see BENCHMARKS.md. The standard errors come from the mixed-precision
#'   likelihood too. Mixed precision pays where the FP64 factorization is
#'   slow (large n, weak correlation); below that the extra evaluations of
#'   the differences cost more than it saves.
#' @param control List: `trace` (default `TRUE`: one progress line per
#'   evaluation, and a progress bar while the standard errors are computed),
#'   `iter.max` (default 200, a whole number from 1), `rel.tol` (default
#'   1e-10, in (0, 1)) and `hessian` (default `TRUE`: compute standard
#'   errors). Other names are an error.
#' @return An object of class `gp_fit` with methods `print()`, `summary()`,
#'   `coef()`, `logLik()` (so `AIC()` works), `vcov()`, `nobs()`,
#'   `predict()` and `simulate()`; components `coefficients`, `loglik`,
#'   `vcov`, `estimated` (names of the estimated parameters), `iterations`,
#'   `evaluations`, `convergence` (`nlminb`'s code), `converged` (`FALSE`
#'   when the search stopped without converging, which also gives a warning
#'   of class `gpustats_warning_not_converged`), `message`, `seconds`, `device`, `method`
#'   (the device, and whether the tile Cholesky factored the covariance, in
#'   which precision), `precision` and `accuracy` (`NULL` in FP64), which
#'   `predict()` and `simulate()` use too.
#' @seealso [predict.gp_fit()], [gp_loglik()]
#' @examples
#' set.seed(2)
#' locs <- matrix(runif(600), ncol = 2)
#' y <- gp_simulate(locs, sigma2 = 1, range = 0.1, smoothness = 0.8)
#' fit <- gp_fit(y, locs, control = list(trace = FALSE))
#' summary(fit)
#' @export
gp_fit <- function(y, locs, start = NULL, lower = NULL, upper = NULL, fixed = list(), nugget = FALSE,
                   distance = c("euclidean", "great_circle"), precision = c("double", "mixed"), accuracy = 1e-8,
                   device = getOption("gpustats.device", "auto"), control = list()) {
  call <- environment()
  t0 <- proc.time()[["elapsed"]]
  distance <- match.arg(distance)
  precision <- match.arg(precision)
  used_accuracy <- mixed_accuracy(precision, accuracy, call) # 0 in FP64
  locs <- as_locations(locs, "locs", distance, call)
  y <- as_observations(y, nrow(locs), call)
  if (is.matrix(y) && ncol(y) != 1L) abort_arg("{.arg y} must be a single data set (a vector).", call)
  y <- as.vector(y)
  check_flag(nugget, "nugget", call)
  ctrl <- fit_control(control, call)
  spec <- fit_spec(y, locs, start, lower, upper, fixed, nugget, distance, call)
  n <- length(y)
  check_fit_data(n, locs, spec, call)

  gp <- gp_open(locs, distance, device, call, used_accuracy)
  on.exit(gp_close(gp))
  # log |R| and y' R^-1 y for R = M + ratio I, memoised: the Hessian revisits points
  cache <- new.env(parent = emptyenv())
  correlation_fit <- function(range, smoothness, ratio) {
    key <- paste(format(c(range, smoothness, ratio), digits = 17), collapse = " ")
    hit <- cache[[key]]
    if (!is.null(hit)) return(hit)
    logdet <- gp_factor(gp, c(1, range, smoothness, ratio), locs, call, not_pd = NA_real_)
    q <- if (is.na(logdet)) NA_real_ else sum(gp_apply(gp, "forward", y, call)^2)
    cache[[key]] <- c(logdet = logdet, q = q)
  }
  # the full log-likelihood in sigma2 and the correlation parameters
  loglik_at <- function(sigma2, range, smoothness, ratio) {
    if (ratio < 0) return(-Inf)
    r <- correlation_fit(range, smoothness, ratio)
    if (is.na(r[["logdet"]])) return(-Inf)
    -0.5 * (n * log(2 * pi * sigma2) + r[["logdet"]] + r[["q"]] / sigma2)
  }
  # sigma2 given the correlation parameters: its MLE, or the fixed value
  sigma2_at <- function(range, smoothness, ratio) {
    if (!is.null(spec$fixed$sigma2)) return(spec$fixed$sigma2)
    r <- correlation_fit(range, smoothness, ratio)
    r[["q"]] / n
  }

  progress <- fit_progress(ctrl$trace, call)
  evaluations <- 0L
  objective <- function(theta) {
    if (!all(is.finite(theta))) return(Inf) # nlminb tries NaN where every point so far was infeasible
    p <- spec$unpack(theta)
    evaluations <<- evaluations + 1L
    s2 <- sigma2_at(p[["range"]], p[["smoothness"]], p[["ratio"]])
    ll <- if (is.na(s2)) -Inf else loglik_at(s2, p[["range"]], p[["smoothness"]], p[["ratio"]])
    progress(evaluations, ll, s2, p)
    if (is.finite(ll)) -ll else Inf
  }

  if (length(spec$theta0)) {
    # In mixed precision the likelihood is a step function of the parameters
    # at the scale of its rounding (the tiles' roundings and precisions change
    # with them), so nlminb's own finite differences, over steps near 1e-8,
    # measure the steps rather than the slope: central differences over
    # steps well above the rounding instead.
    gradient <- if (used_accuracy > 0) function(theta) fit_gradient(objective, theta, spec$lower, spec$upper)
    opt <- stats::nlminb(spec$theta0, objective, gradient, lower = spec$lower, upper = spec$upper,
                         control = list(iter.max = ctrl$iter.max, eval.max = 4L * ctrl$iter.max,
                                        rel.tol = ctrl$rel.tol))
    theta <- opt$par
  } else {
    opt <- list(iterations = 0L, convergence = 0L, message = "all parameters fixed")
    theta <- numeric(0)
  }
  p <- spec$unpack(theta)
  s2 <- sigma2_at(p[["range"]], p[["smoothness"]], p[["ratio"]])
  if (!is.finite(s2)) {
    cli::cli_abort("The covariance is not positive definite at any point the search reached; add a nugget or fix the range.",
                   class = c("gpustats_error_not_pd", "gpustats_error"), call = call)
  }
  coefficients <- c(sigma2 = s2, range = p[["range"]], smoothness = p[["smoothness"]], nugget = p[["ratio"]] * s2)
  ll <- loglik_at(s2, p[["range"]], p[["smoothness"]], p[["ratio"]])

  estimated <- c(if (is.null(spec$fixed$sigma2)) "sigma2", spec$free)
  estimated <- sub("^ratio$", "nugget", estimated)
  V <- matrix(NA_real_, length(estimated), length(estimated), dimnames = list(estimated, estimated))
  # a nugget estimated at its bound of 0 has no curvature to measure: its
  # standard error stays NA and the others are conditional on it
  interior <- setdiff(estimated, if (coefficients[["nugget"]] == 0) "nugget")
  if (isTRUE(ctrl$hessian) && length(interior)) {
    V[interior, interior] <- fit_vcov(coefficients, interior, loglik_at, n, ctrl$trace, call)
  }
  converged <- fit_converged_or_warn(opt, call)

  structure(list(
    coefficients = coefficients, loglik = ll, vcov = V, estimated = estimated,
    n = n, y = y, locs = locs, distance = distance, device = if (gp$device >= 0) "gpu" else "cpu", method = gp_method(gp),
    precision = precision, accuracy = if (precision == "mixed") accuracy,
    iterations = opt$iterations, evaluations = evaluations, convergence = opt$convergence, converged = converged,
    message = opt$message, seconds = proc.time()[["elapsed"]] - t0, call = match.call()
  ), class = "gp_fit")
}

# Whether nlminb converged; a classed warning when it did not, so that a
# search that stopped early is never taken for an estimate.
fit_converged_or_warn <- function(opt, call) {
  if (opt$convergence == 0L) return(TRUE)
  cli::cli_warn(c("The likelihood search did not converge: {opt$message}.",
                  i = "The estimates are where it stopped. Try other {.arg start} values, {.arg lower}/{.arg upper} bounds, a larger {.code control$iter.max}, or {.code nugget = TRUE}."),
                class = c("gpustats_warning_not_converged", "gpustats_warning"), call = call)
  FALSE
}

# The control list, checked, with its defaults filled in.
fit_control <- function(control, call) {
  defaults <- list(trace = TRUE, iter.max = 200L, rel.tol = 1e-10, hessian = TRUE)
  if (!is.list(control) || length(control) && (is.null(names(control)) || any(!nzchar(names(control))))) {
    abort_arg("{.arg control} must be a named list, not {.obj_type_friendly {control}}.", call)
  }
  unknown <- setdiff(names(control), names(defaults))
  if (length(unknown)) {
    abort_arg(c("{.arg control} has unknown element{?s} {.val {unknown}}.", i = "Known: {.val {names(defaults)}}."), call)
  }
  ctrl <- utils::modifyList(defaults, control)
  check_flag(ctrl$trace, "control$trace", call)
  check_flag(ctrl$hessian, "control$hessian", call)
  check_scalar(ctrl$iter.max, "control$iter.max", call, 1)
  if (ctrl$iter.max != round(ctrl$iter.max) || ctrl$iter.max > 1e6) {
    abort_arg("{.arg control$iter.max} must be a whole number from 1 to 1e6, not {ctrl$iter.max}.", call)
  }
  check_scalar(ctrl$rel.tol, "control$rel.tol", call, 0, open = TRUE)
  if (ctrl$rel.tol >= 1) abort_arg("{.arg control$rel.tol} must be below 1, not {ctrl$rel.tol}.", call)
  ctrl$iter.max <- as.integer(ctrl$iter.max)
  ctrl
}

# Data a fit can learn from: more observations than estimated parameters (with
# as many or fewer the likelihood has no isolated maximum: it can be raised
# without bound or along a ridge), and no duplicated locations without a
# nugget (the covariance is then singular at every parameter).
check_fit_data <- function(n, locs, spec, call) {
  k <- length(spec$free) + is.null(spec$fixed$sigma2)
  if (n <= k) {
    abort_arg(c("{.fn gp_fit} needs more observations than estimated parameters: {k} need at least {k + 1L}, not {n}.",
                i = "With as many parameters as observations or more, the likelihood has no isolated maximum. Fix some parameters with {.arg fixed}, or use more data."),
              call)
  }
  if (!"ratio" %in% spec$free && spec$ratio == 0 && anyDuplicated(locs)) {
    abort_arg(c("{.arg locs} has duplicated rows, so the covariance without a nugget is singular at any parameters.",
                i = "Use {.code nugget = TRUE}, or average the observations at each location."), call)
  }
}

# The gradient of f at theta by central differences over h (the step of
# fit_vcov), one-sided where a bound is nearer than h.
fit_gradient <- function(f, theta, lower, upper, h = 1e-3) {
  vapply(seq_along(theta), function(i) {
    up <- down <- theta
    up[i] <- min(theta[i] + h, upper[i])
    down[i] <- max(theta[i] - h, lower[i])
    (f(up) - f(down)) / (up[i] - down[i])
  }, numeric(1))
}

# What is estimated, on which scale, from where and within which bounds.
fit_spec <- function(y, locs, start, lower, upper, fixed, nugget, distance, call) {
  names_ok <- c("sigma2", "range", "smoothness", "nugget")
  for (arg in c("start", "lower", "upper", "fixed")) {
    v <- get(arg)
    if (is.null(v) || length(v) == 0L) next
    if (is.null(names(v)) || !all(names(v) %in% names_ok) || !all(vapply(v, is.numeric, TRUE)) ||
        any(lengths(as.list(v)) != 1L) || anyNA(unlist(v))) {
      abort_arg("{.arg {arg}} must be a named list of single numbers for {.or {.val {names_ok}}}.", call)
    }
  }
  fixed <- as.list(fixed)
  start <- as.list(start)
  lower <- as.list(lower)
  upper <- as.list(upper)
  check_fit_values(start, "start", call)
  check_fit_values(lower, "lower", call)
  check_fit_values(upper, "upper", call)
  if (!is.null(fixed$sigma2)) check_scalar(fixed$sigma2, "fixed$sigma2", call, 0, open = TRUE)
  if (!is.null(fixed$range)) check_scalar(fixed$range, "fixed$range", call, 0, open = TRUE)
  if (!is.null(fixed$smoothness)) check_scalar(fixed$smoothness, "fixed$smoothness", call, 0, open = TRUE)
  if (!is.null(fixed$nugget)) check_scalar(fixed$nugget, "fixed$nugget", call, 0)
  if (!is.null(fixed$nugget) && fixed$nugget > 0 && is.null(fixed$sigma2)) {
    # a fixed nugget with sigma2 free is not a fixed ratio: estimate nothing
    # about it, but keep sigma2 out of the profile
    abort_arg("A fixed nugget needs a fixed {.arg sigma2} too (the nugget is profiled as a ratio to sigma2); or fix neither.", call)
  }
  diameter <- max(sqrt(sum((apply(locs, 2L, max) - apply(locs, 2L, min))^2)), .Machine$double.eps)
  if (distance == "great_circle") diameter <- min(diameter * 111.2, pi * 6371)
  vy <- if (length(y) > 1L) stats::var(y) else y^2
  s2_start <- if (!is.null(fixed$sigma2)) fixed$sigma2 else max(vy, .Machine$double.eps)
  ratio_fixed <- if (!is.null(fixed$nugget)) fixed$nugget / s2_start else if (!nugget) 0 else NULL

  free <- c(if (is.null(fixed$range)) "range", if (is.null(fixed$smoothness)) "smoothness",
            if (is.null(ratio_fixed)) "ratio")
  default_start <- c(range = diameter / 10, smoothness = 1, ratio = 0.1)
  default_lower <- c(range = diameter * 1e-4, smoothness = 0.05, ratio = 0)
  default_upper <- c(range = diameter * 10, smoothness = 5, ratio = 10)
  pick <- function(given, default, key) {
    name <- if (key == "ratio") "nugget" else key
    v <- given[[name]]
    if (is.null(v)) return(default[[key]])
    if (key == "ratio") v / s2_start else v
  }
  to_theta <- function(key, v) if (key == "ratio") v else log(v)
  theta0 <- lo <- hi <- numeric(0)
  for (key in free) {
    lo[key] <- to_theta(key, pick(lower, default_lower, key))
    hi[key] <- to_theta(key, pick(upper, default_upper, key))
    theta0[key] <- min(max(to_theta(key, pick(start, default_start, key)), lo[key]), hi[key])
    if (!(lo[key] < hi[key])) abort_arg("The bounds for {.val {key}} are empty.", call)
  }
  unpack <- function(theta) {
    c(range = if ("range" %in% free) exp(theta[["range"]]) else fixed$range,
      smoothness = if ("smoothness" %in% free) exp(theta[["smoothness"]]) else fixed$smoothness,
      ratio = if ("ratio" %in% free) theta[["ratio"]] else ratio_fixed)
  }
  list(theta0 = theta0, lower = lo, upper = hi, free = free, fixed = fixed, ratio = ratio_fixed, unpack = unpack)
}

# Start values and bounds within the parameter space: range and smoothness
# finite and > 0, nugget finite and >= 0 (sigma2 is profiled: a start value
# is allowed, a bound means nothing).
check_fit_values <- function(values, arg, call) {
  for (name in names(values)) {
    v <- values[[name]]
    label <- paste0(arg, "$", name)
    if (name == "sigma2" && arg != "start") {
      abort_arg("{.arg {label}}: {.arg sigma2} has no bounds (its estimate is profiled out); fix it with {.arg fixed} instead.", call)
    }
    check_scalar(v, label, call, 0, open = name != "nugget")
  }
}

# One cli status line per likelihood evaluation, or nothing.
fit_progress <- function(trace, call) {
  if (!isTRUE(trace)) return(function(...) invisible())
  id <- cli::cli_progress_bar(type = "custom", format = "gp_fit {cli::pb_extra$text}",
                              extra = list(text = "starting"), total = NA, .envir = call)
  function(k, ll, s2, p) {
    text <- sprintf("eval %d: loglik %.6g  sigma2 %.4g  range %.4g  smoothness %.4g  nugget %.4g",
                    k, ll, s2, p[["range"]], p[["smoothness"]], p[["ratio"]] * s2)
    cli::cli_progress_update(id = id, extra = list(text = text), .envir = call)
  }
}

# Observed information of the estimated parameters: the central-difference
# Hessian of the full log-likelihood on the log scale of sigma2, range and
# smoothness and the natural scale of the nugget ratio, mapped back to the
# natural scale of the coefficients by the delta method.
fit_vcov <- function(coefficients, estimated, loglik_at, n, trace, call) {
  s2 <- coefficients[["sigma2"]]
  phi <- c(sigma2 = log(s2), range = log(coefficients[["range"]]),
           smoothness = log(coefficients[["smoothness"]]), nugget = coefficients[["nugget"]] / s2)
  k <- length(estimated)
  # a bar over the 2 k^2 + 1 evaluations, each a factorization
  evaluations <- 2 * k^2 + 1
  bar <- if (trace) gs_progress_bar(evaluations * as.double(n)^2, "gp_fit: standard errors", call)
  done <- 0
  f <- function(v) {
    done <<- done + 1
    if (!is.null(bar)) bar(done / evaluations)
    loglik_at(exp(v[["sigma2"]]), exp(v[["range"]]), exp(v[["smoothness"]]), v[["nugget"]])
  }
  h <- 1e-3
  H <- matrix(0, k, k, dimnames = list(estimated, estimated))
  f0 <- f(phi)
  at <- function(i, si, j = NULL, sj = 0) {
    v <- phi
    v[[estimated[i]]] <- v[[estimated[i]]] + si * h
    if (!is.null(j)) v[[estimated[j]]] <- v[[estimated[j]]] + sj * h
    f(v)
  }
  for (i in seq_len(k)) {
    H[i, i] <- (at(i, 1) - 2 * f0 + at(i, -1)) / h^2
    for (j in seq_len(i - 1L)) {
      H[i, j] <- H[j, i] <- (at(i, 1, j, 1) - at(i, 1, j, -1) - at(i, -1, j, 1) + at(i, -1, j, -1)) / (4 * h^2)
    }
  }
  V <- tryCatch(solve(-H), error = function(e) matrix(NA_real_, k, k))
  # d coefficient / d phi: sigma2, range, smoothness are exp(phi); nugget = ratio * sigma2
  J <- matrix(0, k, k, dimnames = list(estimated, estimated))
  for (i in seq_len(k)) {
    name <- estimated[i]
    if (name == "nugget") {
      J[i, i] <- s2
      if ("sigma2" %in% estimated) J[i, "sigma2"] <- coefficients[["nugget"]]
    } else {
      J[i, i] <- coefficients[[name]]
    }
  }
  V <- J %*% V %*% t(J)
  dimnames(V) <- list(estimated, estimated)
  V
}
