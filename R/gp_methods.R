#' Methods for Gaussian-process fits
#'
#' `coef()` gives the trend coefficients followed by the covariance
#' parameters, `vcov()` their covariance (block-diagonal: the trend's from
#' GLS, the covariance parameters' from the information the fit used, see
#' Standard errors in [gp_fit()]; `type = "fisher"` or `"hessian"` asks for
#' one of them, computed again at the estimates when the fit used the
#' other), `fitted()`
#' the kriged noise-free field at the observed locations (trend plus
#' smoothed field, as fields' `fitted.values`) and `residuals()` the data
#' minus those (`type = "response"`) or minus the trend alone (`"trend"`,
#' what [gp_variogram()] uses). `anova()` compares nested fits by their
#' likelihood ratio: fits of the same data (responses and locations), each
#' the next with some parameters held (its trend within the next's, its
#' covariance a special case: a parameter held or the ranges of an
#' anisotropic or space-time model equal), of one likelihood (exact, or
#' Vecchia with one `m`); other fits are an error that says why. REML
#' likelihoods of different trends are not comparable, so those need
#' `method = "ml"`. A larger model's log-likelihood below a smaller one's by
#' more than 1e-6 (relative) means its search stopped short, and is an
#' error; a smaller shortfall is two equal maxima found to the search's
#' tolerance (the extra parameters at the values of the smaller model, a
#' nugget of 0, say), tested as a statistic of 0.
#'
#' For a fit of \eqn{r} replicates (`y` an \eqn{n \times r} matrix in
#' [gp_fit()]), `fitted()` and `residuals()` are \eqn{n \times r} matrices
#' (each replicate kriged from its own data, the trend coefficients pooled),
#' `nobs()` is \eqn{n r} and `logLik()` the joint log-likelihood of all
#' replicates, whose `df` counts the shared parameters once.
#'
#' `update()`, `formula()`, `terms()`, `model.frame()` and `model.matrix()`
#' work as for [lm()], so that a term is added and tested in one line,
#' `anova(fit, update(fit, . ~ . + ffreq))` (ML fits: see above). `update()`
#' evaluates the fit's call again with the arguments given changed (`NULL`
#' removes one) and, for a fit of the formula form, the formula changed by
#' [update.formula()]; the data are found as they were the first time, by
#' their name in the call. A fit of the formula form keeps its model frame
#' (the variables of the rows fitted, the rows dropped for missing values in
#' its attribute `na.action`), so `model.frame()` and `model.matrix()` need
#' no data. A fit of the matrix form, `gp_fit(y, locs, X)`, is the model
#' `y ~ X - 1` (`y ~ 0` when `X` has no columns): its model frame holds `y`
#' (for replicates the \eqn{n \times r} matrix) and `X`, `model.matrix()` is
#' `X` with its columns named as the trend coefficients, and `update()`
#' changes its arguments (`update(fit, X = cbind(1, x))`), not a formula.
#'
#' `print()` and `summary()` of a 2-D anisotropic fit also give its
#' anisotropy in gstat's convention (`vgm()`'s `range` and `anis`, see
#' [gp_anisotropy()]).
#'
#' @param object,x,formula A `gp_fit` from [gp_fit()].
#' @param ... Further `gp_fit` objects (for `anova()`), the arguments of
#'   [gp_fit()] to change (for `update()`), else unused.
#' @name gp_fit-methods
NULL

#' @rdname gp_fit-methods
#' @export
print.gp_fit <- function(x, ...) {
  validate_gp_fit(x, "x", environment())
  cat(sprintf("%s: %s covariance, %s trend, fitted by %s\n", fit_family_label(x), x$model$name, gp_trend_label(x),
              fit_method_label(x)))
  cat(sprintf("%s, log-likelihood%s = %.6g, %s, %.3g s\n", fit_size_label(x), if (fit_is_glmm(x)) " (Laplace)" else "",
              x$loglik, x$backend, x$seconds))
  print(noquote(vapply(c(x$beta, x$covariance), format, "", digits = 6)))
  cat(gstat_anisotropy_line(fit_gstat_anisotropy(x)))
  if (!fit_converged(x)) cat(sprintf("The likelihood search did not converge (%s).\n", x$message))
  invisible(x)
}

# Whether a fit is of a non-Gaussian family (a latent field integrated out
# by the Laplace approximation).
fit_is_glmm <- function(x) !identical(x$family %||% "gaussian", "gaussian")

# "Gaussian process", or the family and link of a latent Gaussian field's
# responses.
fit_family_label <- function(x) {
  if (!fit_is_glmm(x)) return("Gaussian process")
  sprintf("Spatial GLMM, %s family (%s link), latent Gaussian field", x$family, x$link)
}

