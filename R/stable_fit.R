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
#' four parameters jointly (or in the free ones, see `fixed`), over \eqn{\alpha \in [0.1, 2]},
#' \eqn{\beta \in [-1, 1]}, \eqn{\gamma > 0}. It starts from McCulloch's
#' estimates (where their \eqn{\alpha} is above 1.9, from the best of it
#' and a few values closer to 2, as the log-likelihood falls like
#' \eqn{\log(2 - \alpha)} towards 2) and takes Newton steps with the
#' gradient and Hessian from finite differences of the log-likelihood
#' (one-sided at a bound; each step a fiftieth of the parameter's
#' conditional standard error), taken at the full step, with a backtracking
#' line search where that step does not increase the log-likelihood enough;
#' a step moves alpha by at most 0.2, beta by 0.4, gamma and delta by one
#' gamma. Below \eqn{\alpha = 0.5} the steps are taken in the S1 location
#' \eqn{\delta - \beta\gamma\tan(\pi\alpha/2)} in place of
#' \eqn{\delta}: there the law has a steep side at that location, and the
#' points next to it make the log-likelihood in S0 a narrow curved ridge
#' that Newton steps cannot follow. A parameter at a bound where the
#' gradient points outwards is held there. The fit has converged where the
#' predicted gain of the next step is below 1e-9, or after a step whose
#' predicted gain was below 1e-6 and at most the square of the one before
#' (where Newton's quadratic convergence leaves a gain of order 1e-12): that
#' last step's point needs its log-likelihood alone, not the derivatives.
#' All samples are fitted in lockstep, so each step evaluates the densities
#' of every sample in one call (on the GPU with `device = "gpu"`). Standard errors come from the observed
#' information, the inverse of minus the Hessian at the estimate (after a
#' last step as above, at the point before it, within 1e-3 standard errors). An
#' estimate on the boundary of the parameter space (\eqn{\beta = \pm 1},
#' or \eqn{\alpha = 2}, where \eqn{\beta} no longer changes the law) is a
#' valid maximum, but the information describes the interior parameters
#' only: such a parameter has no standard error (`NA`), the others' are
#' conditional on it, it is listed in the component `boundary` and by
#' `print()`, and one message (class `gpustats_message_boundary`) names the
#' fits concerned.
#'
#' `fixed` holds some parameters at given values (`"mle"` only), as in a
#' symmetric fit (`fixed = list(beta = 0)`) or one of known location
#' (`fixed = list(delta = 0)`): the likelihood is maximized over the free
#' parameters, and the observed information, `vcov()` and the standard
#' errors are those of the free parameters (`coef()` gives all four, the
#' fixed ones at their values; `logLik()` counts the free ones). The values
#' are read in the parameterization `pm`. The fit is made in S0, so a fixed
#' value must have one S0 value whatever the free parameters: with
#' `pm = 1` or `2` a fixed `delta` needs `beta` fixed at 0 (where the three
#' locations coincide), and with `pm = 2` a fixed `gamma` needs `alpha`
#' fixed.
#'
#' The sample is standardized before it is fitted: it is shifted by its
#' median and divided by a power of two near its interquartile range, and
#' the estimates, their covariance and the log-likelihood are transformed
#' back. The estimates therefore scale with the data (to rounding) from the
#' smallest to the largest doubles, and a power-of-two factor changes
#' nothing but the scale.
#'
#' The standard errors are those of the observed information and hold only
#' approximately. In a simulation of 200 samples of n = 1,000 per law (S0,
#' beta = 0, gamma = 1, delta = 0), nominal 95 % intervals (estimate +- 1.96
#' standard errors) covered alpha in 95.0 % of the samples at alpha = 1
#' (190 of 200; the mean standard error 0.0348, the estimates' standard
#' deviation 0.0349) and in 92.0 % at alpha = 1.9 (184 of 200; 0.0350 and
#' 0.0343): next to alpha = 2 the estimate's distribution is skewed and its
#' intervals cover less than their nominal level.
#'
#' A fit that did not converge (the iteration limit was reached, or no step
#' along the Newton direction increased the log-likelihood while the
#' predicted gain was still above 1e-5) keeps the point where it stopped,
#' reports `converged = FALSE`, and [stable_fit()] warns with class
#' `gpustats_warning_not_converged`. Where minus the Hessian at the estimate
#' is not positive definite, the standard errors are `NA` and the warning has
#' class `gpustats_warning_information`.
#'
#' @param x A numeric vector or univariate time series (one sample), or a
#'   list of numeric vectors (a data frame), a matrix or a multivariate time
#'   series with one sample per column (each is fitted separately). Values
#'   must be finite; a sample needs at least 10 values, 5 of them distinct,
#'   and a nonzero interquartile range. For `"mle"`, it needs at least 11
#'   values (with fewer, the likelihood grows without bound as
#'   \eqn{\gamma \to 0} with \eqn{\delta} at any one value and
#'   \eqn{\alpha = 0.1}, as a tie does below), and no value may be repeated
#'   in more than 1/11 of the sample: a stable law is continuous, and with
#'   that many ties the likelihood grows without bound as \eqn{\gamma \to 0}
#'   (a tied value of k copies contributes \eqn{-k \log\gamma}, the others
#'   \eqn{(n - k) \alpha \log\gamma} with \eqn{\alpha \ge 0.1}).
#' @param method `"mle"` (default), `"mcculloch"` or `"koutrouvelis"`.
#' @param pm Parameterization of the estimates: 0 (S0, default), 1 (S1) or
#'   2 (S2); see [dstable()]. The fit itself is made in S0; its estimates,
#'   their covariance (by the delta method) and standard errors are then
#'   given in the parameterization asked for.
#' @param device `"auto"`, `"cpu"` or `"gpu"`, for the densities of
#'   `"mle"`; see [gpustats-package].
#' @param control A list: `iter.max` (default 100), the most Newton steps
#'   (`"mle"`) or regression rounds (`"koutrouvelis"`); `progress` (default
#'   `TRUE`), a progress bar while several samples are fitted (shown after a
#'   couple of seconds).
#' @param fixed A named list (or named numeric vector) of parameters held
#'   at given values, such as `list(beta = 0)`: one to three of `alpha`
#'   (in \eqn{[0.1, 2]}), `beta` (in \eqn{[-1, 1]}), `gamma` (positive) and
#'   `delta`, in the parameterization `pm`; for `"mle"` only. In a batched
#'   fit they apply to every sample.
#' @return For one sample, an object of class `stable_fit` with `coef()`,
#'   `vcov()`, `logLik()`, `nobs()`, `print()`, `summary()` and
#'   [plot()][plot.stable_fit] methods; its
#'   components are `coefficients` (all four), `vcov` (of the free
#'   parameters; `NULL` unless `"mle"`), `fixed` (the fixed values, a named
#'   vector, empty when none), `loglik`, `n`, `method`, `pm`, `iterations`,
#'   `converged`, `boundary` (the parameters estimated on a bound, `"mle"`)
#'   and `data` (the sample). For
#'   several samples, a data frame (class `stable_fit_table`) with one row
#'   per sample: the estimates, their standard errors (`"mle"`; `NA` for a
#'   fixed parameter), the log-likelihood, the number of iterations and
#'   whether the fit converged; `plot(fits, sample = )` draws the
#'   diagnostics of one of them.
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
#' plot(fit)
#' # a symmetric law of known location: alpha and gamma estimated
#' stable_fit(x, fixed = list(beta = 0, delta = 1))
#' # many samples in one call: a data frame of estimates
#' xs <- matrix(rstable(200 * 5, alpha = 1.2, beta = 0), ncol = 5)
#' stable_fit(xs, method = "koutrouvelis")
#' @export
stable_fit <- function(x, method = c("mle", "mcculloch", "koutrouvelis"), pm = 0,
                       device = getOption("gpustats.device", "auto"), control = list(),
                       fixed = NULL) {
  call <- environment()
  method <- match_choice(method, c("mle", "mcculloch", "koutrouvelis"), "method", call)
  check_device(device, call)
  stable_flags(pm, call = call)
  ctrl <- stable_fit_control(control, call)
  fixed <- stable_fit_fixed(fixed, method, pm, call)
  x <- stable_fit_plain(x)
  samples <- stable_fit_samples(x, method, call)
  std <- lapply(samples, stable_standardize)
  z <- lapply(std, `[[`, "z")
  progress <- stable_fit_progress(length(z), ctrl, call)
  fits <- switch(method,
    mcculloch = lapply(z, stable_mcculloch),
    koutrouvelis = lapply(seq_along(z), function(i) {
      fit <- stable_koutrouvelis(z[[i]], ctrl$iter.max)
      progress(i)
      fit
    }),
    mle = stable_mle(z, stable_fixed_standardized(fixed, pm, std), device, call, ctrl$iter.max,
                     progress)
  )
  fits <- lapply(seq_along(fits), function(i) {
    f <- fits[[i]]
    if (is.null(f$loglik)) f$loglik <- stable_loglik_one(z[[i]], f$coefficients)
    f <- stable_unstandardize(f, std[[i]])
    stable_fit_object(f, samples[[i]], method, pm, fixed)
  })
  stable_fit_warn(fits, names(samples), call)
  if (!is.list(x) && !is.matrix(x)) return(fits[[1]])
  stable_fit_table(fits, names(samples))
}

