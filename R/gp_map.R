#' Maps of kriging predictions and standard errors
#'
#' Predicts a 2-D fit on a grid and returns a map with `plot()` (raster
#' images of the predictions and their standard errors, each with a colour
#' bar; longitude and latitude axes and coastlines for great-circle fits) and
#' `as.data.frame()` methods. Without `newdata` the grid is `n` by `n` cells
#' over the bounding box of the observed locations (for fits with no
#' covariates besides a constant); with `newdata` a data frame or matrix on
#' a regular grid (such as sp's `meuse.grid`) the predictions are placed on
#' the grid that its coordinates span, cells without a point left empty.
#' With `newdata` an sf, sp, stars or terra object, the map is an object of
#' its class with the predictions and standard errors as columns `fit` and
#' `se.fit` (for stars, attributes; for a `terra::SpatRaster`, layers; for a
#' `SpatialPixelsDataFrame`, a
#' `SpatialPixelsDataFrame`): `predict(fit, newdata, se.fit = TRUE)`, drawn
#' by that class's `plot()`.
#'
#' @param fit A `gp_fit` with 2-D locations.
#' @param newdata Optional prediction points on a regular grid, as for
#'   [predict.gp_fit()], or an sf, sp, stars or terra object.
#' @param n Grid cells per side without `newdata`: a whole number from 2.
#' @param X For a matrix fit with covariates: their values at `newdata`.
#' @param device `"auto"`, `"cpu"` or `"gpu"`.
#' @param type For a non-Gaussian fit (see [predict.gp_fit()]): map the
#'   linear predictor (`"link"`) or the mean (`"response"`: intensities,
#'   probabilities) and its standard error.
#' @param x A `gp_map`.
#' @param what For `plot()`: `"fit"`, `"se"` or both, each with its colour
#'   bar.
#' @param points For `plot()`: draw the observed locations (as dots; at most
#'   2,000 of them, spread evenly over the data, so that the surface stays
#'   visible).
#' @param contours For `plot()`: draw contour lines over the image.
#' @param coastlines For `plot()` of a fit with great-circle distances
#'   (longitude and latitude): draw the coastlines of the maps package, where
#'   it is installed.
#' @param ... Unused, or graphical parameters for `plot()`.
#' @return An object of class `gp_map`: `x` and `y` (the grid's coordinates),
#'   `fit` and `se` (matrices, `NA` outside the points), and `points` (a data
#'   frame of the prediction points with `fit` and `se`); for `newdata` an
#'   sf, sp, stars or terra object, an object of its class with columns `fit` and
#'   `se.fit`.
#' @examples
#' set.seed(3)
#' locs <- matrix(runif(400), ncol = 2)
#' y <- gp_simulate(locs, sigma2 = 1, range = 0.2, smoothness = 1.5, nugget = 0.01)
#' fit <- gp_fit(y, locs, cov = "matern32", control = list(trace = FALSE))
#' m <- gp_map(fit, n = 40)
#' plot(m)
#' @export
gp_map <- function(fit, newdata = NULL, n = 100, X = NULL, device = getOption("gpustats.device", "auto"),
                   type = c("link", "response")) {
  call <- environment()
  validate_gp_fit(fit, "fit", call)
  type <- match_choice(type, c("link", "response"), "type", call)
  if (ncol(fit$locs) != 2L) abort_arg("{.fn gp_map} maps 2-D fits; this one has {ncol(fit$locs)}-D locations.", call)
  if ((fit$replicates %||% 1L) > 1L) {
    abort_arg(c("{.fn gp_map} maps one data set; this fit has {fit$replicates} replicates.",
                i = "Map the columns of {.fn predict}'s result, or fit one replicate."), call)
  }
  if (is.null(newdata)) {
    check_scalar(n, "n", call, 2)
    if (n != round(n)) abort_arg("{.arg n} must be a whole number of cells per side, not {n}.", call)
    # the grid, its predictions and standard errors, and the kriging weights of a block
    check_host_memory(8 * 6 * n^2, sprintf("A map of %.0f x %.0f points", n, n), call)
    axes <- lapply(1:2, function(j) seq(min(fit$locs[, j]), max(fit$locs[, j]), length.out = n))
    grid <- as.matrix(expand.grid(axes[[1L]], axes[[2L]]))
    if (!is.null(fit$terms)) {
      grid <- as.data.frame(grid)
      names(grid) <- fit$coords
      if (length(all.vars(stats::delete.response(fit$terms)))) {
        abort_arg("The trend has covariates: give {.arg newdata} with their values on a grid.", call)
      }
    }
    k <- predict.gp_fit(fit, grid, se.fit = TRUE, X = X, device = device, type = type)
    locs <- as.matrix(expand.grid(axes[[1L]], axes[[2L]]))
  } else {
    k <- predict.gp_fit(fit, newdata, se.fit = TRUE, X = X, device = device, type = type)
    if (is_spatial(newdata)) return(k)
    locs <- gp_newdata(fit, newdata, X, call)$locs
  }
  points <- data.frame(x = locs[, 1L], y = locs[, 2L], fit = k$fit, se = k$se.fit)
  axes <- lapply(1:2, function(j) sort(unique(locs[, j])))
  cells <- cbind(match(locs[, 1L], axes[[1L]]), match(locs[, 2L], axes[[2L]]))
  raster <- function(v) {
    m <- matrix(NA_real_, length(axes[[1L]]), length(axes[[2L]]))
    m[cells] <- v
    m
  }
  structure(list(x = axes[[1L]], y = axes[[2L]], fit = raster(points$fit), se = raster(points$se), points = points,
                 locs = fit$locs, coords = fit$coords %||% c("x", "y"), lonlat = identical(fit$distance, "great_circle")),
            class = "gp_map")
}

