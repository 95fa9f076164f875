#' Mode of an alpha-stable law
#'
#' The mode of \eqn{S(\alpha, \beta, \gamma, \delta)} in any of the three
#' parameterizations of [dstable()]: in S2 it is \eqn{\delta} itself.
#'
#' @details
#' The mode \eqn{m} of the standard law is found with [dstable()]'s own
#' log density, once per distinct pair \eqn{(\alpha, |\beta|)} (the mode of
#' \eqn{-\beta} is \eqn{-m}; at \eqn{\beta = 0} or \eqn{\alpha = 2} it is
#' 0). A search over grids of 33 points, each spanning the two cells around
#' the best point of the one before, closes in on the peak (stable laws are
#' unimodal); then a Chebyshev series of degree 20, fitted by least squares
#' to the log density at 41 points around the peak, gives the mode as the
#' root of its derivative. A search over density values alone (golden
#' section, or [optimize()] as stabledist's `stableMode()` uses with
#' tolerance \eqn{1.2 \times 10^{-4}}) cannot place a maximum closer than
#' about the square root of the density's rounding error, \eqn{10^{-8}};
#' the series takes its derivative from points a fraction of the peak's
#' width apart, where the density changes by far more than its error.
#' Against 40-digit modes at 24 pairs (\eqn{\alpha} from 0.3 to 1.95,
#' \eqn{\beta} = 0.01, 0.4, 1) the error (relative, or absolute below 1) is
#' \eqn{4.8 \times 10^{-15}} in the median and at most
#' \eqn{3.2 \times 10^{-14}}, but for \eqn{3.6 \times 10^{-13}} at
#' \eqn{\alpha = 0.7}, \eqn{\beta = 0.01}: there the mode is 0.011 from
#' \eqn{\zeta = -\beta \tan(\pi\alpha/2)}, where the density of
#' \eqn{\alpha < 1} is not analytic, and the fit keeps within a quarter of
#' that distance.
#'
#' For \eqn{\alpha < 1/2} the mode is found, and [dstable()] with
#' `pm = 2` evaluates the law, in the S1 frame, from the S1 location: as
#' \eqn{\alpha} falls, the mode of a law with \eqn{\beta \ne 0} closes in
#' on the S0 point \eqn{\zeta = -\beta \tan(\pi\alpha/2)}, the S1 origin
#' (the S1 mode is 0.017 at \eqn{\alpha = 0.3}, \eqn{\beta = 1};
#' \eqn{6.6 \times 10^{-11}} at \eqn{\alpha = 0.1}, \eqn{\beta = 1};
#' \eqn{2.2 \times 10^{-12}} at \eqn{\alpha = 0.1}, \eqn{\beta = 0.5}),
#' which an S0 coordinate near \eqn{\zeta} (-0.16 at \eqn{\alpha = 0.1})
#' gives to about 7 digits only. For \eqn{\alpha} below about 0.0075 the
#' peak is beyond the doubles: the mode is then `NaN`, with a warning of
#' class `gpustats_warning_mode`.
#'
#' @inheritParams stable
#' @param pm Parameterization: 0 (S0, default), 1 (S1) or 2 (S2).
#' @return The mode, of the length of the longest argument, with its
#'   attributes; invalid parameters give `NaN` with a warning.
#' @seealso [dstable()]; `stabledist::stableMode()`, the mode of the
#'   standard S0 law to about \eqn{10^{-4}}.
#' @examples
#' stable_mode(1.5, 0.5)                    # standard S0 law
#' stable_mode(1.5, 0.5, gamma = 2, delta = 1, pm = 1)
#' stable_mode(c(0.7, 1, 1.3), 1, delta = 3, pm = 2)  # S2: delta
#' # the density is highest there
#' m <- stable_mode(0.8, -0.6)
#' dstable(m + c(-1e-3, 0, 1e-3), 0.8, -0.6) - dstable(m, 0.8, -0.6)
#' @export
stable_mode <- function(alpha, beta, gamma = 1, delta = 0, pm = 0) {
  call <- environment()
  stable_flags(pm, call = call)
  args <- list(alpha = alpha, beta = beta, gamma = gamma, delta = delta)
  for (a in names(args)) check_numeric_arg(args[[a]], a, call)
  lens <- lengths(args)
  n <- if (any(lens == 0L)) 0L else max(lens)
  gs_map_check_lengths(n, lens, sys.call())
  v <- lapply(args, function(a) rep_len(as.double(a), n))
  # NA or NaN where an input is, NaN with a warning where a parameter is invalid
  out <- v$alpha + v$beta + v$gamma + v$delta
  ok <- stable_params_ok(v$alpha, v$beta, v$gamma, v$delta)
  invalid <- !ok & !is.na(out)
  out[invalid] <- NaN
  if (any(invalid)) warning(warningCondition("NaNs produced", call = sys.call()))
  a <- v$alpha[ok]
  b <- v$beta[ok]
  g <- v$gamma[ok]
  d <- v$delta[ok]
  out[ok] <- if (pm == 2) d else {
    std <- stable_mode_standard(a, b)
    m0 <- ifelse(std$s1, std$mode - b * tan(pi * a / 2), std$mode)
    if (pm == 0) d + g * m0
    else ifelse(std$s1, d + g * std$mode, d + g * (m0 + b * stable_skew_s1(a, g)))
  }
  gs_map_attributes(out, args, lens)
}

