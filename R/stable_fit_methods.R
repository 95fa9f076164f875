#' Methods for alpha-stable fits
#'
#' @param object,x A `stable_fit` from [stable_fit()].
#' @param ... Unused.
#' @name stable_fit-methods
NULL

stable_method_label <- c(mle = "maximum likelihood", mcculloch = "McCulloch's quantile method",
                         koutrouvelis = "Koutrouvelis' regression method")

#' @rdname stable_fit-methods
#' @export
print.stable_fit <- function(x, ...) {
  cat(sprintf("Alpha-stable law (S%d) fitted by %s\n", x$pm, stable_method_label[[x$method]]))
  cat(sprintf("n = %d, log-likelihood = %.8g\n", x$n, x$loglik))
  print(x$coefficients, digits = 6)
  if (length(x$boundary)) {
    cat("On the boundary (no standard error): ", paste(x$boundary, collapse = ", "), "\n", sep = "")
  }
  if (!isTRUE(x$converged)) cat(stable_not_converged_line(x$iterations), "\n", sep = "")
  invisible(x)
}

#' @rdname stable_fit-methods
#' @export
coef.stable_fit <- function(object, ...) object$coefficients

#' @rdname stable_fit-methods
#' @export
vcov.stable_fit <- function(object, ...) object$vcov

#' @rdname stable_fit-methods
#' @export
nobs.stable_fit <- function(object, ...) object$n

#' @rdname stable_fit-methods
#' @export
logLik.stable_fit <- function(object, ...) {
  structure(object$loglik, df = 4L, nobs = object$n, class = "logLik")
}

#' @rdname stable_fit-methods
#' @export
summary.stable_fit <- function(object, ...) {
  est <- object$coefficients
  se <- if (is.null(object$vcov)) rep(NA_real_, 4) else stable_se(object$vcov)
  table <- cbind(Estimate = est, `Std. Error` = se)
  structure(list(table = table, method = object$method, pm = object$pm, loglik = object$loglik,
                 aic = stats::AIC(object), n = object$n, iterations = object$iterations,
                 converged = object$converged),
            class = "summary.stable_fit")
}

#' @rdname stable_fit-methods
#' @export
print.summary.stable_fit <- function(x, ...) {
  cat(sprintf("Alpha-stable law (S%d) fitted by %s\n\n", x$pm, stable_method_label[[x$method]]))
  print(x$table, digits = 5, na.print = "")
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

stable_not_converged_line <- function(iterations) {
  sprintf("NOT CONVERGED after %d iterations: the estimates are where the fit stopped.", iterations)
}
