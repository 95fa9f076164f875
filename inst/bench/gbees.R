# GBEES on the CPU: the published Lorenz '63 case end to end (x0 =
# (-11.5, -10, 9.5), sd 1, cells 0.5, threshold 1e-7, measurement x3 = -8 with
# sd 1 at t = 1, end at t = 2) on all cores and on one core, with the
# Bhattacharyya coefficient at t = 1 against a Monte Carlo reference binned on
# the grid's cells (and on blocks of 4^3 cells); and the first part of the
# Lorenz '96 6-D case (F = 4, sd 0.2, cells 0.1, threshold 8e-9) for its
# cell-update rate.
#
#   Rscript inst/bench/gbees.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gbees_reps   timed repeats of the Lorenz '63 case (default 3)
#   gbees_mc_n   Monte Carlo samples (default 1e5)
#   gbees_l96_t  end time of the Lorenz '96 run (default 0.05; 0 skips it)

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

bench_gbees_l63 <- function(threads) {
  old <- options(gpustats.threads = threads)
  on.exit(options(old))
  gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(1, 2),
        measurements = gbees_measurements(1, -8, 3, 1), threshold = 1e-7, device = "cpu")
}

bench_gbees <- function(reps = bench_opt("gbees_reps", 3, 1), mc_n = bench_opt("gbees_mc_n", 1e5, 1e4),
                        l96_t = bench_opt("gbees_l96_t", 0.05, 0)) {
  rows <- list()
  add <- function(case, threads, fit, seconds, bc = NA, bc4 = NA) {
    rows[[length(rows) + 1L]] <<- data.frame(
      case = case, threads = threads, seconds = seconds, steps = fit$info$steps, peak_cells = fit$info$peak_cells,
      cell_updates_per_s = fit$info$cell_updates / seconds, bc = bc, bc_4 = bc4)
  }
  all_threads <- bench_cpu_threads()
  for (threads in unique(c(all_threads, 1L))) {
    fit <- NULL
    seconds <- bench_time(function() fit <<- bench_gbees_l63(threads), reps = reps, warmup = 0L)
    bc <- bc4 <- NA
    if (threads == all_threads) {
      set.seed(1)
      mc_seconds <- system.time(mc <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = 1,
                                               n = mc_n, device = "cpu"))[["elapsed"]]
      bc <- bhattacharyya(fit, mc, time = 1)
      bc4 <- bhattacharyya(fit, mc, time = 1, bin = 4)
      message(sprintf("Lorenz '63 Monte Carlo: %s samples in %.2f s", fmt_n(mc_n), mc_seconds))
    }
    add("Lorenz '63, to t = 2 with the update at t = 1", threads, fit, seconds, bc, bc4)
  }
  if (l96_t > 0) {
    x0 <- c(4.5, 4, 4, 4, 4, 4)
    seconds <- system.time(fit <- gbees(lorenz96(6, 4), x0 = x0, cov = diag(0.04, 6), dx = 0.1, times = l96_t,
                                        threshold = 8e-9, device = "cpu"))[["elapsed"]]
    add(sprintf("Lorenz '96 6-D, to t = %g", l96_t), all_threads, fit, seconds)
  }
  do.call(rbind, rows)
}

gbees_tables <- function(res) {
  df <- data.frame(case = res$case, threads = res$threads, seconds = fmt_sec(res$seconds), steps = res$steps,
                   `peak cells` = fmt_n(res$peak_cells), `cell updates/s` = fmt_rate(res$cell_updates_per_s),
                   `BC t=1` = fmt_g(res$bc, 3), `BC t=1, 4^3 bins` = fmt_g(res$bc_4, 3), check.names = FALSE)
  c("## GBEES (CPU)", "",
    "Published Lorenz '63 and Lorenz '96 cases on the package's CPU path. BC: Bhattacharyya coefficient",
    "against Monte Carlo samples binned on the grid's cells (and on blocks of 4 x 4 x 4 cells).", "",
    md_table(df, "lrrrrrrr"))
}

gbees_long <- function(res) {
  bench_row(paste("gbees", res$case), res$peak_cells, paste0("cpu", res$threads), res$seconds,
            res$cell_updates_per_s)
}

if (sys.nframe() == 0L) {
  res <- bench_gbees()
  cat(gbees_tables(res), sep = "\n")
}