stable_loglik_one <- function(x, cf) {
  sum(dstable(x, cf[["alpha"]], cf[["beta"]], cf[["gamma"]], cf[["delta"]], log = TRUE,
              device = "cpu"))
}

# The control list with its defaults; an unknown name or a bad value is an
# error, so that a typo or an NA never silently fits with the defaults.
stable_fit_control <- function(control, call) {
  defaults <- list(iter.max = 100L, progress = TRUE)
  if (!is.list(control) || length(control) && is.null(names(control)) || any(!nzchar(names(control)))) {
    abort_arg("{.arg control} must be a named list, not {.obj_type_friendly {control}}.", call)
  }
  unknown <- setdiff(names(control), names(defaults))
  if (length(unknown)) {
    abort_arg(c("{.arg control} has unknown entr{?y/ies} {.val {unknown}}.",
                i = "Known entries: {.val {names(defaults)}}."), call)
  }
  ctrl <- utils::modifyList(defaults, control)
  it <- ctrl$iter.max
  if (!is.numeric(it) || length(it) != 1L || !is.finite(it) || it < 1 || it != round(it)) {
    abort_arg("{.code control$iter.max} must be a whole number of at least 1, not {.obj_type_friendly {it}}{if (is.numeric(it) && length(it) == 1L) paste0(' (', it, ')') else ''}.", call)
  }
  ctrl$iter.max <- as.integer(min(it, .Machine$integer.max))
  check_flag(ctrl$progress, "control$progress", call)
  ctrl
}