#' @rdname gp_map
#' @export
plot.gp_map <- function(x, what = c("fit", "se"), points = TRUE, contours = FALSE, coastlines = TRUE, ...) {
  call <- environment()
  validate_gp_map(x, "x", call)
  # one layer or several, each named as one choice
  what <- if (is.character(what) && length(what)) {
    unique(vapply(what, match_choice, "", c("fit", "se"), "what", call, USE.NAMES = FALSE))
  } else {
    match_choice(what, c("fit", "se"), "what", call)
  }
  check_flag(points, "points", call)
  check_flag(contours, "contours", call)
  check_flag(coastlines, "coastlines", call)
  old <- graphics::par(no.readonly = TRUE)
  on.exit(graphics::par(old))
  colour_bar_layout(1L, length(what))
  titles <- c(fit = "Prediction", se = "Standard error")
  colours <- grDevices::hcl.colors(64, "viridis")
  lonlat <- isTRUE(x$lonlat)
  for (w in what) {
    z <- x[[w]]
    range <- colour_range(z, paste0("x$", w), call)
    graphics::par(mar = c(4, 4, 2.5, 0.5))
    graphics::image(x$x, x$y, z, col = colours, zlim = range, useRaster = map_is_regular(x), main = titles[[w]],
                    xlab = if (lonlat) "longitude" else x$coords[1L], ylab = if (lonlat) "latitude" else x$coords[2L],
                    asp = if (lonlat) NA else 1, ...)
    if (contours && sum(is.finite(z)) > 4L) graphics::contour(x$x, x$y, z, add = TRUE, drawlabels = FALSE, col = "grey30")
    if (lonlat && coastlines && requireNamespace("maps", quietly = TRUE)) {
      maps::map("world", add = TRUE, col = "grey20", lwd = 0.7)
    }
    if (points) graphics::points(x$locs[map_points_shown(nrow(x$locs)), , drop = FALSE], pch = 20, cex = 0.25, col = "grey10")
    colour_bar(colours, range)
  }
  invisible(x)
}

# The observed locations drawn on a map: all up to 2,000, else 2,000 spread
# evenly over the data's order (drawn without touching the random stream),
# so that the surface stays visible at any n.
map_points_shown <- function(n, most = 2000L) {
  if (n <= most) seq_len(n) else unique(round(seq(1, n, length.out = most)))
}

# Whether the map's cells are equally spaced along both axes (a raster can
# draw them; others are drawn cell by cell).
map_is_regular <- function(x) {
  regular <- function(v) length(v) < 3L || diff(range(diff(v))) <= 1e-6 * diff(range(v))
  regular(x$x) && regular(x$y)
}

#' @rdname gp_map
#' @param row.names,optional Unused.
#' @export
as.data.frame.gp_map <- function(x, row.names = NULL, optional = FALSE, ...) {
  validate_gp_map(x, "x", environment())
  x$points
}
