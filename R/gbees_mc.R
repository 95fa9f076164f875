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
  n <- as.double(n) # an integer n times d would overflow
  check_host_memory(8 * n * d * (length(spec$times) + 3), sprintf("%.0f samples at %d times", n, length(spec$times)), call)
  x <- matrix(stats::rnorm(n * d), n, d) %*% spec$cov_chol + rep(spec$x0, each = n)
  samples <- vector("list", length(spec$times))
  span <- max(spec$times) - t0
  bar <- gs_progress_bar(n * span / step, "gbees_mc", call)
  t_prev <- t0
  for (k in seq_along(spec$times)) {
    # the native code reports the fraction done of the segment from t_prev
    progress <- if (!is.null(bar)) function(done) bar((t_prev - t0 + done * (spec$times[k] - t_prev)) / span)
    x <- gs_call(.Call(gs_r_gbees_monte_carlo, gbees_model_native(model, dev, call), x, t_prev, spec$times[k], as.double(step),
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
  # one pass in C over the usual all-finite samples; R's !is.finite() and
  # rowSums() over 1e6 states took longer than the GPU's whole run
  bad <- vapply(samples, function(s) if (all_finite(s, call)) 0 else sum(rowSums(!is.finite(s)) > 0), 0)
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