# The parameters the core accepts (stable_params_ok in stable_dist.h); NA
# where any is NA.
stable_params_ok <- function(alpha, beta, gamma, delta) {
  ok <- alpha > 0 & alpha <= 2 & beta >= -1 & beta <= 1 & gamma > 0 & is.finite(gamma) & is.finite(delta)
  !is.na(ok) & ok
}

# The S1 location minus the S0 one, over gamma: beta tan(pi alpha / 2), or
# beta (2 / pi) log(gamma) at alpha = 1.
stable_skew_s1 <- function(alpha, gamma) {
  ifelse(alpha == 1, 2 / pi * log(gamma), tan(pi * alpha / 2))
}

# The frame in which the mode of a law is found and S2 is evaluated: S1 for
# alpha < 1/2 (see ?stable_mode), S0 elsewhere (S1 coordinates grow like
# 1 / |1 - alpha| near alpha = 1).
stable_mode_s1_frame <- function(alpha) alpha < 0.5

# The mode of the standard law for valid (alpha, beta), in its frame:
# list(mode, s1), s1 TRUE where the mode is the S1 one. Each distinct
# (alpha, |beta|) is searched once, on the CPU whatever the device of the
# caller: a few hundred densities per pair, and the same mode (so the same S2
# frame) on every device, where the GPU's last-digit differences would move
# it by about 1e-15.
stable_mode_standard <- function(alpha, beta) {
  s1 <- stable_mode_s1_frame(alpha)
  mode <- numeric(length(alpha))
  search <- beta != 0 & alpha != 2
  if (any(search)) {
    a <- alpha[search]
    b <- abs(beta[search])
    o <- order(a, b)
    first <- c(TRUE, diff(a[o]) != 0 | diff(b[o]) != 0)
    group <- integer(length(a))
    group[o] <- cumsum(first)
    m <- stable_mode_search(a[o][first], b[o][first])
    mode[search] <- sign(beta[search]) * m[group]
  }
  list(mode = mode, s1 = s1)
}

# The standard mode for 0 < alpha < 2, 0 < beta <= 1, in the frame of
# stable_mode_s1_frame: a bracket from stable_mode_bracket, then the root of
# the derivative of a Chebyshev series fitted to the log density around it.
stable_mode_search <- function(alpha, beta) {
  s1 <- stable_mode_s1_frame(alpha)
  br <- stable_mode_bracket(alpha, beta, s1)
  found <- !is.nan(br$centre)
  mode <- br$centre
  if (any(found)) {
    mode[found] <- stable_mode_chebyshev(alpha[found], beta[found], s1[found], br$centre[found],
                                         br$radius[found])
  }
  if (!all(found)) {
    cli::cli_warn(c("The mode of the stable law with alpha = {signif(alpha[!found], 3)} cannot be located in double precision; its values are NaN.",
                    i = "Its density near the mode exceeds the doubles: use {.code pm = 0} or {.code pm = 1}."),
                  class = c("gpustats_warning_mode", "gpustats_warning"), call = NULL)
  }
  mode
}

# The log density of the standard law at x (a matrix, a row per pair), in
# the frame of each pair.
stable_mode_logpdf <- function(x, alpha, beta, s1) {
  k <- ncol(x)
  args <- list(x = as.vector(t(x)), alpha = rep(alpha, each = k), beta = rep(beta, each = k),
               gamma = 1, delta = 0)
  lf <- stable_map_frames("stable_d", args, stable_flags(0, log = TRUE), rep(s1, each = k),
                          "cpu", environment())
  matrix(lf, nrow(x), k, byrow = TRUE)
}

