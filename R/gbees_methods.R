# Methods for gbees objects.

#' @export
print.gbees <- function(x, ...) {
  validate_gbees(x, "x", environment())
  cat(sprintf("<gbees> %s\n", x$model$name))
  cat(sprintf("  cells of width %s, threshold %g, cfl %g, %s\n", paste(format(x$dx), collapse = " x "),
              x$threshold, x$cfl, x$device))
  for (s in x$snapshots) {
    cat(sprintf("  t = %-8s %9d cells%s\n", format(s$time), length(s$prob),
                if (s$posterior) ", after the measurement update" else ""))
  }
  cat(sprintf("  %d steps, %.3g cell updates, peak %d cells (%s), %.2f s\n", as.integer(x$info$steps),
              x$info$cell_updates, as.integer(x$info$peak_cells), format_bytes(x$info$peak_memory_bytes),
              x$seconds))
  invisible(x)
}

#' Summarize a GBEES density
#'
#' @param object A [gbees()] result.
#' @param ... Unused.
#' @return An object of class `summary.gbees`: a data frame with one row per
#'   recorded density (time, whether it follows a measurement update, cells,
#'   mass, mean of each state), the covariance matrices (`cov`, a list), and
#'   the run's totals: steps, cell updates, peak cells, memory, the largest
#'   change of mass in one flux update (`mass_error`), and the mass added by
#'   clipping negative cells and removed by pruning.
#' @export
summary.gbees <- function(object, ...) {
  validate_gbees(object, "object", environment())
  nm <- object$model$state_names
  rows <- lapply(object$snapshots, function(s) {
    x <- gbees_centers(s$keys, object)
    w <- s$prob / sum(s$prob)
    mu <- colSums(x * w)
    xc <- x - rep(mu, each = nrow(x))
    list(row = data.frame(time = s$time, updated = s$posterior, cells = length(s$prob), mass = sum(s$prob),
                          t(stats::setNames(mu, paste0("mean_", nm)))),
         cov = stats::setNames(crossprod(xc * sqrt(w)), NULL))
  })
  tab <- do.call(rbind, lapply(rows, `[[`, "row"))
  covs <- lapply(rows, function(r) {
    dimnames(r$cov) <- list(nm, nm)
    r$cov
  })
  structure(list(model = object$model$name, table = tab, cov = covs, info = object$info, seconds = object$seconds),
            class = "summary.gbees")
}

#' @export
print.summary.gbees <- function(x, ...) {
  validate_summary_gbees(x, "x", environment())
  cat(sprintf("GBEES density of %s\n\n", x$model))
  print(x$table, row.names = FALSE, digits = 5)
  i <- x$info
  cat(sprintf("\n%d steps, %.4g cell updates in %.2f s (%.3g cell updates/s)\n", as.integer(i$steps),
              i$cell_updates, x$seconds, i$cell_updates / max(x$seconds, 1e-9)))
  cat(sprintf("cells: %d now, %d at the peak; memory %s now, %s at the peak\n", as.integer(i$cells),
              as.integer(i$peak_cells), format_bytes(i$memory_bytes), format_bytes(i$peak_memory_bytes)))
  cat(sprintf("mass: largest change in one flux update %.2g; added by clipping %.2g; pruned %.2g\n",
              i$mass_error, i$clipped_mass, i$pruned_mass))
  invisible(x)
}

#' @export
as.data.frame.gbees <- function(x, row.names = NULL, optional = FALSE, ...) {
  validate_gbees(x, "x", environment())
  vol <- prod(x$dx)
  do.call(rbind, lapply(x$snapshots, function(s) {
    centers <- gbees_centers(s$keys, x)
    colnames(centers) <- x$model$state_names
    data.frame(time = rep(s$time, length(s$prob)), updated = rep(s$posterior, length(s$prob)), centers,
               prob = s$prob, density = s$prob / vol)
  }))
}

#' Marginal densities of a GBEES result
#'
#' Sums the cell probabilities over the states not in `dims`.
#'
#' @param object A [gbees()] result.
#' @param dims One or two state indices (or names).
#' @param time A recorded time (default: the last).
#' @param posterior At a measurement time, the density after the update
#'   (`TRUE`) or before it.
#' @param ... Unused.
#' @return A data frame with the cell centres along `dims`, the probability
#'   `prob` of each marginal cell and the marginal `density`.
#' @export
marginal <- function(object, ...) UseMethod("marginal")

#' @rdname marginal
#' @export
marginal.default <- function(object, ...) {
  abort_arg("{.arg object} must be a {.fn gbees} result, not {.obj_type_friendly {object}}.", environment())
}