# The fixed parameters, checked, as a named vector in the order alpha, beta,
# gamma, delta (empty when none), in the parameterization pm as given.
# Only the maximum-likelihood fit holds parameters fixed: McCulloch's and
# Koutrouvelis' estimators determine the parameters jointly. The fit is made
# in S0, so a fixed value must have one S0 value whatever the free
# parameters: the S1 and S2 locations are the S0 location shifted by an
# amount that depends on alpha, beta and gamma (zero at beta = 0), the S2
# scale is alpha^(1 / alpha) times the S0 scale.
stable_fit_fixed <- function(fixed, method, pm, call) {
  nm <- names(stable_lower)
  if (is.null(fixed)) fixed <- list()
  if (!is.list(fixed) && !is.numeric(fixed) || is.object(fixed) ||
      length(fixed) && (is.null(names(fixed)) || any(!nzchar(names(fixed))))) {
    abort_arg("{.arg fixed} must be a named list such as {.code list(beta = 0)}, not {.obj_type_friendly {fixed}}.", call)
  }
  unknown <- setdiff(names(fixed), nm)
  if (length(unknown)) {
    abort_arg(c("{.arg fixed} names unknown parameter{?s} {.val {unknown}}.",
                i = "The parameters are {.field {nm}}."), call)
  }
  twice <- unique(names(fixed)[duplicated(names(fixed))])
  if (length(twice)) abort_arg("{.arg fixed} names {.field {twice}} more than once.", call)
  for (p in names(fixed)) {
    v <- fixed[[p]]
    if (!is.numeric(v) || length(v) != 1L || !is.finite(v)) {
      abort_arg("{.code fixed${p}} must be a single finite number, not {.obj_type_friendly {v}}{if (is.numeric(v) && length(v) == 1L) paste0(' (', v, ')') else ''}.", call)
    }
  }
  values <- vapply(intersect(nm, names(fixed)), function(p) as.double(fixed[[p]]), 0)
  outside <- values < stable_lower[names(values)] | values > stable_upper[names(values)] |
    names(values) == "gamma" & values <= 0
  if (any(outside)) {
    p <- names(values)[outside][1]
    abort_arg(c("{.code fixed${p}} is {values[[p]]}, outside the parameter space.",
                i = "alpha must be in [0.1, 2], beta in [-1, 1], gamma positive."), call)
  }
  if (length(values) == 4L) {
    abort_arg(c("{.arg fixed} fixes all four parameters: nothing is left to estimate.",
                i = "The log-likelihood of a given law is {.code sum(dstable(x, alpha, beta, gamma, delta, log = TRUE))}."), call)
  }
  if (length(values) && method != "mle") {
    abort_arg(c("Fixed parameters need {.code method = \"mle\"}; {.val {method}} estimates the four parameters jointly.",
                i = "Drop {.arg fixed}, or fit by maximum likelihood."), call)
  }
  if (pm != 0 && "delta" %in% names(values) && !identical(unname(values["beta"]), 0)) {
    abort_arg(c("With {.code pm = {pm}}, fixing {.field delta} needs {.field beta} fixed at 0.",
                i = "The S{pm} location is the S0 location, in which the fit is made, shifted by an amount that depends on alpha, beta and gamma (zero at beta = 0). Fix delta with {.code pm = 0}, or beta at 0 too."), call)
  }
  if (pm == 2 && "gamma" %in% names(values) && !"alpha" %in% names(values)) {
    abort_arg(c("With {.code pm = 2}, fixing {.field gamma} needs {.field alpha} fixed too.",
                i = "The S2 scale is alpha^(1/alpha) times the S0 scale, in which the fit is made. Fix gamma with {.code pm = 0} or {.code pm = 1}, or alpha too."), call)
  }
  values
}

