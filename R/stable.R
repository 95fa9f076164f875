#' Alpha-stable distributions
#'
#' Density, distribution function, quantile function and random generation
#' for the alpha-stable laws \eqn{S(\alpha, \beta, \gamma, \delta)}, on all
#' CPU cores or on a GPU (`"auto"` picks the GPU from 10,000 points on;
#' BENCHMARKS.md has the figures). Argument names and parameterizations follow the stabledist
#' package, so code written for it runs unchanged; unlike stabledist, every
#' parameter is vectorised and recycled as in [stats::dnorm()].
#'
#' @details
#' `pm = 0` is Nolan's S0 parameterization, continuous in all four
#' parameters: its characteristic function is
#' \eqn{\exp(-\gamma^\alpha |t|^\alpha [1 + i\beta \tan(\pi\alpha/2)
#' \mathrm{sign}(t) ((\gamma |t|)^{1-\alpha} - 1)] + i\delta t)} for
#' \eqn{\alpha \ne 1}. `pm = 1` is the S1 parameterization (Samorodnitsky
#' and Taqqu), whose location jumps at \eqn{\alpha = 1} for
#' \eqn{\beta \ne 0}. At \eqn{\alpha = 2} the law is Gaussian with variance
#' \eqn{2\gamma^2}; at \eqn{\alpha = 1, \beta = 0} it is Cauchy.
#'
#' `pm = 2` is Nolan's S2 parameterization, as stabledist defines it: the S0
#' law with scale \eqn{\gamma_0 = \alpha^{-1/\alpha}\gamma} and location
#' \eqn{\delta_0 = \delta - \gamma_0 m(\alpha, \beta)}, where
#' \eqn{m(\alpha, \beta)} is the mode of the standard S0 law
#' ([stable_mode()]), so that \eqn{\delta} is the mode. At \eqn{\alpha = 2}
#' it is Gaussian with variance \eqn{\gamma^2}. Each call finds the mode of
#' each distinct \eqn{(\alpha, |\beta|)} in it, to about \eqn{10^{-14}}
#' (about 100 density evaluations, 2 ms on one core, for
#' \eqn{\alpha \ge 1/2}; more for smaller \eqn{\alpha}; [stable_mode()] has
#' the details); for \eqn{\alpha < 1/2} the law is evaluated from its S1
#' location, where its narrow peak is placed to full precision. The S2
#' density and tail probabilities matched 30-digit references to
#' \eqn{10^{-14}} relative at 21 points. stabledist finds the mode with
#' [optimize()] to a tolerance of \eqn{1.2 \times 10^{-4}}, so its S2 values
#' differ from these by up to \eqn{1.8 \times 10^{-3}} relative (at its own mode,
#' the two agree as closely as their S0 laws). Below \eqn{\alpha = 0.0075},
#' \eqn{\alpha^{-1/\alpha}} exceeds the doubles and S2 gives `NaN` with a
#' warning.
#'
#' Densities and probabilities come from Nolan's integral representation,
#' taken over the level \eqn{s = \log h} of the integrand rather than over
#' the angle: in that variable the integrand is a fixed Gumbel-shaped weight
#' times a smooth function, its peak is located exactly, and the integrals
#' for the lower tail, the upper tail and the density are each sums of
#' positive terms (the upper tail is never computed as \eqn{1 - F}). The
#' angle is carried as its distances from both ends of its interval, so a
#' peak within \eqn{10^{-300}} of an end is resolved. Near \eqn{\alpha = 1}
#' the usual formula loses a factor \eqn{1/|1 - \alpha|} of accuracy; there
#' the integrand is either rewritten as a sum of terms that are each
#' \eqn{O(1 - \alpha)} or integrated with the angle solved at each node, so
#' no \eqn{\alpha} is moved to 1 and no \eqn{x} is moved to the mode
#' \eqn{\zeta}. Far tails use the power series in \eqn{x^{-\alpha}}; at
#' \eqn{\alpha = 1} with \eqn{\beta \ne 0}, where the integrand's terms grow
#' like \eqn{|x|}, they are integrated with the angle solved at each node,
#' and beyond \eqn{|x| = 10^{18}} they are the power law
#' \eqn{(1 \pm \beta) / (\pi |x|)}, exact to rounding there. The
#' quadrature is a trapezoid rule after a change of variables centred on the
#' integrand's peak that suits its Gumbel shape (linear where the integrand
#' falls double-exponentially, exponential where it falls only
#' exponentially), halving its step until the integrals settle. The tail
#' probabilities' integrals are taken by parts, so that their integrands
#' have the density's shape and share its nodes. Where the angle is solved
#' at each node the same rule runs over the level of the integrand; where
#' either does not settle, adaptive Gauss-Kronrod quadrature takes over.
#' Against 30-digit reference values the relative error of
#' densities, lower and upper tail probabilities is below \eqn{10^{-12}}
#' (BENCHMARKS.md has the figures per region).
#'
#' Light tails of the totally skewed laws: for \eqn{|\beta| = 1},
#' \eqn{\alpha \ne 1}, on the side of \eqn{\zeta} where the density falls
#' faster than exponentially, the integrand's \eqn{h} is bounded below by
#' \eqn{h_0 > 0}, and the density and the probability of that side are
#' \eqn{e^{-h_0}} times integrals, \eqn{h_0} up to 700 where the density is a
#' normal number. An absolute error \eqn{e} in \eqn{\log h_0} or in the
#' integrand's exponent is a relative error \eqn{h_0 e} in the result, so
#' \eqn{\log h_0} is computed in double-double arithmetic from the exact
#' inputs (for `pm = 1` from the S1 argument, the exact distance from
#' \eqn{\zeta}), and near the end where \eqn{h = h_0} the exponent is taken
#' as \eqn{\log(h / h_0)}, by a series in the angle whose terms are all
#' positive. Against 40-digit references (mpmath) at 120 points for `pm = 0`
#' (densities from \eqn{10^{-30}} to \eqn{10^{-300}}) and 50 for `pm = 1`
#' (from \eqn{10^{-1}} to \eqn{10^{-300}}), \eqn{0.8 \le \alpha \le 1.95}
#' with a fifth of the points within 0.03 of 1, the worst relative errors
#' (CPU) of the density and of the probability of that side are:
#'
#' | region | `pm = 0` density | `pm = 0` probability | `pm = 1` density | `pm = 1` probability |
#' |---|---|---|---|---|
#' | \eqn{\alpha} 0.8 to 0.97 | 6.3e-14 | 6.2e-14 | 2.2e-14 | 2.9e-14 |
#' | \eqn{\alpha} 0.97 to 1 | 5.5e-14 | 1.1e-13 | 9.1e-14 | 6.8e-14 |
#' | \eqn{\alpha} 1 to 1.03 | 9.1e-14 | 8.9e-14 | 7.2e-14 | 5.6e-14 |
#' | \eqn{\alpha} 1.03 to 1.5 | 1.1e-13 | 8.4e-14 | 7.1e-14 | 9.0e-14 |
#' | \eqn{\alpha} 1.5 to 1.95 | 7.6e-14 | 8.6e-14 | 1.1e-13 | 8.1e-14 |
#' | density above 1e-30 | | | 5.1e-15 | 2.0e-15 |
#' | density 1e-30 to 1e-100 | 3.8e-14 | 2.4e-14 | 2.7e-14 | 1.8e-14 |
#' | density 1e-100 to 1e-200 | 6.7e-14 | 4.6e-14 | 7.2e-14 | 5.4e-14 |
#' | density 1e-200 to 1e-300 | 1.1e-13 | 1.1e-13 | 1.1e-13 | 9.0e-14 |
#'
#' The log density is within \eqn{3 \times 10^{-16}} relative there. Below
#' \eqn{\alpha = 0.8} (spot checks at 0.3, 0.5 and 0.65) the errors are of
#' the same size except next to \eqn{\zeta} at small \eqn{\alpha} for
#' `pm = 0`, where \eqn{x_1 = x + \beta \tan(\pi\alpha/2)} itself
#' cancels: \eqn{2.5 \times 10^{-9}} at \eqn{\alpha = 0.3} and density
#' \eqn{10^{-282}} (\eqn{x} within \eqn{5 \times 10^{-8}} of \eqn{\zeta}), where
#' `pm = 1` keeps full accuracy.
#'
#' Small \eqn{\alpha}: as \eqn{\alpha \to 0}, \eqn{|X - \zeta|^{-\alpha}}
#' tends to a standard exponential variable, with
#' \eqn{P(X > \zeta) \to (1 + \beta) / 2} (Cressie 1975), so the
#' quantiles spread over every scale and beyond the range of doubles (the
#' upper quartile at \eqn{\alpha = 10^{-3}} is infinite in double precision).
#' Below \eqn{\alpha = 10^{-3}} the integrals are taken without the
#' integration by parts, whose integrands would spread over every scale too;
#' below \eqn{\alpha = 10^{-200}} the values are those of the limit law, to
#' which the law is equal to rounding there. Against 40-digit references from
#' \eqn{\alpha = 5 \times 10^{-3}} down to \eqn{10^{-300}}, with \eqn{x}
#' within \eqn{10^{-300}} of \eqn{\zeta} and out to \eqn{\pm 10^{300}},
#' probabilities are within \eqn{10^{-14}} and densities within
#' \eqn{10^{-13}}. Quantiles there (and for `pm = 1` wherever the S0 search
#' lands within \eqn{|\beta \tan(\pi\alpha/2)| / 1000} of \eqn{\zeta})
#' are searched as the distance from \eqn{\zeta}, so that an S1 quantile
#' such as `qstable(0.3, 0.01, 0.3, pm = 1)`, \eqn{-6.8 \times 10^{-30}},
#' keeps its relative precision.
#'
#' `qstable()` solves \eqn{\log P(X \le x) = \log p} (or the upper tail) by
#' Newton's method on the log-odds of the smaller tail, safeguarded by a
#' bracket, with Halley's step near the root where the slope of the density
#' comes with it; its early steps evaluate the law roughly, the last to full
#' accuracy, to full double precision; `log.p` and `lower.tail` are exact
#' (a quantile for \eqn{p = 10^{-300}} in either tail is no harder than one
#' for \eqn{p = 0.3}).
#'
#' `rstable()` uses the Chambers-Mallows-Stuck construction in a form that
#' is continuous and well conditioned through \eqn{\alpha = 1} (stabledist's
#' generator is not, for \eqn{\beta \ne 0}). Its uniform and exponential
#' variates come from a counter-based generator keyed by R's random number
#' generator, so `set.seed()` makes draws reproducible; the CPU and the GPU
#' draw the same variates for the same seed. That generator, not the one
#' chosen by [RNGkind()], makes the variates: one generator that every CPU
#' thread and every GPU thread can run gives the same draws on either
#' device. R's stream only seeds it (two uniforms per call), so `RNGkind()`
#' changes the draws that a seed gives but not how they are made.
#'
#' Loading gpustats after stabledist masks stabledist's `dstable()`,
#' `pstable()`, `qstable()` and `rstable()` (R says so when it attaches
#' the package, as for any mask; gpustats itself prints nothing). Their
#' arguments are a superset of stabledist's, in the same order, so its calls
#' run unchanged (its tuning arguments are accepted and not used); use
#' `stabledist::dstable()` to reach the original.
#'
#' @param x,q Vector of quantiles.
#' @param p Vector of probabilities.
#' @param n Number of observations (if `length(n) > 1`, the length is taken).
#' @param alpha Index of stability, in \eqn{(0, 2]}.
#' @param beta Skewness, in \eqn{[-1, 1]}.
#' @param gamma Scale, positive.
#' @param delta Location.
#' @param pm Parameterization: 0 (S0, default), 1 (S1) or 2 (S2).
#' @param log,log.p If `TRUE`, densities and probabilities are given as logs.
#' @param lower.tail If `TRUE`, probabilities are \eqn{P(X \le x)},
#'   otherwise \eqn{P(X > x)}.
#' @param tol,zeta.tol,subdivisions,silent,maxiter,trace,integ.tol The
#'   tuning arguments of stabledist's integration and root finding, in
#'   stabledist's positions, accepted so that its calls run unchanged, and
#'   not used: gpustats always works to full double precision (see Details).
#' @param device `"auto"`, `"cpu"` or `"gpu"`; see [gpustats-package].
#' @return `dstable()` gives the density, `pstable()` the distribution
#'   function, `qstable()` the quantile function and `rstable()` random
#'   deviates. The length of the result is that of the longest argument (`n`
#'   for `rstable()`), with its attributes; invalid parameters give `NaN`
#'   with a warning.
#' @seealso `stabledist::dstable()`
#' @examples
#' dstable(c(-1, 0, 1), alpha = 1.5, beta = 0.5)
#' pstable(50, alpha = 1.2, beta = 0, lower.tail = FALSE)  # upper tail, directly
#' qstable(1e-10, alpha = 0.8, beta = 1)
#' set.seed(1)
#' x <- rstable(5, alpha = 1.7, beta = -0.3, gamma = 2, delta = 1)
#' # every parameter is vectorised
#' dstable(0, alpha = c(0.5, 1, 1.5, 2), beta = 0)
#' # small alpha: P(X <= 1) tends to (1 - beta) / 2 + (1 + beta) / (2 e)
#' pstable(1, alpha = c(1e-3, 1e-12, 1e-300), beta = 0.3)
#' qstable(0.3, alpha = 0.01, beta = 0.3, pm = 1)  # just left of zeta = 0
#' # S2: the mode is at delta
#' dstable(3 + c(-0.1, 0, 0.1), alpha = 0.8, beta = 0.9, delta = 3, pm = 2)
#' @name stable
NULL

