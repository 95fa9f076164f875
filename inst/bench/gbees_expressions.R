# GBEES on the CPU with the Lorenz '63 model given three ways: built in, as C
# expressions (compiled at run time with the package's field arithmetic) and
# as an R function (called from the native code with the states of the new
# cells). The published case (x0 = (-11.5, -10, 9.5), sd 1, cells 0.5,
# threshold 1e-7) to a short end time, median of repeats, on one thread by
# default so that the figures are per core. The same field written as
# time-dependent (plus 0 * t) has its velocities recomputed for every cell
# at every step, which is where a call into R per step costs most. The
# expression model's compilation (first use in the session) is timed apart
# as compile_s; the timed runs reuse the library.
#
# The second table times one measurement update of range and bearing,
# (sqrt(x1^2 + x2^2), atan2(x2, x1)) with correlated noise, on the grid of
# that case at gbees_meas_t, its measurement function given as an R function
# (the cell centres go to R) and as C expressions (compiled, evaluated on the
# grid's device), with a measurement of the states x1 and x2 (the package's
# own code) beside them; on the CPU and, when there is one, on the GPU
# (wall time of the whole update: likelihoods, Bayes' rule, pruning), each
# repeat on a fresh grid (an update prunes, so a second one on the same grid
# would see fewer cells); prepare_s is the preparation of the measurement
# (its compilation: R's C compiler once per session on the CPU, NVRTC once
# per gbees() call on a GPU).
#
#   Rscript inst/bench/gbees_expressions.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gbees_expr_t        end time (default 1)
#   gbees_expr_reps     timed repeats (default 3)
#   gbees_expr_threads  CPU threads (default 1)
#   gbees_meas_t        time of the grid the measurement updates (default 1)
#   gbees_meas_reps     timed updates (default 3)

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

bench_l63_models <- function() {
  text <- c("sigma * (x2 - x1)", "-x2 - x1 * x3", "-b * x3 + x1 * x2 - b * r")
  par <- c(sigma = 4, b = 1, r = 48)
  f <- function(x, t) cbind(4 * (x[, 2] - x[, 1]), -x[, 2] - x[, 1] * x[, 3], -x[, 3] + x[, 1] * x[, 2] - 48)
  list("built in, lorenz63()" = lorenz63(),
       "C expressions" = gbees_model(text, n = 3, par = par),
       "R function" = gbees_model(f, n = 3),
       "C expressions, time-dependent" = gbees_model(paste(text, "+ 0 * t"), n = 3, par = par),
       "R function, time-dependent" = gbees_model(f, n = 3, autonomous = FALSE))
}

bench_gbees_expressions <- function(t_end = bench_opt("gbees_expr_t", 1, 0.2),
                                    reps = bench_opt("gbees_expr_reps", 3, 1),
                                    threads = bench_opt("gbees_expr_threads", 1, 1)) {
  old <- options(gpustats.threads = as.integer(threads))
  on.exit(options(old))
  models <- bench_l63_models()
  run <- function(model) {
    gbees(model, x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = t_end, threshold = 1e-7, device = "cpu")
  }
  rows <- lapply(names(models), function(name) {
    compile_s <- system.time(gpustats:::gbees_model_native(models[[name]], -1L, NULL))[["elapsed"]]
    fit <- NULL
    seconds <- bench_time(function() fit <<- run(models[[name]]), reps = reps, warmup = 0)
    data.frame(model = name, threads = as.integer(threads), t_end = t_end, seconds = signif(seconds, 4),
               compile_s = signif(compile_s, 3), steps = fit$info$steps, peak_cells = fit$info$peak_cells,
               cell_updates_per_s = signif(fit$info$cell_updates / seconds, 4))
  })
  out <- do.call(rbind, rows)
  out$vs_builtin <- signif(out$seconds / out$seconds[1L], 3)
  out
}

# A grid of the published Lorenz '63 case at t_end on `device` (-1: the CPU).
bench_l63_grid <- function(t_end, device) {
  spec <- gpustats:::gbees_spec(lorenz63(), c(-11.5, -10, 9.5), diag(3), 0.5, t_end, NULL, 1e-7, 1, 20L, 0, NULL)
  ptr <- .Call(gpustats:::gs_r_gbees_new, gpustats:::gbees_model_native(lorenz63(), device, NULL), spec$native,
               gpustats:::gs_threads(NULL), device, NULL)
  .Call(gpustats:::gs_r_gbees_propagate, ptr, t_end, NULL)
  list(ptr = ptr, spec = spec)
}

bench_gbees_measurements <- function(t_end = bench_opt("gbees_meas_t", 1, 1),
                                     reps = bench_opt("gbees_meas_reps", 3, 1),
                                     threads = bench_opt("gbees_expr_threads", 1, 1)) {
  old <- options(gpustats.threads = as.integer(threads))
  on.exit(options(old))
  y <- c(16, -2.4)
  noise <- matrix(c(2, 0.3, 0.3, 0.05), 2)
  h <- list("R function" = function(x) cbind(sqrt(x[, 1]^2 + x[, 2]^2), atan2(x[, 2], x[, 1])),
            "C expressions" = c("sqrt(x1*x1 + x2*x2)", "atan2(x2, x1)"),
            "states x1, x2" = c(1, 2))
  devices <- c(cpu = -1L, if (bench_gpu_ok("GPU measurement updates")) c(gpu = 0L))
  rows <- lapply(names(devices), function(dev_name) {
    device <- devices[[dev_name]]
    out <- lapply(names(h), function(name) {
      meas <- gbees_measurements(t_end, y, h[[name]], noise)
      native <- NULL
      prepare_s <- system.time(native <- gpustats:::gbees_measurement_native(meas, device, lorenz63(), NULL))[[3L]]
      cells <- 0
      seconds <- stats::median(vapply(seq_len(reps + 1L), function(r) {
        grid <- bench_l63_grid(t_end, device)
        cells <<- gpustats:::gbees_info(grid$ptr)$cells
        system.time(gpustats:::gbees_update(grid$ptr, meas, native, 1L, grid$spec, NULL))[["elapsed"]]
      }, 0)[-1L]) # the first update warms up
      data.frame(measurement = name, device = dev_name, threads = as.integer(threads), cells = cells,
                 seconds = signif(seconds, 4), prepare_s = signif(prepare_s, 3),
                 cells_per_s = signif(cells / seconds, 4))
    })
    out <- do.call(rbind, out)
    out$vs_r_function <- signif(out$seconds[1L] / out$seconds, 3)
    out
  })
  do.call(rbind, rows)
}

if (sys.nframe() == 0L) {
  print(bench_gbees_expressions(), row.names = FALSE)
  print(bench_gbees_measurements(), row.names = FALSE)
}