# The fixed values in S0, on the scale of each standardized sample: an
# m x 4 matrix, NA where a parameter is free. Under the rules of
# stable_fit_fixed() only an S2 scale has another S0 value.
stable_fixed_standardized <- function(fixed, pm, std) {
  s0 <- stats::setNames(rep(NA_real_, 4), names(stable_lower))
  s0[names(fixed)] <- fixed
  if (pm == 2) s0[["gamma"]] <- exp(log(s0[["gamma"]]) - log(s0[["alpha"]]) / s0[["alpha"]])
  t(vapply(std, function(s) {
    c(s0[1:2], gamma = s0[["gamma"]] / s$scale, delta = s0[["delta"]] / s$scale - s$center / s$scale)
  }, s0))
}

# The samples as a list of finite double vectors that a stable law can be
# fitted to: the checks say what is wrong with the data rather than letting
# an estimator fail inside (a zero interquartile range divides by zero) or
# chase an unbounded likelihood.
stable_fit_samples <- function(x, method, call) {
  samples <- if (is.matrix(x)) {
    stats::setNames(lapply(seq_len(ncol(x)), function(j) x[, j]), colnames(x))
  } else if (is.list(x)) {
    x
  } else {
    list(x)
  }
  if (length(samples) == 0L) abort_arg("{.arg x} holds no sample", call)
  for (k in seq_along(samples)) stable_check_sample(samples[[k]], k, length(samples), method, call)
  lapply(samples, as.double)
}

# A time series as its values: a univariate one a numeric vector, a
# multivariate one a matrix with a sample per column.
stable_fit_plain <- function(x) {
  if (!stats::is.ts(x)) return(x)
  attr(x, "tsp") <- NULL
  class(x) <- NULL
  x
}

