#' Empirical semivariogram, and diagnostic plots of a fit
#'
#' `gp_variogram()` bins the half squared differences of pairs of values by
#' their distance: \eqn{\hat\gamma(h) = \frac{1}{2N(h)}\sum (z_i - z_j)^2}
#' over the \eqn{N(h)} pairs in each bin, as gstat's `variogram()` does
#' (same defaults: a cutoff of a third of the diagonal of the bounding box,
#' 15 bins). For a `gp_fit` the values are the residuals from the estimated
#' trend, and `plot()` draws the fitted model's semivariogram
#' \eqn{\tau^2 + \sigma^2(1 - \rho(h))} over them (for an anisotropic
#' model, along each principal axis; for a space-time model, at time lag 0).
#' Beyond `max_points` observations a random subset of that size is used
#' (with a message), since the pairs grow as \eqn{n^2}.
#'
#' Replicates (`x` a matrix with a column per replicate at the same
#' locations, or a `gp_fit` of one) give the pooled semivariogram: the half
#' squared differences of every replicate's pairs averaged in each bin, and
#' `np` counts the pairs of all replicates (the variogram of the replicates
#' stacked, with pairs formed within replicates only). For a fit whose
#' replicates have missing values, each replicate's pairs are those it
#' observes at both ends.
#'
#' With `alpha`, directional semivariograms (of 2-D Euclidean coordinates,
#' as gstat's `variogram(..., alpha = , tol.hor = )`): for each direction
#' only the pairs whose separation vector lies within `tol.hor` degrees of
#' it (either way along the line) are binned; directions are in degrees
#' clockwise from the positive second coordinate (north), so `0` is
#' north-south and `90` east-west. Directions tell anisotropy apart: the
#' semivariogram rises more slowly along the major axis.
#'
#' `plot()` of a `gp_fit` shows that semivariogram and the residuals against
#' the fitted values.
#'
#' @param x A `gp_fit`, or a numeric vector of values at `locs` (or a matrix,
#'   a column per replicate).
#' @param locs Locations of `x` (a matrix or data frame of coordinates) when
#'   `x` is not a fit.
#' @param bins Number of distance bins.
#' @param cutoff Largest distance (default: a third of the diagonal of the
#'   bounding box of the locations; for great-circle distance, in km).
#' @param distance `"euclidean"` or `"great_circle"` when `x` is not a fit.
#' @param max_points The largest number of observations used.
#' @param alpha `NULL` (all directions), or directions in degrees clockwise
#'   from north (the positive second coordinate).
#' @param tol.hor The angular tolerance of each direction in degrees, at
#'   most 90 (default `90 / length(alpha)`, as gstat: the directions then
#'   share the pairs out).
#' @param ... Unused, or graphical parameters for `plot()` (for a `gp_fit`,
#'   other than those it sets: `xlab`, `ylab`, `xlim`, `ylim`, `pch`, `col`,
#'   `cex` and `main`; other names are an error).
#' @return `gp_variogram()`: a data frame of class `gp_variogram` with
#'   columns `dist` (mean distance of the pairs in the bin), `gamma` and
#'   `np` (number of pairs), one row per non-empty bin; with `alpha`, also
#'   `dir.hor`, the direction of the row.
#' @examples
#' set.seed(1)
#' locs <- matrix(runif(600), ncol = 2)
#' y <- gp_simulate(locs, sigma2 = 1, range = 0.1, smoothness = 1, nugget = 0.1)
#' v <- gp_variogram(y, locs)
#' gp_variogram(y, locs, alpha = c(0, 45, 90, 135))
#' fit <- gp_fit(y, locs, control = list(trace = FALSE))
#' plot(gp_variogram(fit))
#' plot(fit)
#' @export
gp_variogram <- function(x, locs = NULL, bins = 15, cutoff = NULL, distance = c("euclidean", "great_circle"),
                         max_points = 3000, alpha = NULL, tol.hor = 90 / length(alpha)) {
  call <- environment()
  fit <- NULL
  if (inherits(x, "gp_fit")) {
    validate_gp_fit(x, "x", call)
    check_gaussian_fit(x, "The variogram of a fit's residuals", call)
    fit <- x
    z <- stats::residuals(x, type = "trend")
    locs <- x$locs
    distance <- x$distance
  } else {
    distance <- match_choice(distance, c("euclidean", "great_circle"), "distance", call)
    if (is.null(locs)) abort_arg("{.arg locs} is missing: the locations of {.arg x}.", call)
    locs <- as_locations(locs, "locs", distance, call)
    z <- as_observations(x, nrow(locs), call)
    if (is.matrix(z) && ncol(z) == 0L) abort_arg("{.arg x} has no columns.", call)
    if (is.matrix(z) && ncol(z) == 1L) z <- z[, 1L]
  }
  check_scalar(bins, "bins", call, 1)
  if (bins != round(bins)) abort_arg("{.arg bins} must be a whole number, not {bins}.", call)
  check_scalar(max_points, "max_points", call, 2)
  check_directions(alpha, tol.hor, locs, distance, call)
  n <- nrow(locs)
  if (n < 2L) abort_arg("{.fn gp_variogram} needs at least 2 locations to form a pair, not {n}.", call)
  if (n > max_points) {
    keep <- sort(sample.int(n, max_points))
    cli::cli_inform("gp_variogram: {max_points} of the {n} {if (is.matrix(z)) 'locations' else 'observations'}, chosen at random.")
    z <- drop_rows(z, keep)
    locs <- locs[keep, , drop = FALSE]
  }
  pairs <- utils::combn(nrow(locs), 2L)
  if (bins > ncol(pairs)) {
    abort_arg("{.arg bins} ({format(bins)}) exceeds the {ncol(pairs)} pair{?s} of observations: most bins would be empty.", call)
  }
  h <- pair_distance(locs, pairs, distance)
  if (is.null(cutoff)) {
    diagonal <- sqrt(sum((apply(locs, 2L, max) - apply(locs, 2L, min))^2))
    cutoff <- if (distance == "great_circle") max(h) / 2 else diagonal / 3
  }
  check_scalar(cutoff, "cutoff", call, 0, open = TRUE)
  breaks <- seq(0, cutoff, length.out = bins + 1L)
  if (anyDuplicated(breaks)) abort_arg("{.arg cutoff} ({cutoff}) is too small to split into {bins} bins.", call)
  sq <- pair_half_squares(z, pairs)
  count <- attr(sq, "count") # with missing values, the replicates observed at each pair
  inside <- h <= cutoff
  if (!is.null(count)) inside <- inside & count > 0
  out <- if (is.null(alpha)) {
    variogram_bins(h[inside], sq[inside], breaks, count[inside])
  } else {
    dir <- pair_direction(locs, pairs)
    do.call(rbind, lapply(alpha, function(a) {
      along <- inside & direction_gap(dir, a) <= tol.hor
      v <- variogram_bins(h[along], sq[along], breaks, count[along])
      cbind(v, dir.hor = rep(a, nrow(v)))
    }))
  }
  rownames(out) <- NULL
  if (is.null(count)) out$np <- out$np * gp_replicates(z) # the pairs of every replicate
  structure(out, fit = fit, class = c("gp_variogram", "data.frame"))
}