# Grids of 33 points over a bracket of each mode, each over the two cells
# around the best point of the one before (a unimodal function has its
# maximum there), until the bracket is within a fiftieth of the window of
# the Chebyshev fit. For beta > 0 the S0 mode is in (-1, 0), and for
# alpha < 1 in (zeta, 0), so the S1 mode in (0, beta tan(pi alpha / 2)).
stable_mode_bracket <- function(alpha, beta, s1) {
  lo <- ifelse(s1, 0, -1)
  hi <- ifelse(s1, beta * tan(pi * alpha / 2), 0)
  edge <- ifelse(s1, 0, ifelse(alpha < 1, -beta * tan(pi * alpha / 2), -Inf))
  centre <- (lo + hi) / 2
  radius <- rep(Inf, length(alpha))
  active <- rep(TRUE, length(alpha))
  steps <- 0:32 / 32
  # each round narrows by 16; 270 rounds span the doubles
  for (round in 1:270) {
    i <- which(active)
    if (!length(i)) break
    x <- lo[i] + outer(hi[i] - lo[i], steps)
    lf <- stable_mode_logpdf(x, alpha[i], beta[i], s1[i])
    best <- max.col(lf, ties.method = "first")
    width <- hi[i] - lo[i]
    centre[i] <- x[cbind(seq_along(i), best)]
    lo[i] <- x[cbind(seq_along(i), pmax(best - 1L, 1L))]
    hi[i] <- x[cbind(seq_along(i), pmin(best + 1L, 33L))]
    peak <- lf[cbind(seq_along(i), best)]
    radius[i] <- stable_mode_radius(peak, centre[i] - edge[i])
    # a peak the doubles cannot resolve (its density beyond them, or the
    # bracket down to adjacent doubles): no mode
    lost <- !is.finite(peak) | !(hi[i] - lo[i] < width)
    centre[i[lost]] <- NaN
    active[i] <- !lost & hi[i] - lo[i] > radius[i] / 50
  }
  centre[active] <- NaN
  list(centre = centre, radius = radius)
}

# The half-width of the window of the fit: a tenth of the peak's width, the
# reciprocal of its height, and at most a quarter of the distance to zeta (where the
# log density of alpha < 1, beta = 1 ends like -c (x - zeta)^(-alpha / (1 -
# alpha)), which no polynomial follows).
stable_mode_radius <- function(log_peak, to_edge) {
  pmin(0.1 * exp(-log_peak), 0.25 * to_edge)
}

# The root of the derivative of the Chebyshev series of degree 20 fitted by
# least squares to the log density at 41 Chebyshev points of
# [centre - radius, centre + radius], by Newton's method from the centre.
stable_mode_chebyshev <- function(alpha, beta, s1, centre, radius) {
  nodes <- cos(pi * (0:40) / 40)
  basis <- cos(outer(acos(nodes), 0:20))
  lf <- stable_mode_logpdf(centre + outer(radius, nodes), alpha, beta, s1)
  coef <- qr.coef(qr(basis), t(lf))
  t <- numeric(length(alpha))
  for (iter in 1:6) {
    d <- stable_chebyshev_derivatives(coef, t)
    t <- t - d$first / d$second
  }
  # the bracket holds the mode within a fiftieth of the window: a root
  # elsewhere would be a failed fit, which the bracket's centre replaces
  ifelse(is.finite(t) & abs(t) < 0.1, centre + radius * t, centre)
}

# The first two derivatives at t (one per column of coef) of the Chebyshev
# series with coefficients coef (degree 0 first), by the recurrences of
# T_k, T_k' and T_k''.
stable_chebyshev_derivatives <- function(coef, t) {
  t0 <- 1; t1 <- t
  d0 <- 0; d1 <- 1
  s0 <- 0; s1 <- 0
  first <- coef[2, ]
  second <- 0 * t
  for (k in 2:(nrow(coef) - 1L)) {
    t2 <- 2 * t * t1 - t0
    d2 <- 2 * t1 + 2 * t * d1 - d0
    s2 <- 4 * d1 + 2 * t * s1 - s0
    first <- first + coef[k + 1L, ] * d2
    second <- second + coef[k + 1L, ] * s2
    t0 <- t1; t1 <- t2
    d0 <- d1; d1 <- d2
    s0 <- s1; s1 <- s2
  }
  list(first = first, second = second)
}