# "ML", "REML", or ML of the Laplace approximation.
fit_method_label <- function(x) if (fit_is_glmm(x)) "ML (Laplace approximation)" else toupper(x$method)

gp_trend_label <- function(x) {
  p <- length(x$beta)
  if (p == 0L) "zero-mean" else if (p == 1L && names(x$beta) == "(Intercept)") "constant" else sprintf("%d-term", p)
}

# "n = 200", or for replicates "n = 200 locations x 10 replicates".
fit_size_label <- function(x) {
  r <- fit_replicates(x)
  if (r == 1L) sprintf("n = %d", x$n) else sprintf("n = %d locations x %d replicates", x$n, r)
}

# A 2-D anisotropic fit's anisotropy as gstat's vgm() takes it (see
# gp_anisotropy()); NULL for other models.
fit_gstat_anisotropy <- function(x) if (x$model$geometry == "aniso" && x$model$dim == 2L) gp_anisotropy(x, "gstat")

# The line of print() and summary() that gives it; "" for none.
gstat_anisotropy_line <- function(a) {
  if (is.null(a)) return("")
  sprintf("In gstat's convention: range = %s, anis = c(%s, %s) (major axis in degrees clockwise from north, minor / major range)\n",
          format(a[["range"]], digits = 6), format(a[["angle"]], digits = 6), format(a[["ratio"]], digits = 6))
}

# Whether the search converged.
fit_converged <- function(x) x$converged %||% (x$convergence == 0L)

#' @rdname gp_fit-methods
#' @export
coef.gp_fit <- function(object, ...) {
  validate_gp_fit(object, "object", environment())
  c(object$beta, object$covariance)
}

#' @rdname gp_fit-methods
#' @export
vcov.gp_fit <- function(object, type = NULL, ...) {
  validate_gp_fit(object, "object", environment())
  names <- c(names(object$beta), object$estimated)
  V <- matrix(0, length(names), length(names), dimnames = list(names, names))
  b <- names(object$beta)
  V[b, b] <- object$vcov_beta
  V[object$estimated, object$estimated] <- fit_vcov_of_type(object, type, environment())
  V
}

# The covariance of the estimated covariance parameters from the
# information `type`: the fit's own, or computed again at the estimates
# (each evaluation of the likelihood factors the covariance once more).
fit_vcov_of_type <- function(object, type, call) {
  if (is.null(type)) return(object$vcov)
  type <- match_choice(type, c("fisher", "hessian"), "type", call)
  if (identical(type, object$vcov_type)) return(object$vcov)
  check_gaussian_fit(object, "Standard errors of another {.arg type}", call)
  if (identical(object$approx, "vecchia")) {
    abort_arg("A Vecchia fit's standard errors come from the Fisher information of the approximation: {.code type = \"fisher\"}.", call)
  }
  gp <- gp_open(object$locs, object$distance, object$device, call, object$accuracy %||% 0, object$model$native)
  on.exit(gp_close(gp))
  d <- list(y = object$y, locs = object$locs, X = object$X)
  lik <- gp_likelihood(gp, d, object$model, object$method, call)
  V <- fit_vcov(object$covariance, object$estimated, lik, list(hessian = TRUE), call, type, object$model)
  if (!identical(attr(V, "type"), type)) {
    cli::cli_inform("The Fisher information needs an isotropic model, a covariance factored whole (not by the tile Cholesky) and the memory for a few {object$n} x {object$n} matrices{if (object$method == 'reml') ', and under REML one data set' else ''}: standard errors from the Hessian instead.")
  }
  structure(V, type = NULL)
}

#' @rdname gp_fit-methods
#' @export
nobs.gp_fit <- function(object, ...) {
  validate_gp_fit(object, "object", environment())
  object$n * fit_replicates(object)
}

#' @rdname gp_fit-methods
#' @param formula. For `update()`: the changes to the formula of a fit of the
#'   formula form, as [update.formula()] takes them (`. ~ . + ffreq`).
#' @param evaluate For `update()`: `TRUE` to fit the updated call, `FALSE` to
#'   return it.
#' @export
update.gp_fit <- function(object, formula., ..., evaluate = TRUE) {
  call <- environment()
  validate_gp_fit(object, "object", call)
  check_flag(evaluate, "evaluate", call)
  fit_call <- object$call
  if (!missing(formula.)) {
    if (is.null(object$terms)) {
      abort_arg(c("{.arg object} is a fit of the matrix form, which has no formula to update.",
                  i = "Change its arguments instead, such as {.code update(fit, X = cbind(1, x))}."), call)
    }
    fit_call$y <- stats::update.formula(stats::formula(object), formula.)
  }
  changes <- match.call(expand.dots = FALSE)$...
  if (!all(nzchar(names(changes) %||% rep("", length(changes))))) {
    abort_arg("The arguments to change must be named, such as {.code update(fit, method = \"ml\")}.", call)
  }
  for (name in names(changes)) fit_call[[name]] <- changes[[name]]
  if (evaluate) eval(fit_call, parent.frame()) else fit_call
}

