# Spatial generalized linear mixed models: counts (Poisson, log link) and
# presences or successes out of trials (binomial, logit link) with a Matérn
# latent field, the field integrated out by the exact Laplace approximation
# (src/core/glmm: Newton's iteration for the mode, dense, on the CPU). The
# trend coefficients and the covariance parameters are estimated jointly by
# nlminb on the Laplace log-likelihood.

# The families a non-Gaussian fit takes, with their link.
glmm_links <- c(poisson = "log", binomial = "logit")

# The family of a fit from a family object, function or name as glm() takes
# it: NULL for gaussian() (the Gaussian path), else list(family, link).
gp_family <- function(family, call) {
  if (is.character(family) && length(family) == 1L) {
    family <- tryCatch(get(family, mode = "function", envir = parent.frame(2L)), error = function(e) NULL)
  }
  if (is.function(family)) family <- family()
  if (!inherits(family, "family")) {
    abort_arg("{.arg family} must be a family such as {.code poisson()} or {.code binomial()}, as {.fn glm} takes it.", call)
  }
  if (identical(family$family, "gaussian") && identical(family$link, "identity")) return(NULL)
  if (!family$family %in% names(glmm_links) || !identical(family$link, glmm_links[[family$family]])) {
    abort_arg(c("{.fn gp_fit} does not fit the {family$family} family with the {family$link} link.",
                i = "Supported: {.code gaussian()}, {.code poisson()} (log link) and {.code binomial()} (logit link)."),
              call)
  }
  list(family = family$family, link = family$link)
}

# The data of a non-Gaussian fit: `y` the counts or successes, `trials` (the
# binomial's numbers of trials, NULL for the Poisson) and `offset` (the
# formula's offset() terms, 0 without) added to d, after the checks of the
# responses against the family's support.
glmm_data <- function(d, family, call) {
  y <- d$y
  if (family$family == "binomial" && is.matrix(y)) {
    if (ncol(y) != 2L) abort_arg("A binomial response matrix has two columns, successes and failures: {.code cbind(y, n - y)}.", call)
    check_counts(y, "The successes and failures", call)
    trials <- rowSums(y)
    if (any(trials == 0)) abort_arg("{sum(trials == 0)} observation{?s} {?has/have} no trials: drop {?it/them}.", call)
    y <- y[, 1L]
  } else if (is.matrix(y)) {
    abort_arg("Replicates (a response matrix) are for the Gaussian family; a binomial matrix response is {.code cbind(successes, failures)}.", call)
  } else if (family$family == "binomial") {
    if (!all(y %in% c(0, 1))) {
      abort_arg(c("A binomial response vector must be 0 or 1.",
                  i = "For successes out of trials, write the response as {.code cbind(successes, trials - successes)}."), call)
    }
    trials <- rep(1, length(y))
  } else {
    check_counts(y, "Poisson responses", call)
    trials <- NULL
  }
  if (all(y == 0)) abort_arg("All responses are 0: the log-linear predictor's maximum is at minus infinity.", call)
  if (!is.null(trials) && all(y == trials)) abort_arg("All responses are successes: the logit's maximum is at infinity.", call)
  offset <- if (!is.null(d$frame)) stats::model.offset(d$frame)
  d$y <- as.double(y)
  d$trials <- trials
  d$offset <- if (!is.null(offset)) as.double(offset)
  if (!is.null(d$offset) && any(!is.finite(d$offset))) abort_arg("The offset has values that are not finite.", call)
  d
}

# Counts: whole numbers from 0 to 2^53 (beyond, doubles skip whole numbers).
check_counts <- function(y, what, call) {
  if (any(y < 0 | y != round(y))) abort_arg("{what} must be whole numbers from 0 (counts).", call)
  if (any(y > 2^53)) abort_arg("{what} must be at most 2^53 (about 9e15), the largest whole numbers a double holds exactly.", call)
}

# What a non-Gaussian fit does not take yet: REML (its likelihood is a
# Laplace approximation of the ML one), the Vecchia-Laplace approximation,
# anisotropic and space-time covariances, mixed precision.
check_glmm_options <- function(method_given, method, approx, precision, model, call) {
  if (method_given && method == "reml") {
    abort_arg("Non-Gaussian families are fitted by maximum likelihood (the Laplace approximation): {.code method = \"ml\"}.", call)
  }
  if (identical(approx, "vecchia")) {
    abort_arg(c("The Vecchia-Laplace approximation for non-Gaussian families is not yet available.",
                i = "Use {.code approx = \"exact\"} (the exact Laplace approximation)."), call)
  }
  if (precision == "mixed") abort_arg("Non-Gaussian families are fitted in FP64: {.code precision = \"double\"}.", call)
  if (model$geometry != "isotropic") {
    abort_arg("Non-Gaussian families take isotropic covariance models for now, not {.val {model$name}}.", call)
  }
}

