#' Diagnostic plots of an alpha-stable fit
#'
#' The plots by which a fitted stable law is judged against its sample:
#' `1` the density of the fitted law over a histogram of the sample, `2` a
#' Q-Q plot and `3` a P-P plot against the fitted law ([qstable()],
#' [pstable()]), `4` both tails on a log scale.
#'
#' @details
#' The histogram covers the central 90 % of the sample (between its 5 and 95
#' percent quantiles), as the extremes of a heavy-tailed sample would squeeze
#' the rest into a few bins, in at most about 100 bins (Freedman-Diaconis);
#' its heights are per point of the whole sample, so that they estimate the
#' density the curve shows. The tails are those of
#' the points at least half the interquartile range from the median: for
#' the points above it, the empirical probability of a larger value against
#' the distance from the median, for those below, of a smaller one, with
#' the fitted law's on log-log axes (on which a stable law with
#' \eqn{\alpha < 2} has straight tails of slope \eqn{-\alpha}). The
#' empirical probabilities are the plotting positions [ppoints()]; for a
#' sample of more than 2,000 points the Q-Q, P-P and tail plots show 2,000
#' of its order statistics at evenly spaced ranks, the smallest and largest
#' among them.
#'
#' @param x A `stable_fit` from [stable_fit()], or a `stable_fit_table` (the
#'   fits of several samples).
#' @param which The plots, a subset of `1:4` (all by default).
#' @param sample For a `stable_fit_table`: the sample to plot, a row name or
#'   number; needed where the table holds more than one.
#' @param ... Graphical parameters for each plot, other than those the
#'   method sets itself (`xlab`, `ylab`, `xlim`, `ylim`, `pch`, `col`, `cex`,
#'   `main`, `log`).
#' @return `x`, invisibly.
#' @examples
#' set.seed(1)
#' x <- rstable(500, alpha = 1.5, beta = 0.3)
#' fit <- stable_fit(x)
#' plot(fit)
#' plot(fit, which = 4)
#' fits <- stable_fit(matrix(rstable(400, 1.8, 0), ncol = 2), method = "mcculloch")
#' plot(fits, sample = 2, which = 2:3)
#' @export
plot.stable_fit <- function(x, which = 1:4, ...) {
  call <- environment()
  validate_stable_fit(x, "x", call)
  if (!is.numeric(which) || !length(which) || !all(which %in% 1:4) || anyDuplicated(which)) {
    abort_arg("{.arg which} must be some of the plots 1 (density), 2 (Q-Q), 3 (P-P) and 4 (tails), not {.obj_type_friendly {which}}{if (is.numeric(which)) paste0(' (', paste(which, collapse = ', '), ')') else ''}.", call)
  }
  check_dots_unused("plot", c("x", "which"), call, ..., allowed = setdiff(plot_fit_graphical_parameters(), "log"),
                    hint = cli::format_inline("Its arguments are {.arg x}, {.arg which} and graphical parameters, other than those it sets itself ({.arg {c(plot_fit_set_here, 'log')}})."))
  if (length(which) > 1L) {
    old <- graphics::par(mfrow = if (length(which) == 4L) c(2L, 2L) else c(1L, length(which)))
    on.exit(graphics::par(old))
  }
  cf <- x$coefficients
  law <- function(f, q, ...) f(q, cf[["alpha"]], cf[["beta"]], cf[["gamma"]], cf[["delta"]], pm = x$pm, ...)
  data <- sort(x$data)
  n <- length(data)
  # the order statistics the Q-Q, P-P and tail plots show, and their positions
  shown <- unique(round(seq(1, n, length.out = min(n, 2000L))))
  p <- stats::ppoints(n)
  for (panel in which) {
    switch(panel,
      stable_plot_density(data, law, ...),
      {
        graphics::plot(law(qstable, p[shown]), data[shown], xlab = "fitted quantiles",
                       ylab = "sample quantiles", main = "Stable Q-Q", ...)
        graphics::abline(0, 1, lty = 2)
      },
      {
        graphics::plot(law(pstable, data[shown]), p[shown], xlab = "fitted probabilities",
                       ylab = "empirical probabilities", main = "Stable P-P", ...)
        graphics::abline(0, 1, lty = 2)
      },
      stable_plot_tails(data[shown], p[shown], law, ...)
    )
  }
  invisible(x)
}

