#' Propagate a probability density with GBEES
#'
#' Grid-based Bayesian estimation exploiting sparsity (GBEES; Hanson, Rubio,
#' García-Gutiérrez and Bewley): the probability density of the state of
#' `dx/dt = f(x, t)` is advected on a sparse grid of cells of width `dx`,
#' kept only where there is probability. Each time step
#'
#' 1. adds, next to every cell holding at least `threshold` of the mass, the
#'    neighbours downwind of it (faces and edges);
#' 2. takes the step `dt = cfl / max_cells sum_i |v_i| / dx_i` (shortened to
#'    land on the requested times);
#' 3. moves mass across cell faces with donor-cell upwind fluxes,
#'    corner-transport-upwind transverse terms and a second-order correction
#'    limited by the monotonized-central limiter. Every flux is applied to
#'    both cells of its face and faces with a missing cell carry nothing, so
#'    a step conserves the mass to rounding; cells that would turn negative
#'    are set to zero and the mass renormalized;
#' 4. every `prune_every` steps removes cells below `threshold` that receive
#'    no significant inflow, smallest first, while the removed mass stays
#'    below `threshold` relative to what remains.
#'
#' Velocities are evaluated at the centre of each cell's upper faces. The
#' initial density is the Gaussian `N(x0, cov)` on the box of cells within
#' three standard deviations of `x0`. At measurement times the density is
#' multiplied by the measurement likelihood (Bayes' rule), renormalized and
#' pruned.
#'
#' The hash table holding the cells is enlarged and rehashed as the grid
#' grows; running out of memory stops with an error giving the number of
#' cells needed, or when the arrays would exceed the host's memory. The
#' computation can be interrupted.
#'
#' Runs that cannot end well stop with an error of class
#' `gpustats_error_argument` before they start stepping: reaching a
#' requested time in more than 1e8 steps (judged from the current step, so a
#' huge time span or velocity, or a tiny `cfl`, is caught at once), cells too
#' narrow for double precision to tell apart at the magnitude of `x0`, time
#' steps lost in the rounding of large times (measure time from a nearer
#' origin), and a measurement whose likelihood underflows to zero on every
#' cell that holds probability.
#'
#' @param model A [gbees_model][lorenz63] (e.g. `lorenz63()`).
#' @param x0 Mean of the initial Gaussian density.
#' @param cov Its covariance matrix (or variances).
#' @param dx Cell widths: one per state or a single width.
#' @param times Times at which the density is returned, increasing, not
#'   before `t0`.
#' @param measurements Optional [gbees_measurements()]; their times must lie
#'   in `[t0, max(times)]`. Measurements of states or given as expressions
#'   are computed on the device of the grid.
#' @param threshold Probability mass below which a cell may be pruned and
#'   above which it grows the grid.
#' @param cfl Courant number of the time step, in `(0, 1]`.
#' @param prune_every Steps between prunes.
#' @param t0 Time of the initial density.
#' @param device `"auto"`, `"cpu"` or `"gpu"`. The built-in models and
#'   models given as expressions run on either (`"auto"` takes the GPU when
#'   there is one); a model given as an R function runs on the CPU (all
#'   cores). Both give the same cells, with probabilities that agree to
#'   rounding.
#' @return An object of class `gbees`: the sparse density at each requested
#'   time (at a measurement time, both before and after the update) with
#'   `print`, `summary`, `as.data.frame`, [marginal()] and `plot` methods.
#'   Its `info` counts the steps, cell updates, peak cells and memory and the
#'   mass balances, and gives in `phase_seconds` the wall time of each phase:
#'   `setup` (the initial grid), `growth` (finding the new cells), `new_cells`
#'   (their storage, velocities and links), `field` (every cell's velocities,
#'   each step, for a field that depends on time), `advect` (the flux update
#'   and normalization), `prune`, `update` (measurement updates), `progress`
#'   (progress reports and interrupt checks between steps) and `readout` (R's
#'   own work: copying out the densities and evaluating a likelihood given as
#'   an R function). On the CPU they add up to `seconds` but for the checks of
#'   the arguments. On a GPU the steps run there and only `setup`, `update`
#'   and `readout` are timed.
#' @seealso [gbees_mc()] and [bhattacharyya()] for a Monte Carlo check.
#' @examples
#' \donttest{
#' fit <- gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5,
#'              times = c(0.5, 1), threshold = 1e-6)
#' fit
#' plot(fit, dims = c(1, 3))
#' }
#' @export
gbees <- function(model, x0, cov, dx, times, measurements = NULL, threshold = 1e-7, cfl = 1, prune_every = 20L,
                  t0 = 0, device = getOption("gpustats.device", "auto")) {
  call <- environment()
  spec <- gbees_spec(model, x0, cov, dx, times, measurements, threshold, cfl, prune_every, t0, call)
  dev <- gbees_device(device, model, call)
  events <- sort(unique(c(spec$times, measurements$time)))
  span <- max(events) - t0
  # the native code reports the fraction done of the segment from `start` to `now`
  start <- now <- t0
  bar <- gs_progress_bar(Inf, "gbees", call) # the work is not known in advance: always a bar
  progress <- function(done) bar((start - t0 + done * (now - start)) / max(span, 1e-300))
  started <- proc.time()[["elapsed"]]
  native_measurements <- gbees_measurement_native(measurements, dev, model, call)
  ptr <- gs_call(.Call(gs_r_gbees_new, gbees_model_native(model, dev, call), spec$native, gs_threads(call), dev, NULL), call)
  snapshots <- list()
  readout <- 0 # R's own work in the loop, timed as the phase "readout"
  take <- function(te, posterior) {
    since <- proc.time()[["elapsed"]]
    snapshots[[length(snapshots) + 1L]] <<- gbees_snapshot_take(ptr, te, posterior)
    readout <<- readout + proc.time()[["elapsed"]] - since
  }
  for (te in events) {
    start <- now
    now <- te
    gs_call(.Call(gs_r_gbees_propagate, ptr, te, progress), call)
    k <- match(te, measurements$time)
    output <- te %in% spec$times
    if (output) take(te, posterior = FALSE)
    if (!is.na(k)) {
      readout <- readout + gbees_update(ptr, measurements, native_measurements, k, spec, call)
      if (output) take(te, posterior = TRUE)
    }
  }
  info <- gbees_info(ptr)
  info$phase_seconds <- c(info$phase_seconds, readout = readout)
  structure(list(model = model, dim = model$dim, x0 = spec$x0, cov = spec$cov, dx = spec$dx, center = spec$x0,
                 threshold = threshold, cfl = cfl, prune_every = as.integer(prune_every), t0 = t0,
                 times = spec$times, measurements = measurements, snapshots = snapshots, info = info,
                 seconds = proc.time()[["elapsed"]] - started, device = if (dev >= 0) "gpu" else "cpu"),
            class = "gbees")
}