# The latent field's starting variance: the excess of the Pearson
# statistic of the glm fit without the field over its expectation, per unit
# of weight (the link-scale variance the field adds to the working
# responses), within [0.2, 10].
glmm_sigma2_start <- function(d) {
  mu <- d$glm$fitted.values
  w <- d$glm$weights # the working weights: mu (Poisson), n p (1 - p) (binomial)
  n_trials <- d$trials %||% 1
  excess <- sum((d$y - n_trials * mu)^2 / pmax(w, 1e-12) - 1) / sum(w)
  min(max(excess, 0.2), 10)
}

# The glm fit without the field: the start of the trend and of sigma2.
glmm_glm <- function(d, family) {
  response <- if (family$family == "binomial") d$y / d$trials else d$y
  fam <- if (family$family == "binomial") stats::binomial() else stats::poisson()
  suppressWarnings(stats::glm.fit(d$X, response, weights = d$trials, offset = d$offset, family = fam))
}

# The Laplace log-likelihood as a function of the trend and the covariance,
# on a native object that holds K (rebuilt when the covariance changes) and
# warm-starts each Newton iteration from the last mode. `cov_family`: the
# core's covariance family (gp_cov_model()'s `native`).
glmm_likelihood <- function(d, family, distance, call, max_iter = 100L, tol = 1e-8, cov_family = "matern") {
  ptr <- gs_call(.Call(gs_r_laplace_new, d$locs, gs_threads(call)), call)
  code <- gs_code("glmm_family", family$family)
  offset <- d$offset %||% 0
  a <- numeric(nrow(d$locs))
  placed <- NULL
  evaluations <- 0L
  mode <- function(beta, covariance) {
    covariance <- covariance[intersect(names(gs_table("cov_param")), names(covariance))]
    if (!identical(placed, covariance)) {
      placed <<- NULL
      gs_call(.Call(gs_r_laplace_set_covariance, ptr, cov_model(covariance, distance, cov_family)), call)
      placed <<- covariance
    }
    eta0 <- offset + drop(d$X %*% beta)
    r <- gs_call(.Call(gs_r_laplace_mode, ptr, code, d$y, d$trials, as.double(eta0), a, as.integer(max_iter), tol), call)
    evaluations <<- evaluations + 1L
    if (r$converged) a <<- r$a
    r
  }
  list(mode = mode, close = function() invisible(.Call(gs_r_laplace_free, ptr)), evaluations = function() evaluations)
}

# The Laplace log-likelihood of a model at given parameters (for the tests
# and for comparisons with other packages): y counts or successes (with
# `trials`), X the trend's design, beta its coefficients, covariance
# c(sigma2, range, smoothness, nugget). Returns the native mode's list.
glmm_loglik <- function(y, locs, X, beta, covariance, family, trials = NULL, offset = NULL, distance = "euclidean") {
  call <- environment()
  family <- gp_family(family, call)
  d <- list(y = as.double(y), locs = as_locations(locs, "locs", distance, call), X = as.matrix(X),
            trials = if (!is.null(trials)) as.double(trials) else if (family$family == "binomial") rep(1, length(y)),
            offset = offset)
  lik <- glmm_likelihood(d, family, distance, call)
  on.exit(lik$close())
  lik$mode(beta, covariance)
}