stable_check_sample <- function(s, k, m, method, call) {
  which <- if (m > 1L) paste0("sample ", k, " of {.arg x}") else "{.arg x}"
  if (!is.numeric(s) || is.object(s)) {
    abort_arg(paste(which, "must be numeric, not {.obj_type_friendly {s}}."), call)
  }
  if (!all(is.finite(s))) {
    abort_arg(paste(which, "must be finite: remove NA, NaN and Inf first."), call)
  }
  if (length(s) < 10L) {
    abort_arg(paste(which, "has {length(s)} value{?s}; a fit needs at least 10."), call)
  }
  # One value of a sample of n contributes -log(gamma) to the log-likelihood
  # as gamma -> 0 with delta at it, the other n - 1 at least
  # (n - 1) alpha log(gamma), alpha >= 0.1: unbounded for n <= 10.
  if (method == "mle" && length(s) < 11L) {
    abort_arg(c(paste(which, "has {length(s)} values; a maximum-likelihood fit needs at least 11."),
                i = "With 10 values or fewer the stable likelihood is unbounded (gamma -> 0 at any one value, alpha -> 0.1): use {.code method = \"mcculloch\"} or {.code \"koutrouvelis\"}."), call)
  }
  if (length(unique(s)) < 5L) {
    abort_arg(paste(which, "has fewer than 5 distinct values; a stable law is continuous."), call)
  }
  q <- stats::quantile(s, c(0.25, 0.75), type = 5, names = FALSE)
  if (q[1] == q[2]) {
    abort_arg(c(paste(which, "has a zero interquartile range: more than half of it is one value ({q[1]})."),
                i = "A stable law is continuous; its scale cannot be estimated from such data."), call)
  }
  if (method == "mle") {
    counts <- tabulate(match(s, unique(s)))
    top <- which.max(counts)
    if (counts[top] * 11 > length(s)) {
      value <- unique(s)[top]
      abort_arg(c(paste(which, "repeats {value} {counts[top]} times in {length(s)} values."),
                  i = "With more than 1/11 of a sample tied, the stable likelihood is unbounded: use {.code method = \"mcculloch\"} or {.code \"koutrouvelis\"}."), call)
    }
  }
}

# The sample shifted by its median and divided by a power of two near its
# interquartile range (the division is then exact), so that the estimators
# see data of unit scale whatever the scale of x. The spread is formed from
# halves where the difference would overflow.
stable_standardize <- function(x) {
  q <- stats::quantile(x, c(0.25, 0.5, 0.75), type = 5, names = FALSE)
  spread <- q[3] - q[1]
  log2_spread <- if (is.finite(spread)) log2(spread) else 1 + log2(q[3] / 2 - q[1] / 2)
  scale <- 2^min(round(log2_spread), 1023)
  list(z = x / scale - q[2] / scale, center = q[2], scale = scale)
}

# Estimates of the standardized sample back on the scale of the data: in S0
# a location-scale change maps (gamma, delta) to (s gamma, s delta + c)
# exactly, the log-likelihood loses n log s, and the covariance follows.
stable_unstandardize <- function(f, std) {
  s <- std$scale
  cf <- f$coefficients
  cf[["gamma"]] <- cf[["gamma"]] * s
  cf[["delta"]] <- cf[["delta"]] * s + std$center
  f$coefficients <- cf
  if (!is.null(f$vcov)) {
    j <- c(alpha = 1, beta = 1, gamma = s, delta = s)[rownames(f$vcov)]
    f$vcov <- f$vcov * outer(j, j)
  }
  f$loglik <- f$loglik - length(std$z) * log(s)
  f
}

# A progress bar over the samples of a batched fit (none for one sample, or
# when control$progress is FALSE): a function of the number fitted so far.
stable_fit_progress <- function(m, ctrl, call) {
  if (m < 2L || !ctrl$progress) return(function(done) invisible())
  id <- cli::cli_progress_bar("stable_fit", total = m, current = FALSE, .envir = call)
  function(done) cli::cli_progress_update(set = done, id = id, .envir = call)
}