# The flags of the core for pm = 0 and 1; pm = 2 is evaluated in S0 or S1
# (see stable_map), so it sets no flag here.
stable_flags <- function(pm, log = FALSE, upper = FALSE, call) {
  if (!is.numeric(pm) || length(pm) != 1L || !pm %in% c(0, 1, 2)) {
    abort_arg("{.arg pm} must be 0 (S0), 1 (S1) or 2 (S2), not {.obj_type_friendly {pm}}{if (is.numeric(pm) && length(pm) == 1L) paste0(' (', pm, ')') else ''}.", call)
  }
  sum(gs_code("stable_flag", c("log", "upper", "s1"))[c(log, upper, pm == 1)])
}

# The tail flags of pstable and qstable.
stable_tail_flags <- function(pm, lower.tail, log.p, call) {
  check_flag(lower.tail, "lower.tail", call)
  check_flag(log.p, "log.p", call)
  stable_flags(pm, log.p, !lower.tail, call)
}

# args: named inputs (the first argument and the four parameters; only the
# parameters for rstable, whose output length is n).
stable_map <- function(op, args, flags, device, call, n = NULL, each = rep(1, length(args)), pm = 0) {
  force(flags) # checks pm
  for (a in names(args)) check_numeric_arg(args[[a]], a, call)
  if (pm != 2) return(gs_map(op, unname(args), device, call, flags = flags, n = n, kind = "stable", each = each))
  s0 <- stable_s2_frame(args$alpha, args$beta, args$gamma, args$delta)
  args$gamma <- s0$gamma
  args$delta <- s0$delta
  stable_map_frames(op, args, flags, s0$s1, device, call, n)
}