#' @rdname gp_fit-methods
#' @export
formula.gp_fit <- function(x, ...) {
  call <- environment()
  validate_gp_fit(x, "x", call)
  check_dots_unused("formula", "x", call, ...)
  stats::formula(stats::terms(x))
}

#' @rdname gp_fit-methods
#' @export
terms.gp_fit <- function(x, ...) {
  call <- environment()
  validate_gp_fit(x, "x", call)
  check_dots_unused("terms", "x", call, ...)
  x$terms %||% matrix_form_terms(x)
}

#' @rdname gp_fit-methods
#' @export
model.frame.gp_fit <- function(formula, ...) {
  call <- environment()
  validate_gp_fit(formula, "formula", call)
  check_dots_unused("model.frame", "formula", call, ...)
  formula$model_frame %||% matrix_form_frame(formula)
}

#' @rdname gp_fit-methods
#' @export
model.matrix.gp_fit <- function(object, ...) {
  call <- environment()
  validate_gp_fit(object, "object", call)
  check_dots_unused("model.matrix", "object", call, ...)
  object$X
}

# The matrix form gp_fit(y, locs, X) as a model formula: y on the columns of
# X, which hold the intercept when there is one. Its environment is the base
# one: the variables are those of matrix_form_frame(), not of any caller.
matrix_form_terms <- function(x) {
  stats::terms(stats::as.formula(if (ncol(x$X)) "y ~ X - 1" else "y ~ 0", env = baseenv()))
}

# The model frame of a fit of the matrix form: `y` (a matrix for
# replicates) and `X`, a row per location.
matrix_form_frame <- function(x) {
  frame <- data.frame(row.names = seq_len(x$n))
  frame$y <- x$y
  if (ncol(x$X)) frame$X <- x$X
  attr(frame, "terms") <- matrix_form_terms(x)
  frame
}

#' @rdname gp_fit-methods
#' @export
logLik.gp_fit <- function(object, ...) {
  validate_gp_fit(object, "object", environment())
  structure(object$loglik, df = length(object$estimated) + length(object$beta), nobs = stats::nobs(object), class = "logLik")
}

#' @rdname gp_fit-methods
#' @export
fitted.gp_fit <- function(object, ...) {
  call <- environment()
  validate_gp_fit(object, "object", call)
  check_gaussian_fit(object, "{.fn fitted}", call)
  k <- if (identical(object$approx, "vecchia")) {
    vecchia_predict_fit(object, object$locs, object$X, NULL, object$device, call, "fitted")
  } else {
    gp_krige(object, object$locs, object$X, as.matrix(object$y), object$device, call, "fitted", fit_replicates(object),
             se = FALSE)
  }
  replicate_columns(object, k$fit)
}

#' @rdname gp_fit-methods
#' @param type For `residuals()`: `"response"` (data minus fitted values)
#'   or `"trend"` (data minus the estimated trend). For `vcov()` and
#'   `summary()`: `NULL` (the standard errors the fit computed), `"fisher"`
#'   (the expected information) or `"hessian"` (the observed information, a
#'   central-difference Hessian; exact fits only).
#' @export
residuals.gp_fit <- function(object, type = c("response", "trend"), ...) {
  validate_gp_fit(object, "object", environment())
  check_gaussian_fit(object, "{.fn residuals}", environment())
  type <- match_choice(type, c("response", "trend"), "type", environment())
  if (type == "trend") return(object$y - drop(object$X %*% object$beta))
  object$y - stats::fitted(object)
}

