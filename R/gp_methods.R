#' Methods for Matérn Gaussian-process fits
#'
#' @param object,x A `gp_fit` from [gp_fit()].
#' @param ... Unused.
#' @name gp_fit-methods
NULL

#' @rdname gp_fit-methods
#' @export
print.gp_fit <- function(x, ...) {
  cat("Mat\u00e9rn Gaussian process fitted by maximum likelihood\n")
  cat(sprintf("n = %d, log-likelihood = %.6g, %s, %.3g s\n", x$n, x$loglik, x$method, x$seconds))
  print(x$coefficients, digits = 6)
  if (!fit_converged(x)) cat(sprintf("The likelihood search did not converge (%s).\n", x$message))
  invisible(x)
}

# Whether the search converged (fits made before this was recorded: from
# the optimizer's code).
fit_converged <- function(x) x$converged %||% (x$convergence == 0L)

#' @rdname gp_fit-methods
#' @export
coef.gp_fit <- function(object, ...) object$coefficients

#' @rdname gp_fit-methods
#' @export
vcov.gp_fit <- function(object, ...) object$vcov

#' @rdname gp_fit-methods
#' @export
nobs.gp_fit <- function(object, ...) object$n

#' @rdname gp_fit-methods
#' @export
logLik.gp_fit <- function(object, ...) {
  structure(object$loglik, df = length(object$estimated), nobs = object$n, class = "logLik")
}

#' @rdname gp_fit-methods
#' @export
summary.gp_fit <- function(object, ...) {
  est <- object$coefficients
  se <- rep(NA_real_, length(est))
  names(se) <- names(est)
  se[object$estimated] <- sqrt(pmax(diag(object$vcov), 0))
  table <- cbind(Estimate = est, `Std. Error` = se)
  status <- ifelse(names(est) %in% object$estimated, "estimated", "fixed")
  structure(list(table = table, status = status, loglik = object$loglik, aic = stats::AIC(object),
                 n = object$n, iterations = object$iterations, evaluations = object$evaluations,
                 convergence = object$convergence, converged = fit_converged(object), message = object$message,
                 seconds = object$seconds,
                 device = object$device, call = object$call),
            class = "summary.gp_fit")
}

#' @rdname gp_fit-methods
#' @export
print.summary.gp_fit <- function(x, ...) {
  cat("Mat\u00e9rn Gaussian process fitted by maximum likelihood\n\nCall:\n")
  print(x$call)
  cat("\n")
  tab <- as.data.frame(x$table)
  tab$` ` <- ifelse(x$status == "fixed", "(fixed)", "")
  print(tab, digits = 5)
  cat(sprintf("\nn = %d   log-likelihood = %.8g   AIC = %.8g\n", x$n, x$loglik, x$aic))
  cat(sprintf("%d iterations, %d likelihood evaluations, %.3g s on the %s (%s)\n", x$iterations, x$evaluations,
              x$seconds, toupper(x$device), x$message))
  if (!x$converged) cat("The likelihood search did not converge: the estimates are where it stopped.\n")
  cat("Standard errors from the observed information.\n")
  invisible(x)
}

#' Kriging predictions from a Matérn Gaussian-process fit
#'
#' Simple kriging (the process has mean zero) at new locations: the
#' conditional mean \eqn{c^\top \Sigma^{-1} y} of the process given the
#' data, and on request its standard error
#' \eqn{\sqrt{\sigma^2 - c^\top \Sigma^{-1} c}}, with \eqn{c} the covariances
#' between the new and the observed locations (no nugget: the prediction is
#' of the process, not of a new noisy observation). The covariance is
#' factored in the precision of the fit.
#'
#' @param object A `gp_fit`.
#' @param newlocs Locations to predict at, with the columns of the fitted
#'   locations.
#' @param se.fit If `TRUE`, also return the prediction standard errors.
#' @param device `"auto"`, `"cpu"` or `"gpu"`.
#' @param ... Unused.
#' @return A vector of predictions, or with `se.fit = TRUE` a list with
#'   components `fit` and `se.fit`.
#' @export
predict.gp_fit <- function(object, newlocs, se.fit = FALSE, device = getOption("gpustats.device", "auto"), ...) {
  call <- environment()
  newlocs <- as_locations(newlocs, "newlocs", object$distance, call)
  if (ncol(newlocs) != ncol(object$locs)) {
    abort_arg("{.arg newlocs} has {ncol(newlocs)} column{?s}; the fit used {ncol(object$locs)}.", call)
  }
  check_flag(se.fit, "se.fit", call)
  if (nrow(newlocs) == 0L) return(if (se.fit) list(fit = numeric(0), se.fit = numeric(0)) else numeric(0))
  p <- object$coefficients
  gp <- gp_open(object$locs, object$distance, device, call, object$accuracy %||% 0)
  on.exit(gp_close(gp))
  gp_factor(gp, p, object$locs, call)
  w <- gp_apply(gp, "solve", object$y, call)
  m <- nrow(newlocs)
  fit <- numeric(m)
  se <- if (se.fit) numeric(m) else NULL
  dev <- if (gp$device >= 0) "gpu" else "cpu"
  # cross-covariances in blocks of rows, about 256 MB each
  block <- max(1L, floor(32e6 / object$n))
  for (start in seq(1L, m, by = block)) {
    rows <- start:min(m, start + block - 1L)
    C <- matern_cov(newlocs[rows, , drop = FALSE], object$locs, sigma2 = p[["sigma2"]], range = p[["range"]],
                    smoothness = p[["smoothness"]], distance = object$distance, device = dev)
    fit[rows] <- drop(C %*% w)
    if (se.fit) {
      V <- gp_apply(gp, "forward", t(C), call)
      se[rows] <- sqrt(pmax(p[["sigma2"]] - colSums(V^2), 0))
    }
  }
  if (se.fit) list(fit = fit, se.fit = se) else fit
}

#' @rdname gp_fit-methods
#' @param nsim Number of draws.
#' @param seed As in [stats::simulate()]: `NULL`, or an integer for
#'   `set.seed()`.
#' @return `simulate()`: a data frame with one column per draw from the
#'   fitted process at the fitted locations.
#' @export
simulate.gp_fit <- function(object, nsim = 1, seed = NULL, ...) {
  if (!is.null(seed)) set.seed(seed)
  p <- object$coefficients
  draws <- gp_simulate(object$locs, sigma2 = p[["sigma2"]], range = p[["range"]], smoothness = p[["smoothness"]],
                       nugget = p[["nugget"]], nsim = nsim, distance = object$distance,
                       precision = object$precision, accuracy = object$accuracy %||% 1e-8,
                       device = object$device)
  draws <- as.data.frame(matrix(draws, nrow = object$n))
  names(draws) <- paste0("sim_", seq_len(nsim))
  draws
}
