# GBEES accuracy bars: the Bhattacharyya coefficient of a GBEES density against
# Monte Carlo samples, kernel-smoothed (method "kde", the bar: >= 0.95) and
# binned on the grid's cells, each with its exact-agreement reference (the same
# measure for as many samples drawn from the grid density itself).
#   Lorenz '63: x0 = (-11.5, -10, 9.5), sd 1, cells 0.5, threshold 1e-7, t = 1
#     (the density before the update of the published case)
#   Lorenz '96: n = 6, F = 4, x0 = (4.5, 4, ..., 4), sd 0.2, cells 0.1,
#     threshold 8e-9, t = 1.3
#
#   Rscript inst/bench/gbees_accuracy.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gbees_acc_cases   l63, l96 or both (default "l63,l96")
#   gbees_acc_device  device of the propagation, Monte Carlo and kernel sums (default "auto")
#   gbees_mc_n        Monte Carlo samples (default 1e5)
#   gbees_acc_bins    cells per bin side of the binned coefficient (default 1,4)
#   gbees_l96_t       end time of the Lorenz '96 case (default 1.3)
#   gbees_l96_dx      cell width of the Lorenz '96 case (default 0.1)
#   gbees_acc_max_cells  cells at which the kernel sums run exactly; a larger grid is
#                     estimated from this many sampled cells (default 1e6)
#
# GPUSTATS_BENCH_QUICK=1 checks the script in about a minute on one core: 1e4
# samples, a coarse Lorenz '96 grid (cells 0.2 wide, 7^6 initial cells instead
# of 13^6) to t = 0.1, and kernel-smoothed coefficients estimated from 2,000
# sampled cells; its figures are not the cases'.

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

gbees_acc_case <- function(case, t_l96, dx_l96) {
  switch(case,
         l63 = list(name = "Lorenz '63", model = lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5,
                    threshold = 1e-7, time = 1),
         l96 = list(name = "Lorenz '96 6-D", model = lorenz96(6, 4), x0 = c(4.5, rep(4, 5)), cov = diag(0.04, 6),
                    dx = dx_l96, threshold = 8e-9, time = t_l96),
         stop("unknown case ", case))
}

# One case: the propagation, the samples, then each coefficient with its timing.
gbees_acc_run <- function(case, device, n, bins, max_cells) {
  timed <- function(expr) {
    t0 <- proc.time()[["elapsed"]]
    value <- expr
    list(value = value, seconds = proc.time()[["elapsed"]] - t0)
  }
  fit <- timed(gbees(case$model, x0 = case$x0, cov = case$cov, dx = case$dx, times = case$time,
                     threshold = case$threshold, device = device))
  set.seed(1)
  mc <- timed(gbees_mc(case$model, x0 = case$x0, cov = case$cov, times = case$time, n = n, device = device))
  message(sprintf("%s: GBEES %.2f s (%s cells at t = %g), Monte Carlo %.2f s", case$name, fit$seconds,
                  fmt_n(length(fit$value$snapshots[[1]]$prob)), case$time, mc$seconds))
  measures <- c(list(list(method = "kde", bin = NA)), lapply(bins, function(b) list(method = "bins", bin = b)))
  rows <- lapply(measures, function(m) {
    set.seed(2)
    bc <- timed(bhattacharyya(fit$value, mc$value, time = case$time, method = m$method,
                              bin = if (is.na(m$bin)) 1 else m$bin, max_cells = max_cells, device = device))
    b <- bc$value
    message(sprintf("  %s %s: %.4f (reference %.4f), %.1f s", m$method, if (is.na(m$bin)) "" else m$bin,
                    b$coefficient, b$reference, bc$seconds))
    data.frame(case = case$name, time = case$time, cells = b$cells, samples = b$samples,
               measure = if (m$method == "kde") "kde (Scott)" else
                 sprintf("bins, %d cell%s a side", m$bin, if (m$bin == 1) "" else "s"),
               coefficient = b$coefficient, se = b$coefficient_se, reference = b$reference,
               one_sided = b$one_sided, seconds = bc$seconds, gbees_seconds = fit$seconds)
  })
  do.call(rbind, rows)
}

bench_gbees_accuracy <- function(cases = bench_opt("gbees_acc_cases", "l63,l96"),
                                 device = bench_opt("gbees_acc_device", "auto"),
                                 n = bench_opt("gbees_mc_n", 1e5, 1e4), bins = bench_opt("gbees_acc_bins", c(1, 4)),
                                 t_l96 = bench_opt("gbees_l96_t", 1.3, 0.1),
                                 dx_l96 = bench_opt("gbees_l96_dx", 0.1, 0.2),
                                 max_cells = bench_opt("gbees_acc_max_cells", 1e6, 2e3)) {
  cases <- strsplit(cases, ",", fixed = TRUE)[[1]]
  do.call(rbind, lapply(cases, function(k) gbees_acc_run(gbees_acc_case(k, t_l96, dx_l96), device, n, bins, max_cells)))
}

gbees_accuracy_table <- function(res) {
  df <- data.frame(case = res$case, t = res$time, cells = fmt_n(res$cells), samples = fmt_n(res$samples),
                   measure = res$measure,
                   coefficient = ifelse(res$se > 0, sprintf("%.4f +- %.4f", res$coefficient, res$se),
                                        sprintf("%.4f", res$coefficient)),
                   `exact-agreement reference` = sprintf("%.5f", res$reference),
                   `one-sided` = ifelse(is.na(res$one_sided), "-", sprintf("%.4f", res$one_sided)),
                   `bar >= 0.95` = ifelse(res$measure != "kde (Scott)", "-",
                                          ifelse(res$coefficient >= 0.95, "met", "NOT met")),
                   `measure s` = fmt_sec(res$seconds), `GBEES s` = fmt_sec(res$gbees_seconds), check.names = FALSE)
  c("## GBEES accuracy", "",
    sprintf("Device %s (GPU: %s; CPU path: %d threads).", bench_opt("gbees_acc_device", "auto"), bench_gpu_name(),
            bench_cpu_threads()), "",
    md_table(df, "lrrrlrrrlrr"))
}

if (sys.nframe() == 0L) {
  res <- bench_gbees_accuracy()
  cat(gbees_accuracy_table(res), sep = "\n")
}
