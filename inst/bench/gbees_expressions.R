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
#   Rscript inst/bench/gbees_expressions.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gbees_expr_t        end time (default 1)
#   gbees_expr_reps     timed repeats (default 3)
#   gbees_expr_threads  CPU threads (default 1)

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

if (sys.nframe() == 0L) print(bench_gbees_expressions(), row.names = FALSE)
