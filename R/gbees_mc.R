#' Monte Carlo reference for GBEES
#'
#' Draws `n` states from `N(x0, cov)` (with R's random number generator, so
#' reproducible under [set.seed()]) and follows each with classical
#' fourth-order Runge-Kutta steps of at most `step` (at most 1e8 steps
#' between two requested times; the run can be interrupted). Samples that
#' become NaN or infinite (a model that blows up) are kept, with a warning
#' of class `gpustats_warning_nonfinite`. A fixed step cannot follow a
#' trajectory through a singularity of the field: in `pcr3bp()`, a pass
#' close to a primary, where the field grows as the inverse square of the
#' distance, leaves a sample with a finite but meaningless state. Such
#' samples are found by the Jacobi constant, which the field conserves and
#' the steps keep to about 1e-10 elsewhere: a sample whose constant has moved
#' by more than 1e-6 (relative, or absolute below 1) is set to NaN from that
#' time on, with a warning of the same class that says how many; a smaller
#' `step` follows closer passes. Built-in models run in
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
  invariant <- gbees_mc_invariant(model)
  start_value <- if (!is.null(invariant)) invariant(x)
  lost <- numeric(length(spec$times)) # samples lost by each time
  for (k in seq_along(spec$times)) {
    # the native code reports the fraction done of the segment from t_prev
    progress <- if (!is.null(bar)) function(done) bar((t_prev - t0 + done * (spec$times[k] - t_prev)) / span)
    x <- gs_call(.Call(gs_r_gbees_monte_carlo, gbees_model_native(model, dev, call), x, t_prev, spec$times[k], as.double(step),
                       gs_threads(call), dev, progress), call)
    colnames(x) <- model$state_names
    if (!is.null(invariant)) {
      drifted <- gbees_mc_drifted(start_value, invariant(x))
      lost[k] <- sum(drifted) # a lost sample stays NaN, so this counts the earlier ones too
      x[drifted, ] <- NaN
    }
    samples[[k]] <- x
    t_prev <- spec$times[k]
  }
  if (is.null(invariant)) {
    gbees_mc_warn_nonfinite(samples, spec$times, call)
  } else {
    gbees_mc_warn_lost(lost, n, spec$times, step, call) # every non-finite sample counts as lost
  }
  structure(list(model = model, times = spec$times, samples = samples, n = as.integer(n), step = step),
            class = "gbees_mc")
}

# Samples that left the doubles (a model that blows up, or meets a
# singularity) stay NaN or Inf: say so once.
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

# The quantity that the model's field conserves, as a function of a matrix
# of states (a row each), or NULL for a model without a known one: for the
# planar circular restricted three-body problem the Jacobi constant
# x^2 + y^2 + 2 (1 - mu) / r1 + 2 mu / r2 - vx^2 - vy^2, r1 and r2 the
# distances to the primaries at (-mu, 0) and (1 - mu, 0).
gbees_mc_invariant <- function(model) {
  if (model$kind != gs_code("gbees_model", "pcr3bp")) return(NULL)
  mu <- model$par[[1L]]
  function(x) {
    r1 <- sqrt((x[, 1L] + mu)^2 + x[, 2L]^2)
    r2 <- sqrt((x[, 1L] - 1 + mu)^2 + x[, 2L]^2)
    x[, 1L]^2 + x[, 2L]^2 + 2 * (1 - mu) / r1 + 2 * mu / r2 - x[, 3L]^2 - x[, 4L]^2
  }
}

# The samples whose conserved quantity moved from `start` to `now` by more
# than the steps' rounding and truncation allow, or is no longer finite.
gbees_mc_drifted <- function(start, now) !(abs(now - start) <= 1e-6 * pmax(1, abs(start)))

# Samples lost at a singularity of the model (`lost`: how many by each of
# `times`), now NaN: say so once.
gbees_mc_warn_lost <- function(lost, n, times, step, call) {
  if (!any(lost > 0)) return(invisible())
  k <- which(lost > 0)[1L]
  total <- lost[length(lost)]
  cli::cli_warn(c("{total} of {n} Monte Carlo sample{?s} passed so close to a singularity of the model (a primary of the three-body problem) that Runge-Kutta steps of {step} lost {?it/them}: {?it is/they are} NaN from time {times[k]} on.",
                  i = "Their Jacobi constant, which the field conserves, moved by more than 1e-6. A smaller {.arg step} follows closer passes."),
                class = c("gpustats_warning_nonfinite", "gpustats_warning"), call = call)
}

#' @export
print.gbees_mc <- function(x, ...) {
  validate_gbees_mc(x, "x", environment())
  cat(sprintf("<gbees_mc> %s: %d samples at %d time%s (%s), Runge-Kutta step %g\n", x$model$name, x$n,
              length(x$times), if (length(x$times) == 1L) "" else "s", paste(format(x$times), collapse = ", "),
              x$step))
  invisible(x)
}
