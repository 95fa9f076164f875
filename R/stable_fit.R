#' Fit alpha-stable laws
#'
#' Estimates \eqn{(\alpha, \beta, \gamma, \delta)} of an alpha-stable law
#' from a sample, or from many samples at once.
#'
#' @details
#' `"mcculloch"` is McCulloch's (1986) quantile estimator. It matches the
#' sample's 5, 25, 50, 75 and 95 percent quantiles (type 5, as McCulloch)
#' through the indices
#' \eqn{\nu_\alpha = (x_{.95} - x_{.05}) / (x_{.75} - x_{.25})} and
#' \eqn{\nu_\beta = (x_{.95} + x_{.05} - 2 x_{.5}) / (x_{.95} - x_{.05})}.
#' Its tables are not McCulloch's printed ones: they are computed by
#' [qstable()] on a grid of \eqn{\alpha} in \eqn{[0.5, 2]} (step 0.05) and
#' \eqn{\beta} in \eqn{[0, 1]} (step 0.1) the first time they are needed,
#' and interpolated linearly. \eqn{\alpha} is confined to \eqn{[0.5, 2]}.
#'
#' `"koutrouvelis"` is Koutrouvelis' (1980) regression on the empirical
#' characteristic function, in the form of Kogon and Williams (1998): the
#' sample is standardized by the current estimates, \eqn{\alpha} and
#' \eqn{\gamma} come from regressing \eqn{\log(-\log|\hat\phi(t)|^2)} on
#' \eqn{\log t}, \eqn{\beta} and \eqn{\delta} from regressing
#' \eqn{\arg\hat\phi(t)} on the S0 characteristic exponent, at
#' \eqn{t = 0.1, 0.2, \ldots, 1}; this repeats until the estimates settle.
#' It starts from McCulloch's estimates.
#'
#' `"mle"` maximizes the log-likelihood, computed with [dstable()], in all
#' four parameters jointly, over \eqn{\alpha \in [0.1, 2]},
#' \eqn{\beta \in [-1, 1]}, \eqn{\gamma > 0}. It starts from McCulloch's
#' estimates (where their \eqn{\alpha} is above 1.9, from the best of it
#' and a few values closer to 2, as the log-likelihood falls like
#' \eqn{\log(2 - \alpha)} towards 2) and takes Newton steps with the
#' gradient and Hessian from finite differences of the log-likelihood
#' (one-sided at a bound), taken at the full step, with a backtracking line
#' search where that step does not increase the log-likelihood enough; a
#' parameter at a bound where the gradient points outwards is held there.
#' All samples are fitted in lockstep, so each step evaluates the densities
#' of every sample in one call (on the GPU with `device = "gpu"`). Standard errors come from the observed
#' information, the inverse of minus the Hessian at the estimate; a
#' parameter held at a bound has none.
#'
#' @param x A numeric vector (one sample), or a list of numeric vectors or a
#'   matrix with one sample per column (each is fitted separately). Values
#'   must be finite.
#' @param method `"mle"` (default), `"mcculloch"` or `"koutrouvelis"`.
#' @param pm Parameterization of the estimates: 0 (S0, default) or 1 (S1);
#'   see [dstable()].
#' @param device `"auto"`, `"cpu"` or `"gpu"`, for the densities of
#'   `"mle"`; see [gpustats-package].
#' @return For one sample, an object of class `stable_fit` with `coef()`,
#'   `vcov()`, `logLik()`, `nobs()`, `print()` and `summary()` methods; its
#'   components are `coefficients`, `vcov` (`NULL` unless `"mle"`),
#'   `loglik`, `n`, `method`, `pm`, `iterations` and `converged`. For
#'   several samples, a data frame with one row per sample: the estimates,
#'   their standard errors (`"mle"`), the log-likelihood, the number of
#'   iterations and whether the fit converged.
#' @references
#' McCulloch, J. H. (1986). Simple consistent estimators of stable
#' distribution parameters. Communications in Statistics - Simulation and
#' Computation 15, 1109-1136.
#'
#' Koutrouvelis, I. A. (1980). Regression-type estimation of the parameters
#' of stable laws. Journal of the American Statistical Association 75,
#' 918-928.
#'
#' Kogon, S. M. and Williams, D. B. (1998). Characteristic function based
#' estimation of stable distribution parameters. In A Practical Guide to
#' Heavy Tails, Birkhäuser, 311-336.
#' @examples
#' set.seed(1)
#' x <- rstable(1000, alpha = 1.5, beta = 0.3, gamma = 2, delta = 1)
#' stable_fit(x, method = "mcculloch")
#' fit <- stable_fit(x)
#' summary(fit)
#' # many samples in one call: a data frame of estimates
#' xs <- matrix(rstable(200 * 5, alpha = 1.2, beta = 0), ncol = 5)
#' stable_fit(xs, method = "koutrouvelis")
#' @export
stable_fit <- function(x, method = c("mle", "mcculloch", "koutrouvelis"), pm = 0,
                       device = getOption("gpustats.device", "auto")) {
  call <- environment()
  method <- match.arg(method)
  stable_flags(pm, call = call)
  samples <- stable_fit_samples(x, call)
  fits <- switch(method,
    mcculloch = lapply(samples, stable_mcculloch),
    koutrouvelis = lapply(samples, stable_koutrouvelis),
    mle = stable_mle(samples, device, call)
  )
  fits <- lapply(seq_along(fits), function(i) {
    f <- fits[[i]]
    if (is.null(f$loglik)) {
      f$loglik <- sum(dstable(samples[[i]], f$coefficients[["alpha"]], f$coefficients[["beta"]],
                              f$coefficients[["gamma"]], f$coefficients[["delta"]], log = TRUE,
                              device = "cpu"))
    }
    stable_fit_object(f, length(samples[[i]]), method, pm)
  })
  if (!is.list(x) && !is.matrix(x)) return(fits[[1]])
  stable_fit_table(fits, names(samples))
}

