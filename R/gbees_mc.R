#' Monte Carlo reference for GBEES
#'
#' Draws `n` states from `N(x0, cov)` (with R's random number generator, so
#' reproducible under [set.seed()]) and follows each with classical
#' fourth-order Runge-Kutta steps of at most `step` (at most 1e8 steps
#' between two requested times; the run can be interrupted). Samples that
#' become NaN or infinite (a model that blows up) are kept, with a warning
#' of class `gpustats_warning_nonfinite`. Built-in models run in
#' compiled code on the GPU or all cores; a [gbees_model()] runs on the GPU
#' when given as expressions (compiled at run time, one sample per thread),
#' and on the CPU evaluates its field once per stage for all samples.
#'
#' @inheritParams gbees
#' @param n Number of samples.
#' @param step Largest Runge-Kutta step.
#' @return An object of class `gbees_mc`: `times` and `samples`, a list with
#'   one `n x dim` matrix per time.
#' @examples
#' mc <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = 1, n = 1000)
#' colMeans(mc$samples[[1]])
#' @export
gbees_mc <- function(model, x0, cov, times, n = 1e5, step = 1e-3, t0 = 0,
                     device = getOption("gpustats.device", "auto")) {
  call <- environment()
  spec <- gbees_check_start(model, x0, cov, times, t0, call)
  check_scalar(n, "n", call, 1)
  max_int <- .Machine$integer.max
  if (n != round(n) || n > max_int) {
    abort_arg("{.arg n} must be a whole number of samples, at most {max_int}.", call)
  }
  check_scalar(step, "step", call, 0, open = TRUE)
  dev <- gbees_device(device, model, call)
  d <- model$dim
  x <- matrix(stats::rnorm(n * d), n, d) %*% spec$cov_chol + rep(spec$x0, each = n)
  samples <- vector("list", length(spec$times))
  span <- max(spec$times) - t0
  bar <- gs_progress_bar(n * span / step, "gbees_mc", call)
  t_prev <- t0
  for (k in seq_along(spec$times)) {
    # the native code reports the fraction done of the segment from t_prev
    progress <- if (!is.null(bar)) function(done) bar((t_prev - t0 + done * (spec$times[k] - t_prev)) / span)
    x <- gs_call(.Call(gs_r_gbees_monte_carlo, gbees_model_native(model), x, t_prev, spec$times[k], as.double(step),
                       gs_threads(call), dev, progress), call)
    colnames(x) <- model$state_names
    samples[[k]] <- x
    t_prev <- spec$times[k]
  }
  gbees_mc_warn_nonfinite(samples, spec$times, call)
  structure(list(model = model, times = spec$times, samples = samples, n = as.integer(n), step = step),
            class = "gbees_mc")
}

# Samples that left the doubles (a model that blows up, or a singularity
# such as a primary of the three-body problem) stay NaN or Inf: say so once.
gbees_mc_warn_nonfinite <- function(samples, times, call) {
  bad <- vapply(samples, function(s) sum(rowSums(!is.finite(s)) > 0), 0)
  if (!any(bad > 0)) return(invisible())
  k <- which(bad > 0)[1L]
  cli::cli_warn(c("{bad[k]} of {nrow(samples[[k]])} Monte Carlo sample{?s} {?is/are} not finite at time {times[k]}.",
                  i = "Their trajectories left the range of double precision or met a singularity of the model."),
                class = c("gpustats_warning_nonfinite", "gpustats_warning"), call = call)
}

#' @export
print.gbees_mc <- function(x, ...) {
  cat(sprintf("<gbees_mc> %s: %d samples at %d time%s (%s), Runge-Kutta step %g\n", x$model$name, x$n,
              length(x$times), if (length(x$times) == 1L) "" else "s", paste(format(x$times), collapse = ", "),
              x$step))
  invisible(x)
}

#' Bhattacharyya coefficient between a GBEES density and samples
#'
#' Bins the samples on the grid's cells (the cell of a state is the nearest
#' cell centre in each coordinate) and returns
#' `BC = sum over cells sqrt(P_grid(cell) * P_samples(cell))`, where
#' `P_samples` is the fraction of all samples in the cell. It is 1 for equal
#' distributions and 0 for disjoint ones; samples outside the grid lower it.
#'
#' @param object A [gbees()] result.
#' @param samples A [gbees_mc()] result or a matrix of states (one per row).
#' @param time A recorded time (default: the last).
#' @param posterior At a measurement time, compare the density after the
#'   update; by default the one before, which is what a Monte Carlo run
#'   without measurements samples.
#' @param bin Cells per bin along each state: with `bin > 1` both the grid
#'   density and the samples are summed over blocks of `bin^dim` cells
#'   first. The coefficient depends on the binning: finer bins resolve more
#'   of the difference between a grid density (smoothed by the scheme's
#'   numerical diffusion) and the samples, and show more sampling noise.
#' @return The coefficient, a number in `[0, 1]`.
#' @export
bhattacharyya <- function(object, samples, time = NULL, posterior = FALSE, bin = 1L) {
  call <- environment()
  check_scalar(bin, "bin", call, 1)
  if (!inherits(object, "gbees")) abort_arg("{.arg object} must be a {.fn gbees} result.", call)
  s <- gbees_snapshot(object, time, posterior, call)
  if (inherits(samples, "gbees_mc")) {
    k <- which(abs(samples$times - s$time) <= 1e-9 * max(1, abs(s$time)))
    if (!length(k)) abort_arg("The Monte Carlo run has no samples at time {s$time}.", call)
    samples <- samples$samples[[k[1L]]]
  }
  if (!is.matrix(samples) || !is.numeric(samples) || ncol(samples) != object$dim) {
    abort_arg("{.arg samples} must be a matrix with {object$dim} columns or a {.fn gbees_mc} result.", call)
  }
  n <- nrow(samples)
  samples <- samples[rowSums(!is.finite(samples)) == 0, , drop = FALSE]
  sample_keys <- round((samples - rep(object$center, each = nrow(samples))) / rep(object$dx, each = nrow(samples)))
  sample_keys <- sample_keys[rowSums(abs(sample_keys) < 2^30) == ncol(sample_keys), , drop = FALSE]
  codes <- gbees_key_code(list(floor(s$keys / bin), floor(sample_keys / bin)))
  grid_prob <- rowsum(pmax(s$prob, 0), codes[[1L]], reorder = FALSE)
  bins <- unique(codes[[1L]])
  counts <- tabulate(match(codes[[2L]], bins), nbins = length(bins))
  sum(sqrt(grid_prob * counts / n))
}