# The fit: nlminb over theta = (beta, log sigma2 unless fixed, the spec's
# scale of the other covariance parameters), from the glm fit without the
# field; standard errors from a central-difference Hessian of the Laplace
# log-likelihood over the same scale, mapped to the reported one by the
# delta method. Returns what fit_estimates() returns, and the field's mode.
glmm_fit <- function(d, family, model, spec, ctrl, call) {
  lik <- glmm_likelihood(d, family, model$distance, call, cov_family = model$native)
  on.exit(lik$close())
  p <- ncol(d$X)
  sigma2_free <- is.null(spec$fixed$sigma2)
  beta0 <- stats::setNames(ifelse(is.finite(d$glm$coefficients), d$glm$coefficients, 0), colnames(d$X))
  theta0 <- c(beta0, if (sigma2_free) c(sigma2 = log(spec$sigma2_start)), spec$theta0)
  lower <- c(rep(-Inf, p), if (sigma2_free) log(1e-6), spec$lower)
  upper <- c(rep(Inf, p), if (sigma2_free) log(1e4), spec$upper)
  at <- function(theta) {
    par <- spec$unpack(theta[-seq_len(p + sigma2_free)])
    sigma2 <- if (sigma2_free) exp(theta[[p + 1L]]) else spec$fixed$sigma2
    list(beta = theta[seq_len(p)],
         covariance = c(sigma2 = sigma2, par$geom, par$shape, nugget = par$ratio * sigma2))
  }
  progress <- fit_progress(ctrl$trace, call)
  # -Inf where the inner iteration does not converge, so that the search
  # steps back from there rather than take a point short of its mode
  loglik <- function(theta) {
    if (!all(is.finite(theta))) return(-Inf)
    u <- at(theta)
    r <- tryCatch(lik$mode(u$beta, u$covariance), gpustats_error_not_pd = function(e) NULL)
    ll <- if (is.null(r) || !r$converged) -Inf else r$loglik
    progress(lik$evaluations(), ll, list(geom = c(u$beta, u$covariance[c("sigma2", model$params)]),
                                         shape = u$covariance[model$shapes], ratio = u$covariance[["nugget"]] / u$covariance[["sigma2"]]))
    ll
  }
  control <- list(iter.max = ctrl$iter.max, eval.max = 4L * ctrl$iter.max, rel.tol = ctrl$rel.tol)
  opt <- stats::nlminb(theta0, function(theta) -loglik(theta), lower = lower, upper = upper, control = control)
  names(opt$par) <- names(theta0)
  warn_at_bound(names(theta0)[-seq_len(p)], opt$par[-seq_len(p)], lower[-seq_len(p)], upper[-seq_len(p)], "ratio", call)
  u <- at(opt$par)
  r <- lik$mode(u$beta, u$covariance)
  if (!r$converged) {
    cli::cli_abort(c("The Laplace approximation's Newton iteration did not converge at the estimates ({r$iterations} steps).",
                     i = "Give {.arg start} values, fix the range or the smoothness with {.arg fixed}, or check the trend for separation (a covariate that predicts the response perfectly)."),
                   class = c("gpustats_error_not_converged", "gpustats_error"), call = call)
  }
  estimated <- c(if (sigma2_free) "sigma2", sub("^ratio$", "nugget", spec$free))
  vcov <- glmm_vcov(loglik, opt$par, p, u$covariance, estimated, ctrl)
  list(covariance = u$covariance, loglik = r$loglik, vcov = vcov$covariance, vcov_type = if (ctrl$hessian) "hessian",
       beta = u$beta, vcov_beta = vcov$beta, estimated = estimated, opt = opt, evaluations = lik$evaluations(),
       backend = "cpu, exact Laplace", device = "cpu", mode = r$f)
}

# The covariances of the trend and of the estimated covariance parameters
# from the inverse of minus the Hessian of the log-likelihood over theta (a
# nugget estimated at 0 left out, its standard error NA), the covariance
# parameters' mapped to their scale (fit_vcov_jacobian). NA without
# ctrl$hessian, or where the Hessian is not negative definite.
glmm_vcov <- function(loglik, theta, p, covariance, estimated, ctrl) {
  beta_names <- names(theta)[seq_len(p)]
  out <- list(beta = matrix(NA_real_, p, p, dimnames = list(beta_names, beta_names)),
              covariance = matrix(NA_real_, length(estimated), length(estimated), dimnames = list(estimated, estimated)))
  if (!isTRUE(ctrl$hessian)) return(out)
  names(theta)[-seq_len(p)] <- estimated
  interior <- setdiff(estimated, if (covariance[["nugget"]] == 0) "nugget")
  keep <- c(beta_names, interior)
  H <- fit_hessian(function(v) loglik(replace(theta, keep, v)), theta[keep])
  V <- tryCatch(solve(-H), error = function(e) NULL)
  if (is.null(V) || any(diag(V) < 0)) return(out)
  J <- fit_vcov_jacobian(covariance, interior)
  out$beta[] <- V[seq_len(p), seq_len(p)]
  out$covariance[interior, interior] <- J %*% V[interior, interior, drop = FALSE] %*% t(J)
  out
}

# An error for what a non-Gaussian fit does not have yet (predictions,
# fitted values, residuals, simulations, profiles, variograms).
check_gaussian_fit <- function(fit, what, call) {
  family <- fit$family %||% "gaussian"
  if (family == "gaussian") return(invisible())
  abort_arg("{what}: not yet available for fits of the {family} family (only their estimates, {.fn logLik} and {.fn summary}).", call)
}