# S2 (Nolan's, as stabledist defines it) as S0 or S1 parameters:
# gamma0 = alpha^(-1 / alpha) gamma2 and delta0 = delta2 - gamma0 m0, m0 the
# mode of the standard S0 law, so that the mode is at delta2; for
# alpha < 1/2 the S1 location delta2 - gamma0 m1 instead, m1 the S1 mode,
# where s1 is TRUE (see ?stable_mode: near zeta an S0 coordinate would lose
# the digits that place the law's narrow peak). gamma keeps its attributes,
# and delta those of delta where their lengths are unchanged, so that the
# result takes the attributes it would in S0. Invalid parameters are left
# as they are, for the core to turn into NaN with a warning.
stable_s2_frame <- function(alpha, beta, gamma, delta) {
  lg <- max(length(alpha), length(gamma))
  ld <- max(length(alpha), length(beta), length(gamma), length(delta))
  if (min(length(alpha), length(beta), length(gamma), length(delta)) == 0L) {
    return(list(gamma = gamma, delta = delta, s1 = FALSE))
  }
  a <- rep_len(as.double(alpha), ld)
  b <- rep_len(as.double(beta), ld)
  g <- rep_len(as.double(gamma), ld)
  d <- rep_len(as.double(delta), ld)
  ok <- stable_params_ok(a, b, g, d)
  g0 <- g
  # from logs: alpha^(-1 / alpha) alone overflows below alpha = 0.0075
  g0[ok] <- exp(log(g[ok]) - log(a[ok]) / a[ok])
  ok <- ok & is.finite(g0) & g0 > 0
  std <- stable_mode_standard(a[ok], b[ok])
  d[ok] <- d[ok] - g0[ok] * std$mode
  s1 <- logical(ld)
  s1[ok] <- std$s1
  g0 <- g0[seq_len(lg)]
  if (lg == length(gamma)) attributes(g0) <- attributes(gamma)
  if (ld == length(delta)) attributes(d) <- attributes(delta)
  list(gamma = g0, delta = d, s1 = s1)
}