# Bayes' rule for measurement k: in the native code when the measurement
# observes states or is given as expressions (`native`, prepared by
# gbees_measurement_native); the cells go to R only for an R measurement
# function. Returns the seconds R spent on it (the native code times its own).
gbees_update <- function(ptr, measurements, native, k, spec, call) {
  if (!is.null(native)) {
    gs_call(.Call(gs_r_gbees_measure, ptr, native, measurements$time[k], as.double(measurements$y[k, ])), call)
    return(0)
  }
  since <- proc.time()[["elapsed"]]
  cells <- .Call(gs_r_gbees_cells, ptr)
  ll <- gbees_loglik(measurements, k, gbees_centers(cells$keys, spec), call)
  in_r <- proc.time()[["elapsed"]] - since
  gs_call(.Call(gs_r_gbees_reweight, ptr, ll), call)
  in_r
}

# The device of gbees() and gbees_mc(): a GPU runs the built-in models and
# models given as expressions.
gbees_device <- function(device, model, call) {
  dev <- resolve_device(device, Inf, "map", call)
  if (dev < 0 || model$kind != gs_code("gbees_model", "user") || !is.null(model$source)) return(dev)
  if (identical(device, "auto")) return(-1L)
  cli::cli_abort(c("A model given as an R function runs on the CPU only.",
                   i = "Use {.code device = \"cpu\"}, or give the field as C expressions to run it on the GPU."),
                 class = c("gpustats_error_argument", "gpustats_error"), call = call)
}