#' @rdname plot.stable_fit
#' @export
plot.stable_fit_table <- function(x, sample = NULL, which = 1:4, ...) {
  call <- environment()
  validate_stable_fit_table(x, "x", call)
  if (is.null(sample)) {
    if (nrow(x) != 1L) {
      abort_arg(c("{.arg x} holds the fits of {nrow(x)} samples; {.fn plot} draws one.",
                  i = "Choose it with {.arg sample}, a row name or number, as in {.code plot(x, sample = 1)}."), call)
    }
    sample <- 1L
  }
  row <- if (is_string(sample)) {
    match(sample, rownames(x))
  } else if (is_count(sample, 1)) {
    if (sample <= nrow(x)) sample else NA
  } else {
    abort_arg("{.arg sample} must be a row name or number of {.arg x}, not {.obj_type_friendly {sample}}.", call)
  }
  if (is.na(row)) {
    abort_arg("{.arg x} has no sample {.val {sample}}; its rows are {.val {rownames(x)}}.", call)
  }
  name <- rownames(x)[row]
  fit <- attr(x, "fits")[[name]]
  # a table sorted or subset keeps its fits by row name; one whose rows were
  # bound to another's or edited no longer shows the fit it would plot
  if (!inherits(fit, "stable_fit") ||
      !identical(unlist(x[row, names(stable_lower)]), coef(fit))) {
    abort_arg(c("Row {.val {name}} of {.arg x} is not a fit made by {.fn stable_fit}: the table was changed after the fit.",
                i = "Fit that sample alone and plot it: {.code plot(stable_fit(...))}."), call)
  }
  plot(fit, which = which, ...)
  invisible(x)
}

# Histogram of the central 90 % of the sample, its heights per point of the
# whole sample, with the fitted density over it. At alpha = 0.8, beta = 0.9
# (n = 5,000) the Freedman-Diaconis rule gave 661 bins over the central 98 %
# and 81 over the central 90 %; the cap keeps heavier tails readable.
stable_plot_density <- function(data, law, ...) {
  n <- length(data)
  ends <- stats::quantile(data, c(0.05, 0.95), names = FALSE)
  body <- data[data >= ends[1] & data <= ends[2]]
  h <- graphics::hist(body, breaks = min(grDevices::nclass.FD(body), 100L), plot = FALSE)
  h$density <- h$counts / (n * diff(h$breaks))
  grid <- seq(h$breaks[1], h$breaks[length(h$breaks)], length.out = 401L)
  dens <- law(dstable, grid)
  graphics::plot(h, freq = FALSE, ylim = c(0, max(h$density, dens)), xlab = "x (central 90 %)",
                 ylab = "density", main = "Density", ...)
  graphics::lines(grid, dens, lwd = 2)
}

# Both tails on log-log axes, of sorted data with plotting positions p: the
# points at least half the interquartile range from the median (at least one, as the largest and smallest values
# are an interquartile range apart), the probability of a value beyond each
# against its distance from the median, and the fitted law's.
stable_plot_tails <- function(data, p, law, ...) {
  q <- stats::quantile(data, c(0.25, 0.5, 0.75), type = 5, names = FALSE)
  med <- q[2]
  reach <- (q[3] - q[1]) / 2
  up <- data - med >= reach
  down <- med - data >= reach
  dist <- abs(data - med)
  grid <- exp(seq(log(min(dist[up | down])), log(max(dist)), length.out = 200L))
  fitted_up <- law(pstable, med + grid, lower.tail = FALSE)
  fitted_down <- law(pstable, med - grid)
  # a far tail of the fitted law may underflow, which a log axis cannot show
  fitted_up[fitted_up <= 0] <- NA
  fitted_down[fitted_down <= 0] <- NA
  emp_up <- 1 - p[up]
  emp_down <- p[down]
  ylim <- range(emp_up, emp_down, fitted_up, fitted_down, na.rm = TRUE)
  graphics::plot(dist[up], emp_up, log = "xy", xlim = range(grid), ylim = ylim, col = 1, pch = 1,
                 xlab = "distance from the median", ylab = "tail probability", main = "Tails", ...)
  graphics::points(dist[down], emp_down, col = 2, pch = 2)
  graphics::lines(grid, fitted_up, col = 1)
  graphics::lines(grid, fitted_down, col = 2, lty = 2)
  graphics::legend("bottomleft", legend = c("upper: P(X > x)", "lower: P(X < x)"), col = 1:2,
                   pch = 1:2, lty = 1:2, bty = "n")
}