# The half squared differences of the values z at the pairs (columns of
# `pairs`), for replicates (columns of z) their mean over the replicates,
# accumulated one replicate at a time (the pairs can be millions). Where
# replicates have missing values (a fit's residuals), the mean over those
# observed at both ends of the pair, their number the attribute `count`.
pair_half_squares <- function(z, pairs) {
  if (!is.matrix(z)) return(0.5 * (z[pairs[1L, ]] - z[pairs[2L, ]])^2)
  sq <- 0
  if (!anyNA(z)) {
    for (j in seq_len(ncol(z))) sq <- sq + 0.5 * (z[pairs[1L, ], j] - z[pairs[2L, ], j])^2
    return(sq / ncol(z))
  }
  count <- 0L
  for (j in seq_len(ncol(z))) {
    half <- 0.5 * (z[pairs[1L, ], j] - z[pairs[2L, ], j])^2
    seen <- !is.na(half)
    sq <- sq + ifelse(seen, half, 0)
    count <- count + seen
  }
  structure(sq / pmax(count, 1L), count = count)
}

# The binned semivariogram of pairs at distances h with half squared
# differences sq: a row per non-empty bin. With `count` (replicates with
# missing values), each pair's mean weighs as its count of replicates,
# which `np` then sums.
variogram_bins <- function(h, sq, breaks, count = NULL) {
  bin <- cut(h, breaks, include.lowest = TRUE)
  np <- tabulate(bin, nbins = length(breaks) - 1L)
  gamma <- if (is.null(count)) tapply(sq, bin, mean) else tapply(sq * count, bin, sum) / tapply(count, bin, sum)
  out <- data.frame(dist = as.vector(tapply(h, bin, mean)), gamma = as.vector(gamma), np = np)
  if (!is.null(count)) out$np <- as.vector(tapply(count, bin, sum))
  out[np > 0, , drop = FALSE]
}

# Directions need planar coordinates: two of them, Euclidean.
check_directions <- function(alpha, tol.hor, locs, distance, call) {
  if (is.null(alpha)) return(invisible())
  if (!is.numeric(alpha) || !length(alpha) || anyNA(alpha) || any(!is.finite(alpha))) {
    abort_arg("{.arg alpha} must be finite directions in degrees.", call)
  }
  check_scalar(tol.hor, "tol.hor", call, 0, open = TRUE)
  if (tol.hor > 90) abort_arg("{.arg tol.hor} must be at most 90 degrees, not {tol.hor}.", call)
  if (ncol(locs) != 2L || distance != "euclidean") {
    abort_arg("Directional semivariograms ({.arg alpha}) need 2-D coordinates with Euclidean distance.", call)
  }
}