# The checks gbees() and gbees_mc() share: model, initial Gaussian, times.
gbees_check_start <- function(model, x0, cov, times, t0, call) {
  if (!inherits(model, "gbees_model")) {
    abort_arg("{.arg model} must be a GBEES model such as {.code lorenz63()} or one made by {.fn gbees_model}.", call)
  }
  validate_gbees_model(model, "model", call)
  n <- model$dim
  check_numeric_arg(x0, "x0", call)
  if (length(x0) != n || any(!is.finite(x0))) abort_arg("{.arg x0} must be {n} finite number{?s} (the model has {n} state{?s}).", call)
  check_numeric_arg(cov, "cov", call)
  cov <- if (is.matrix(cov)) cov else if (length(cov) %in% c(1L, n)) diag(rep_len(as.double(cov), n), n) else cov
  if (!is.matrix(cov) || !identical(dim(cov), c(n, n))) abort_arg("{.arg cov} must be a {n} x {n} covariance matrix.", call)
  R <- if (all(is.finite(cov)) && isSymmetric(unname(cov))) tryCatch(chol(cov), error = function(e) NULL)
  if (is.null(R)) abort_arg("{.arg cov} must be symmetric positive definite.", call)
  check_scalar(t0, "t0", call)
  check_numeric_arg(times, "times", call)
  if (!length(times) || any(!is.finite(times)) || is.unsorted(times, strictly = TRUE) || times[1L] < t0) {
    abort_arg("{.arg times} must be strictly increasing finite times, not before {.arg t0} = {t0}.", call)
  }
  list(x0 = as.double(x0), cov = cov, cov_chol = R, times = as.double(times))
}

gbees_spec <- function(model, x0, cov, dx, times, measurements, threshold, cfl, prune_every, t0, call) {
  start <- gbees_check_start(model, x0, cov, times, t0, call)
  n <- model$dim
  check_numeric_arg(dx, "dx", call)
  if (!length(dx) %in% c(1L, n) || any(!is.finite(dx)) || any(dx <= 0)) {
    abort_arg("{.arg dx} must be positive cell widths: one, or one per state ({n}).", call)
  }
  dx <- rep_len(as.double(dx), n)
  if (!is.null(measurements)) {
    if (!inherits(measurements, "gbees_measurements")) {
      abort_arg("{.arg measurements} must come from {.fn gbees_measurements}.", call)
    }
    validate_gbees_measurements(measurements, "measurements", call)
    if (measurements$time[1L] < t0 || max(measurements$time) > max(times)) {
      abort_arg("Measurement times must lie between {.arg t0} and the last of {.arg times}.", call)
    }
    gbees_check_measurements(measurements, model, call)
  }
  check_scalar(threshold, "threshold", call, 0)
  if (threshold >= 1) abort_arg("{.arg threshold} must be below 1.", call)
  check_scalar(cfl, "cfl", call, 0, open = TRUE)
  if (cfl > 1) abort_arg("{.arg cfl} must be at most 1 (the scheme is stable up to a Courant number of 1).", call)
  check_scalar(prune_every, "prune_every", call, 1)
  max_int <- .Machine$integer.max
  if (prune_every != round(prune_every) || prune_every > max_int) {
    abort_arg("{.arg prune_every} must be a whole number of steps, at most {max_int}.", call)
  }
  # counted in double: a wide density or narrow cells may exceed the integers
  half_width <- round(3 * sqrt(diag(start$cov)) / dx)
  if (prod(2 * half_width + 1) > 2^30) {
    abort_arg("The initial box of +-3 standard deviations has {format(prod(2 * half_width + 1))} cells; use wider cells.", call)
  }
  half_width <- as.integer(half_width)
  native <- list(center = start$x0, dx = dx, prec = chol2inv(start$cov_chol), half_width = half_width,
                 threshold = as.double(threshold), cfl = as.double(cfl), prune_every = as.integer(prune_every),
                 t0 = as.double(t0))
  c(start, list(dx = dx, native = native))
}

gbees_snapshot_take <- function(ptr, time, posterior) {
  cells <- .Call(gs_r_gbees_cells, ptr)
  list(time = time, posterior = posterior, keys = cells$keys, prob = cells$prob, info = gbees_info(ptr))
}

gbees_info <- function(ptr) {
  info <- .Call(gs_r_gbees_info, ptr)
  c(as.list(info$values), list(phase_seconds = info$phase_seconds))
}

# Cell centres of integer keys (one row per cell).
gbees_centers <- function(keys, spec) {
  keys * rep(spec$dx, each = nrow(keys)) + rep(spec$x0, each = nrow(keys))
}

# The snapshot at `time` (the last one when NULL); at a measurement time the
# one after the update unless posterior = FALSE.
gbees_snapshot <- function(object, time, posterior, call) {
  check_flag(posterior, "posterior", call)
  t_all <- vapply(object$snapshots, `[[`, 0, "time")
  if (is.null(time)) time <- t_all[length(t_all)]
  check_scalar(time, "time", call)
  at <- which(abs(t_all - time) <= 1e-9 * max(1, abs(time)))
  if (!length(at)) abort_arg("No density was recorded at time {time}; the recorded times are {unique(t_all)}.", call)
  post <- vapply(object$snapshots[at], `[[`, TRUE, "posterior")
  pick <- if (posterior) at[length(at)] else c(at[!post], at)[1L]
  object$snapshots[[pick]]
}