# gs_map with the s1 flag where s1 is TRUE (s1 recycled as the parameters
# are): one call per frame present. Where both are, the inputs are recycled
# to the output's length and split, and the result takes the attributes and
# the single warning that one call would give.
stable_map_frames <- function(op, args, flags, s1, device, call, n = NULL) {
  flag_s1 <- gs_code("stable_flag", "s1")
  if (all(s1) || !any(s1)) {
    return(gs_map(op, unname(args), device, call, flags = flags + if (isTRUE(s1[1])) flag_s1 else 0L,
                  n = n, kind = "stable"))
  }
  lens <- lengths(args)
  len <- if (is.null(n)) max(lens) else n
  if (is.null(n)) gs_map_check_lengths(len, lens, sys.call(-1L))
  full <- lapply(args, function(v) rep_len(as.double(v), len))
  s1 <- rep_len(s1, len)
  out <- numeric(len)
  nan <- FALSE
  for (frame in c(FALSE, TRUE)) {
    i <- which(s1 == frame)
    out[i] <- withCallingHandlers(
      gs_map(op, lapply(full, `[`, i), device, call, flags = flags + frame * flag_s1,
             n = if (is.null(n)) NULL else length(i), kind = "stable"),
      warning = function(w) {
        if (conditionMessage(w) %in% c("NaNs produced", "NAs produced")) {
          nan <<- TRUE
          invokeRestart("muffleWarning")
        }
      })
  }
  if (nan) warning(warningCondition(if (is.null(n)) "NaNs produced" else "NAs produced", call = sys.call(-1L)))
  if (is.null(n)) out <- gs_map_attributes(out, args, lens)
  out
}