# The direction of each pair's separation in degrees clockwise from north,
# in [0, 180): a pair has no orientation.
pair_direction <- function(locs, pairs) {
  d <- locs[pairs[2L, ], , drop = FALSE] - locs[pairs[1L, ], , drop = FALSE]
  (atan2(d[, 1], d[, 2]) * 180 / pi) %% 180
}

# The angle between such directions and the direction a (degrees), in [0, 90].
direction_gap <- function(dir, a) {
  g <- abs(dir - a %% 180)
  pmin(g, 180 - g)
}

# Distances of the pairs (columns of `pairs`) of rows of locs.
pair_distance <- function(locs, pairs, distance) {
  a <- locs[pairs[1L, ], , drop = FALSE]
  b <- locs[pairs[2L, ], , drop = FALSE]
  if (distance == "euclidean") return(sqrt(rowSums((a - b)^2)))
  rad <- pi / 180
  s <- sin((b[, 2] - a[, 2]) * rad / 2)^2 + cos(a[, 2] * rad) * cos(b[, 2] * rad) * sin((b[, 1] - a[, 1]) * rad / 2)^2
  2 * 6371 * asin(pmin(1, sqrt(s)))
}

#' @rdname gp_variogram
#' @export
plot.gp_variogram <- function(x, ...) {
  validate_gp_variogram(x, "x", environment())
  fit <- attr(x, "fit")
  top <- max(x$gamma, if (!is.null(fit)) sum(fit$covariance[c("sigma2", "nugget")]))
  dirs <- if (is.null(x$dir.hor)) rep(1L, nrow(x)) else match(x$dir.hor, unique(x$dir.hor))
  graphics::plot(x$dist, x$gamma, xlim = c(0, max(x$dist)), ylim = c(0, 1.05 * top), pch = 19, col = dirs,
                 xlab = "distance", ylab = "semivariance", ...)
  if (!is.null(x$dir.hor)) {
    graphics::legend("topleft", legend = paste(unique(x$dir.hor), "degrees"), col = seq_along(unique(x$dir.hor)),
                     pch = 19, bty = "n")
  }
  if (is.null(fit)) return(invisible(x))
  h <- seq(0, max(x$dist), length.out = 200)
  p <- fit$covariance
  ranges <- p[fit$model$params[gp_cov_is_range(fit$model$params) & fit$model$params != "range_time"]]
  for (i in seq_along(ranges)) {
    rho <- gp_cov_corr(fit$model, h, ranges[[i]], p[fit$model$shapes])
    graphics::lines(h, p[["nugget"]] * (h > 0) + p[["sigma2"]] * (1 - rho), lty = i)
  }
  if (length(ranges) > 1L) graphics::legend("bottomright", legend = names(ranges), lty = seq_along(ranges), bty = "n")
  invisible(x)
}

#' @rdname gp_variogram
#' @param which For a `gp_fit`: which plots, `1` the semivariogram with the
#'   model, `2` residuals against fitted values.
#' @export
plot.gp_fit <- function(x, which = 1:2, ...) {
  call <- environment()
  validate_gp_fit(x, "x", call)
  check_gaussian_fit(x, "{.fn plot}", call)
  if (!is.numeric(which) || !length(which) || !all(which %in% 1:2) || anyDuplicated(which)) {
    abort_arg("{.arg which} must be plots 1 (the semivariogram) and 2 (the residuals), or one of them, not {.obj_type_friendly {which}}{if (is.numeric(which)) paste0(' (', paste(which, collapse = ', '), ')') else ''}.", call)
  }
  check_dots_unused("plot", c("x", "which"), call, ..., allowed = plot_fit_graphical_parameters(),
                    hint = cli::format_inline("Its arguments are {.arg x}, {.arg which} and graphical parameters, other than those it sets itself ({.arg {plot_fit_set_here}})."))
  if (length(which) > 1L) {
    old <- graphics::par(mfrow = c(1L, length(which)))
    on.exit(graphics::par(old))
  }
  if (1L %in% which) {
    plot(gp_variogram(x), ...)
    graphics::title(sprintf("%s model", x$model$name))
  }
  if (2L %in% which) {
    f <- as.vector(stats::fitted(x)) # every replicate's
    graphics::plot(f, as.vector(x$y) - f, xlab = "fitted values", ylab = "residuals", pch = 19, cex = 0.6, ...)
    graphics::abline(h = 0, lty = 2)
    graphics::title("Residuals")
  }
  invisible(x)
}

# The graphical parameters that plot() of a gp_fit passes on: those of par()
# and plot.default(), less the ones the method sets itself (labels, limits,
# symbols, colours, titles). It opens the device that the plot then uses.
plot_fit_graphical_parameters <- function() {
  setdiff(c(names(graphics::par(no.readonly = TRUE)), names(formals(graphics::plot.default))),
          c("x", "y", "...", plot_fit_set_here))
}

plot_fit_set_here <- c("xlab", "ylab", "xlim", "ylim", "pch", "col", "cex", "main")