#' @rdname marginal
#' @export
marginal.gbees <- function(object, dims = 1:2, time = NULL, posterior = TRUE, ...) {
  call <- environment()
  validate_gbees(object, "object", call)
  dims <- gbees_dims(object, dims, call)
  s <- gbees_snapshot(object, time, posterior, call)
  keys <- s$keys[, dims, drop = FALSE]
  code <- gbees_key_code(list(keys))[[1L]]
  prob <- rowsum(s$prob, code, reorder = FALSE)
  first <- !duplicated(code)
  centers <- keys[first, , drop = FALSE] * rep(object$dx[dims], each = sum(first)) +
    rep(object$center[dims], each = sum(first))
  colnames(centers) <- object$model$state_names[dims]
  data.frame(centers, prob = as.vector(prob), density = as.vector(prob) / prod(object$dx[dims]))
}

gbees_dims <- function(object, dims, call) {
  if (is.character(dims)) dims <- match(dims, object$model$state_names)
  if (!is.numeric(dims) || !length(dims) %in% 1:2 || anyNA(dims) || any(dims < 1 | dims > object$dim | dims != trunc(dims)) ||
      anyDuplicated(dims)) {
    abort_arg("{.arg dims} must be one or two distinct states of the model (1 to {object$dim}).", call)
  }
  as.integer(dims)
}

# Integer codes of the rows of key matrices, equal across the matrices for
# equal rows: mixed radix over the joint range when it is exact in a double,
# else strings.
gbees_key_code <- function(keys) {
  # column by column: apply() would transpose millions of keys first
  filled <- Filter(nrow, keys)
  col_range <- function(j) range(vapply(filled, function(k) range(k[, j]), c(0, 0)))
  ranges <- vapply(seq_len(ncol(keys[[1L]])), col_range, c(0, 0))
  lo <- ranges[1L, ]
  span <- ranges[2L, ] - lo + 1
  if (prod(as.double(span)) < 2^52) {
    radix <- cumprod(c(1, span[-length(span)]))
    lapply(keys, function(k) as.vector((k - rep(lo, each = nrow(k))) %*% radix))
  } else {
    lapply(keys, function(k) do.call(paste, c(as.data.frame(k), sep = ",")))
  }
}

#' Plot GBEES marginal densities
#'
#' One panel per recorded density: a heat map of the two-dimensional
#' marginal over `dims` with its colour bar, or the one-dimensional marginal
#' as a step curve.
#'
#' @param x A [gbees()] result.
#' @param dims One or two states.
#' @param times Recorded times to show (default: all).
#' @param ... Passed to [graphics::image()] or [graphics::plot()].
#' @return `x`, invisibly.
#' @export
plot.gbees <- function(x, dims = c(1, 2), times = NULL, ...) {
  call <- environment()
  validate_gbees(x, "x", call)
  dims <- gbees_dims(x, dims, call)
  snaps <- x$snapshots
  if (!is.null(times) && (!is.numeric(times) || is.object(times) || anyNA(times))) {
    abort_arg("{.arg times} must be recorded times (numbers), not {.obj_type_friendly {times}}.", call)
  }
  if (!is.null(times)) snaps <- Filter(function(s) any(abs(s$time - times) <= 1e-9 * max(1, abs(s$time))), snaps)
  if (!length(snaps)) abort_arg("None of {.arg times} was recorded.", call)
  old <- graphics::par(no.readonly = TRUE)
  on.exit(graphics::par(old))
  # a strip of up to three panels, else R's usual grid
  grid <- if (length(snaps) <= 3L) c(1L, length(snaps)) else grDevices::n2mfrow(length(snaps))
  if (length(dims) == 1L) graphics::par(mfrow = grid) else colour_bar_layout(grid[1L], grid[2L])
  graphics::par(mar = c(4, 4, 2, 1))
  colours <- grDevices::hcl.colors(64, "viridis")
  nm <- x$model$state_names[dims]
  for (s in snaps) {
    m <- marginal(x, dims, time = s$time, posterior = s$posterior)
    title <- sprintf("t = %s%s", format(s$time), if (s$posterior) " (updated)" else "")
    if (length(dims) == 1L) {
      o <- order(m[[1L]])
      graphics::plot(m[[1L]][o], m$density[o], type = "s", xlab = nm, ylab = "density", main = title, ...)
    } else {
      gx <- seq(min(m[[1L]]), max(m[[1L]]), by = x$dx[dims[1L]])
      gy <- seq(min(m[[2L]]), max(m[[2L]]), by = x$dx[dims[2L]])
      z <- matrix(NA_real_, length(gx), length(gy))
      z[cbind(round((m[[1L]] - gx[1L]) / x$dx[dims[1L]]) + 1L, round((m[[2L]] - gy[1L]) / x$dx[dims[2L]]) + 1L)] <-
        m$density
      graphics::par(mar = c(4, 4, 2.5, 0.5))
      graphics::image(gx, gy, z, xlab = nm[1L], ylab = nm[2L], main = title, col = colours, ...)
      colour_bar(colours, colour_range(z, "density", call))
    }
  }
  invisible(x)
}