#' @rdname gp_fit-methods
#' @export
anova.gp_fit <- function(object, ...) {
  call <- environment()
  fits <- c(list(object), list(...))
  if (length(fits) < 2L) abort_arg("{.fn anova} compares two or more {.cls gp_fit} objects.", call)
  for (i in seq_along(fits)) validate_gp_fit(fits[[i]], if (i == 1L) "object" else sprintf("..%d", i - 1L), call)
  check_same_data(fits, call)
  if (length(unique(vapply(fits, function(f) f$family %||% "gaussian", ""))) > 1L) {
    abort_arg("The fits are of different families: their log-likelihoods are not comparable.", call)
  }
  methods <- unique(vapply(fits, `[[`, "", "method"))
  if (length(methods) > 1L) abort_arg("The fits mix ML and REML; refit them with one {.arg method}.", call)
  likelihoods <- unique(vapply(fits, function(f) paste(f$approx %||% "exact", f$m %||% ""), ""))
  if (length(likelihoods) > 1L) {
    abort_arg("The fits maximise different likelihoods (exact, or Vecchia approximations with other {.arg m}): their log-likelihoods are not comparable.", call)
  }
  ll <- vapply(fits, function(f) as.numeric(stats::logLik(f)), 1)
  df <- vapply(fits, function(f) attr(stats::logLik(f), "df"), 1)
  o <- order(df)
  for (k in seq_along(o)[-1L]) check_nested(fits, o[k - 1L], o[k], methods, call)
  stat <- 2 * diff(ll[o])
  check_larger_fits_higher(ll[o], o, call)
  stat <- pmax(stat, 0) # equal maxima to the search's tolerance (see check_larger_fits_higher)
  ll <- ll[o]
  df <- df[o]
  ddf <- diff(df)
  table <- data.frame(Df = df, logLik = ll, AIC = -2 * ll + 2 * df, Chisq = c(NA, stat), `Chi Df` = c(NA, ddf),
                      `Pr(>Chisq)` = c(NA, stats::pchisq(stat, ddf, lower.tail = FALSE)), check.names = FALSE,
                      row.names = paste("Model", o))
  structure(table, heading = "Likelihood-ratio tests of nested Gaussian-process fits\n", class = c("anova", "data.frame"))
}

#' @rdname gp_fit-methods
#' @export
summary.gp_fit <- function(object, type = NULL, ...) {
  validate_gp_fit(object, "object", environment())
  se_beta <- sqrt(pmax(diag(object$vcov_beta), 0))
  z <- object$beta / se_beta
  trend <- cbind(Estimate = object$beta, `Std. Error` = se_beta, `z value` = z,
                 `Pr(>|z|)` = 2 * stats::pnorm(-abs(z)))
  est <- object$covariance
  se <- stats::setNames(rep(NA_real_, length(est)), names(est))
  V <- fit_vcov_of_type(object, type, environment())
  se[object$estimated] <- sqrt(pmax(diag(V), 0))
  se_source <- if (identical(object$approx, "vecchia")) "the Fisher information of the Vecchia approximation" else
    switch(if (is.null(type)) object$vcov_type %||% "none" else type, fisher = "the expected (Fisher) information",
           hessian = "the observed information (Hessian)", none = "not computed")
  covariance <- cbind(Estimate = est, `Std. Error` = se)
  status <- ifelse(names(est) %in% object$estimated, "estimated", "fixed")
  structure(list(trend = trend, covariance = covariance, status = status, loglik = object$loglik,
                 aic = stats::AIC(object), n = object$n, size = fit_size_label(object), model = object$model$name, method = object$method,
                 iterations = object$iterations, evaluations = object$evaluations, converged = fit_converged(object),
                 message = object$message, seconds = object$seconds, device = object$device, call = object$call,
                 se_source = se_source, family = fit_family_label(object), method_label = fit_method_label(object),
                 glmm = fit_is_glmm(object), anisotropy = fit_gstat_anisotropy(object)),
            class = "summary.gp_fit")
}

#' @rdname gp_fit-methods
#' @export
print.summary.gp_fit <- function(x, ...) {
  validate_summary_gp_fit(x, "x", environment())
  cat(sprintf("%s, %s covariance, fitted by %s\n\nCall:\n", x$family %||% "Gaussian process", x$model,
              x$method_label %||% toupper(x$method)))
  print(x$call)
  if (nrow(x$trend)) {
    cat("\nTrend:\n")
    stats::printCoefmat(x$trend, digits = 5, P.values = TRUE, has.Pvalue = TRUE)
  } else {
    cat("\nTrend: none (mean zero)\n")
  }
  cat("\nCovariance:\n")
  tab <- as.data.frame(x$covariance)
  tab$` ` <- ifelse(x$status == "fixed", "(fixed)", "")
  print(tab, digits = 5)
  cat(gstat_anisotropy_line(x$anisotropy))
  cat(sprintf("\n%s   log-likelihood (%s) = %.8g   AIC = %.8g\n", x$size %||% sprintf("n = %d", x$n),
              if (isTRUE(x$glmm)) "ML, Laplace approximation" else toupper(x$method), x$loglik, x$aic))
  cat(sprintf("%d iterations, %d likelihood evaluations, %.3g s on the %s (%s)\n", x$iterations, x$evaluations,
              x$seconds, toupper(x$device), x$message))
  if (!x$converged) cat("The likelihood search did not converge: the estimates are where it stopped.\n")
  if (isTRUE(x$glmm)) {
    cat("Standard errors: trend and covariance from the observed information (Hessian) of the Laplace log-likelihood.\n")
  } else {
    cat(sprintf("Standard errors: trend from GLS, covariance from %s.\n", x$se_source %||% "the observed information"))
  }
  invisible(x)
}