#' @rdname stable
#' @export
dstable <- function(x, alpha, beta, gamma = 1, delta = 0, pm = 0, log = FALSE,
                    tol = 64 * .Machine$double.eps, zeta.tol = NULL, subdivisions = 1000,
                    device = getOption("gpustats.device", "auto")) {
  call <- environment()
  check_flag(log, "log", call)
  stable_map("stable_d", list(x = x, alpha = alpha, beta = beta, gamma = gamma, delta = delta),
             stable_flags(pm, log, FALSE, call), device, call, pm = pm)
}

#' @rdname stable
#' @export
pstable <- function(q, alpha, beta, gamma = 1, delta = 0, pm = 0, lower.tail = TRUE,
                    log.p = FALSE, silent = FALSE, tol = 64 * .Machine$double.eps,
                    subdivisions = 1000, device = getOption("gpustats.device", "auto")) {
  call <- environment()
  stable_map("stable_p", list(q = q, alpha = alpha, beta = beta, gamma = gamma, delta = delta),
             stable_tail_flags(pm, lower.tail, log.p, call), device, call, pm = pm)
}

#' @rdname stable
#' @export
qstable <- function(p, alpha, beta, gamma = 1, delta = 0, pm = 0, lower.tail = TRUE,
                    log.p = FALSE, tol = .Machine$double.eps^0.25, maxiter = 1000, trace = 0,
                    integ.tol = 1e-7, subdivisions = 200,
                    device = getOption("gpustats.device", "auto")) {
  call <- environment()
  stable_map("stable_q", list(p = p, alpha = alpha, beta = beta, gamma = gamma, delta = delta),
             stable_tail_flags(pm, lower.tail, log.p, call), device, call, pm = pm)
}

#' @rdname stable
#' @export
rstable <- function(n, alpha, beta, gamma = 1, delta = 0, pm = 0,
                    device = getOption("gpustats.device", "auto")) {
  call <- environment()
  if (length(n) > 1L) n <- length(n)
  if (!is.numeric(n) || length(n) != 1L || is.na(n) || n < 0 || n != floor(n) || is.infinite(n)) {
    abort_arg("{.arg n} must be a non-negative whole number, not {.obj_type_friendly {n}}.", call)
  }
  # R's longest vector (rnorm() refuses more with "invalid arguments")
  if (n > 2^52) {
    abort_arg("{.arg n} must be at most 2^52, the length of R's longest vector, not {n}.", call)
  }
  params <- list(alpha = alpha, beta = beta, gamma = gamma, delta = delta)
  if (n > 0 && any(lengths(params) == 0L)) {
    abort_arg("{.arg alpha}, {.arg beta}, {.arg gamma} and {.arg delta} must not be empty.", call)
  }
  flags <- stable_flags(pm, FALSE, FALSE, call)
  if (n == 0) return(numeric(0))
  # a classed error, not R's "cannot allocate vector", where the draws
  # cannot fit in the memory available now
  check_host_memory(8 * n, sprintf("The %.0f draws", n), call)
  stable_map("stable_r", params, flags, device, call, n = n, pm = pm)
}
