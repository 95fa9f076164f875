#' Methods for alpha-stable fits
#'
#' `coef()` gives the four parameters, the fixed ones (see `fixed` in
#' [stable_fit()]) at their values; `vcov()` the covariance of the estimated
#' (free) parameters only, as `stats4::mle()` and `lm()` users expect;
#' `logLik()` counts the free parameters as its degrees of freedom, so
#' `AIC()` compares fits with and without fixed parameters. `print()` and
#' `summary()` mark the fixed parameters.
#'
#' @param object,x A `stable_fit` from [stable_fit()].
#' @param complete For `coef()`: `TRUE` (default) for all four parameters,
#'   `FALSE` for the estimated ones only (those of `vcov()`).
#' @param ... Unused.
#' @name stable_fit-methods
NULL

stable_method_label <- c(mle = "maximum likelihood", mcculloch = "McCulloch's quantile method",
                         koutrouvelis = "Koutrouvelis' regression method")

#' @rdname stable_fit-methods
#' @export
print.stable_fit <- function(x, ...) {
  validate_stable_fit(x, "x", environment())
  cat(sprintf("Alpha-stable law (S%d) fitted by %s\n", x$pm, stable_method_label[[x$method]]))
  cat(sprintf("n = %d, log-likelihood = %.8g\n", x$n, x$loglik))
  print(x$coefficients, digits = 6)
  if (length(x$fixed)) cat(stable_fixed_line(x$fixed), "\n", sep = "")
  if (length(x$boundary)) {
    cat("On the boundary (no standard error): ", paste(x$boundary, collapse = ", "), "\n", sep = "")
  }
  if (!isTRUE(x$converged)) cat(stable_not_converged_line(x$iterations), "\n", sep = "")
  invisible(x)
}

#' @rdname stable_fit-methods
#' @export
coef.stable_fit <- function(object, complete = TRUE, ...) {
  call <- environment()
  validate_stable_fit(object, "object", call)
  check_flag(complete, "complete", call)
  if (complete) object$coefficients else object$coefficients[!names(object$coefficients) %in% names(object$fixed)]
}

#' @rdname stable_fit-methods
#' @export
vcov.stable_fit <- function(object, ...) {
  validate_stable_fit(object, "object", environment())
  object$vcov
}

#' @rdname stable_fit-methods
#' @export
nobs.stable_fit <- function(object, ...) {
  validate_stable_fit(object, "object", environment())
  object$n
}

#' @rdname stable_fit-methods
#' @export
logLik.stable_fit <- function(object, ...) {
  validate_stable_fit(object, "object", environment())
  structure(object$loglik, df = 4L - length(object$fixed), nobs = object$n, class = "logLik")
}

#' @rdname stable_fit-methods
#' @export
summary.stable_fit <- function(object, ...) {
  validate_stable_fit(object, "object", environment())
  table <- cbind(Estimate = object$coefficients, `Std. Error` = stable_fit_se(object))
  structure(list(table = table, fixed = object$fixed, method = object$method, pm = object$pm,
                 loglik = object$loglik,
                 aic = stats::AIC(object), n = object$n, iterations = object$iterations,
                 converged = object$converged),
            class = "summary.stable_fit")
}

#' @rdname stable_fit-methods
#' @export
print.summary.stable_fit <- function(x, ...) {
  validate_summary_stable_fit(x, "x", environment())
  cat(sprintf("Alpha-stable law (S%d) fitted by %s\n\n", x$pm, stable_method_label[[x$method]]))
  shown <- apply(x$table, 2, format, digits = 5)
  shown[is.na(x$table)] <- ""
  shown[rownames(shown) %in% names(x$fixed), "Std. Error"] <- "fixed"
  print(noquote(shown), right = TRUE)
  cat(sprintf("\nn = %d   log-likelihood = %.8g   AIC = %.8g\n", x$n, x$loglik, x$aic))
  if (!isTRUE(x$converged)) {
    cat(stable_not_converged_line(x$iterations), "\n", sep = "")
  } else if (x$method != "mcculloch") {
    cat(sprintf("converged in %d %s\n", x$iterations,
                if (x$method == "mle") "Newton iterations" else "regression rounds"))
  }
  if (x$method == "mle") {
    cat("Standard errors from the observed information; none for a parameter at a bound",
        "or where the information is not positive definite.\n")
  }
  invisible(x)
}

stable_fixed_line <- function(fixed) {
  paste0("Fixed (not estimated): ", paste(names(fixed), "=", format(fixed, digits = 6), collapse = ", "))
}

stable_not_converged_line <- function(iterations) {
  sprintf("NOT CONVERGED after %d iterations: the estimates are where the fit stopped.", iterations)
}