# The samples as a list of finite double vectors.
stable_fit_samples <- function(x, call) {
  samples <- if (is.matrix(x)) {
    stats::setNames(lapply(seq_len(ncol(x)), function(j) x[, j]), colnames(x))
  } else if (is.list(x)) {
    x
  } else {
    list(x)
  }
  if (length(samples) == 0L) abort_arg("{.arg x} holds no sample", call)
  for (s in samples) {
    if (!is.numeric(s)) abort_arg("every sample in {.arg x} must be numeric", call)
    if (!all(is.finite(s))) {
      abort_arg("{.arg x} must be finite: remove NA, NaN and Inf first", call)
    }
    if (length(s) < 10L) abort_arg("every sample needs at least 10 values", call)
    if (length(unique(s)) < 5L) {
      abort_arg("a sample has fewer than 5 distinct values", call)
    }
  }
  lapply(samples, as.double)
}

stable_fit_object <- function(f, n, method, pm) {
  cf <- f$coefficients
  if (pm == 1) cf[["delta"]] <- stable_delta_s1(cf[["alpha"]], cf[["beta"]], cf[["gamma"]], cf[["delta"]])
  vc <- f$vcov
  if (!is.null(vc) && pm == 1) vc <- stable_vcov_s1(cf, vc)
  structure(list(coefficients = cf, vcov = vc, loglik = f$loglik, n = n, method = method, pm = pm,
                 iterations = f$iterations %||% 0L, converged = f$converged %||% TRUE),
            class = "stable_fit")
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# S1 location from S0: delta1 = delta0 - beta gamma tan(pi alpha / 2)
# (alpha != 1), delta0 - beta (2 / pi) gamma log(gamma) (alpha = 1).
stable_delta_s1 <- function(alpha, beta, gamma, delta0) {
  if (alpha == 1) delta0 - beta * 2 / pi * gamma * log(gamma)
  else delta0 - beta * gamma * tan(pi * alpha / 2)
}

# The covariance of the S1 estimates from that of the S0 ones (delta method).
stable_vcov_s1 <- function(cf, vc) {
  h <- 1e-6
  jac <- diag(4)
  base <- stable_delta_s1(cf[["alpha"]], cf[["beta"]], cf[["gamma"]], cf[["delta"]])
  for (k in 1:3) {
    p <- cf
    p[[k]] <- p[[k]] - h # inwards for alpha = 2, beta = 1
    jac[4, k] <- (base - stable_delta_s1(p[["alpha"]], p[["beta"]], p[["gamma"]], p[["delta"]])) / h
  }
  out <- jac %*% vc %*% t(jac)
  dimnames(out) <- dimnames(vc)
  out
}

stable_fit_table <- function(fits, nm) {
  cf <- do.call(rbind, lapply(fits, function(f) f$coefficients))
  out <- data.frame(cf, check.names = FALSE)
  if (!is.null(fits[[1]]$vcov)) {
    se <- do.call(rbind, lapply(fits, function(f) sqrt(pmax(diag(f$vcov), 0))))
    colnames(se) <- paste0("se_", colnames(cf))
    out <- cbind(out, se)
  }
  out$loglik <- vapply(fits, function(f) f$loglik, 0)
  out$n <- vapply(fits, function(f) f$n, 0L)
  out$iterations <- vapply(fits, function(f) as.integer(f$iterations), 0L)
  out$converged <- vapply(fits, function(f) isTRUE(f$converged), FALSE)
  rownames(out) <- nm
  out
}