# One classed warning for the fits that did not converge and one for those
# whose information matrix was not positive definite, naming the samples.
stable_fit_warn <- function(fits, nm, call) {
  label <- function(bad) {
    if (length(fits) == 1L) return("The fit")
    ids <- if (is.null(nm)) as.character(bad) else nm[bad]
    paste0("The fit of sample", if (length(bad) > 1L) "s" else "", " ",
           paste(utils::head(ids, 10L), collapse = ", "), if (length(bad) > 10L) ", ..." else "")
  }
  bad <- which(!vapply(fits, function(f) isTRUE(f$converged), FALSE))
  if (length(bad)) {
    what <- label(bad)
    cli::cli_warn(c("{what} did not converge; the estimates are where the optimizer stopped.",
                    i = "See {.code $iterations}, and {.arg control} for {.code iter.max}."),
                  class = c("gpustats_warning_not_converged", "gpustats_warning"), call = call)
  }
  bad <- which(vapply(fits, function(f) isFALSE(f$information_ok), FALSE))
  if (length(bad)) {
    what <- label(bad)
    cli::cli_warn("{what} has an observed information that is not positive definite; its standard errors are NA.",
                  class = c("gpustats_warning_information", "gpustats_warning"), call = call)
  }
  stable_fit_inform_boundary(fits, label)
}

# One message, not a warning, for the fits with an estimate on the boundary
# of the parameter space (beta = -1 or 1, alpha = 2): a maximum there is a
# valid estimate, but the observed information describes only the interior
# parameters, so that parameter (and beta where alpha is 2) has no standard
# error and the others' are conditional on it.
stable_fit_inform_boundary <- function(fits, label) {
  at <- lapply(fits, function(f) f$boundary)
  hit <- which(lengths(at) > 0L)
  if (!length(hit)) return(invisible())
  what <- label(hit)
  params <- unique(unlist(at[hit]))
  cli::cli_inform(c("{what} ha{?s/ve} {?an estimate/estimates} on the boundary of the parameter space ({.field {params}}).",
                    i = "Such a parameter has no standard error (NA); those of the others are conditional on it."),
                  class = c("gpustats_message_boundary", "gpustats_message"))
}

# The fit of the sample data in the parameterization pm. vcov is over the
# free parameters; the fixed ones keep the values given, which their
# conversion to S0 and back would reproduce only to rounding. The sample is
# kept for plot().
stable_fit_object <- function(f, data, method, pm, fixed) {
  cf <- f$coefficients
  vc <- f$vcov
  if (!is.null(vc) && pm == 1) vc <- stable_vcov_s1(cf, vc)
  if (pm == 1) cf[["delta"]] <- stable_delta_s1(cf[["alpha"]], cf[["beta"]], cf[["gamma"]], cf[["delta"]])
  if (!is.null(vc) && pm == 2) vc <- stable_vcov_s2(cf, vc)
  if (pm == 2) cf <- stable_coef_s2(cf)
  cf[names(fixed)] <- fixed
  structure(list(coefficients = cf, vcov = vc, fixed = fixed, loglik = f$loglik, n = length(data),
                 data = data, method = method, pm = pm, iterations = f$iterations %||% 0L,
                 converged = f$converged %||% TRUE, information_ok = f$information_ok,
                 boundary = f$boundary),
            class = "stable_fit")
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# S1 location from S0: delta1 = delta0 - beta gamma tan(pi alpha / 2)
# (alpha != 1), delta0 - beta (2 / pi) gamma log(gamma) (alpha = 1).
stable_delta_s1 <- function(alpha, beta, gamma, delta0) delta0 - beta * gamma * stable_skew_s1(alpha, gamma)

# The covariance of the S1 estimates from that of the S0 ones (delta method),
# with the derivatives of stable_delta_s1 in closed form so that they hold at
# any scale of gamma. At alpha = 1 the S1 location jumps (tan(pi alpha / 2)
# has a pole), so its derivative in alpha, and the variance of delta, are NA
# (unless alpha is fixed). vc is over the free parameters.
stable_vcov_s1 <- function(cf, vc) {
  a <- cf[["alpha"]]
  b <- cf[["beta"]]
  g <- cf[["gamma"]]
  jac <- diag(4)
  jac[4, 1:3] <- if (a == 1) {
    c(NA, -2 / pi * g * log(g), -b * 2 / pi * (log(g) + 1))
  } else {
    c(-b * g * pi / 2 / cos(pi * a / 2)^2, -g * tan(pi * a / 2), -b * tan(pi * a / 2))
  }
  stable_vcov_transform(jac, vc)
}

# J vc J' for the Jacobian jac (4 x 4, in alpha, beta, gamma, delta) of a
# change of parameterization and the covariance vc of the free parameters.
# A parameter fixed in one parameterization is fixed in the other (see
# stable_fit_fixed()), so only the free rows and columns of J count: a
# fixed parameter contributes no variance, even where its column of J is NA.
stable_vcov_transform <- function(jac, vc) {
  free <- match(rownames(vc), names(stable_lower))
  j <- jac[free, free, drop = FALSE]
  out <- j %*% vc %*% t(j)
  dimnames(out) <- dimnames(vc)
  out
}

# S2 estimates from S0 ones: gamma2 = alpha^(1 / alpha) gamma0 and
# delta2 = delta0 + gamma0 m0(alpha, beta), the mode.
stable_coef_s2 <- function(cf) {
  a <- cf[["alpha"]]
  cf[["delta"]] <- stable_mode(a, cf[["beta"]], cf[["gamma"]], cf[["delta"]])
  cf[["gamma"]] <- exp(log(cf[["gamma"]]) + log(a) / a)
  cf
}

# The covariance of the S2 estimates from that of the S0 ones (delta
# method): d gamma2 / d alpha = gamma2 (1 - log alpha) / alpha^2, and the
# derivatives of the mode m0 in alpha and beta by central differences
# (one-sided at a bound of the range), whose error, about 1e-14 / 1e-4 from
# the mode's and 1e-8 from the step, is far below that of the estimates.
# vc is over the free parameters.
stable_vcov_s2 <- function(cf, vc) {
  a <- cf[["alpha"]]
  b <- cf[["beta"]]
  g <- cf[["gamma"]]
  h <- 1e-4
  da <- c(max(a - h, h), min(a + h, 2))
  db <- c(max(b - h, -1), min(b + h, 1))
  m <- stable_mode(c(da, a, a), c(b, b, db))
  jac <- diag(4)
  jac[3, c(1, 3)] <- c(g * a^(1 / a) * (1 - log(a)) / a^2, a^(1 / a))
  jac[4, 1:3] <- c(g * diff(m[1:2]) / diff(da), g * diff(m[3:4]) / diff(db), stable_mode(a, b))
  stable_vcov_transform(jac, vc)
}

stable_fit_table <- function(fits, nm) {
  cf <- do.call(rbind, lapply(fits, function(f) f$coefficients))
  out <- data.frame(cf, check.names = FALSE)
  if (!is.null(fits[[1]]$vcov)) {
    se <- do.call(rbind, lapply(fits, stable_fit_se))
    colnames(se) <- paste0("se_", colnames(cf))
    out <- cbind(out, se)
  }
  out$loglik <- vapply(fits, function(f) f$loglik, 0)
  out$n <- vapply(fits, function(f) f$n, 0L)
  out$iterations <- vapply(fits, function(f) as.integer(f$iterations), 0L)
  out$converged <- vapply(fits, function(f) isTRUE(f$converged), FALSE)
  rownames(out) <- nm
  # the fits themselves, by row name, for plot() of one sample
  structure(out, fits = stats::setNames(fits, rownames(out)), class = c("stable_fit_table", "data.frame"))
}

# The standard errors of the four parameters of a fit: NA for a fixed one,
# and for all where the method gives no covariance.
stable_fit_se <- function(f) {
  se <- stats::setNames(rep(NA_real_, 4), names(stable_lower))
  if (!is.null(f$vcov)) se[rownames(f$vcov)] <- stable_se(f$vcov)
  se
}

# Standard errors from a covariance matrix: NA where a variance is missing or
# not positive, never the square root of a clamped negative number.
stable_se <- function(vc) {
  v <- diag(vc)
  ifelse(!is.na(v) & v > 0, sqrt(pmax(v, 0)), NA_real_)
}
