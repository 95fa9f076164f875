# GBEES: the published Lorenz '63 case end to end (x0 = (-11.5, -10, 9.5),
# sd 1, cells 0.5, threshold 1e-7, measurement x3 = -8 with sd 1 at t = 1, end
# at t = 2) on the GPU, on all cores and on one core, with the Bhattacharyya
# coefficient at t = 1 against a Monte Carlo reference binned on the grid's
# cells (and on blocks of 4^3 cells; inst/bench/gbees_accuracy.R has the
# kernel-smoothed coefficient and its bar); and the Lorenz '96 6-D case (F = 4,
# sd 0.2, cells 0.1, threshold 8e-9) for its cell-update rate: to a short
# end time on the CPU and a longer one on the GPU. On the GPU the Lorenz '63
# case also runs with the model given as C expressions (compiled at run
# time in every call, which the time includes). The CPU runs use all cores
# and one thread, for the speed-up of the CPU path, with the wall time of
# each phase of a run (gbees()'s info$phase_seconds).
#
#   Rscript inst/bench/gbees.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gbees_reps       timed repeats of the Lorenz '63 case (default 3)
#   gbees_mc_n       Monte Carlo samples (default 1e5)
#   gbees_l96_t      end time of the Lorenz '96 runs on the CPU, on all cores and on one
#                    (default 0.05; 0 skips them)
#   gbees_l96_dx     cell width of the Lorenz '96 runs (default 0.1; 0.2 gives a small grid,
#                    7^6 initial cells instead of 13^6)
#   gbees_l96_gpu_t  end time of the Lorenz '96 run on the GPU (default 0.3; 0 skips it)
#   gbees_l96_bc_bins  cells per bin side for the Bhattacharyya coefficients of the GPU
#                    Lorenz '96 run against gbees_mc_n Monte Carlo samples, e.g. 1,4,8
#                    (default 0: none)
#   gbees_l96_kde    sampled cells for the kernel-smoothed coefficient of that run (with its
#                    standard error, the one-sided variant and the exact-agreement reference;
#                    default 0: none; it needs gbees_l96_bc_bins > 0)
#   gbees_threads    thread counts of the CPU runs, e.g. 1,16 (default: all cores, then 1)
#   gbees_gpu        0 skips the GPU runs (default 1: run them where there is a GPU)
#   gbees_bc         0 skips the Monte Carlo reference and the coefficients (default 1)
#
# The CPU path's scaling alone, per phase, on 1 and 16 threads:
#   Rscript inst/bench/gbees.R --gbees_threads=1,16 --gbees_gpu=0 --gbees_bc=0

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

bench_l63_expressions <- gbees_model(c("sigma * (x2 - x1)", "-x2 - x1 * x3", "-b * x3 + x1 * x2 - b * r"), n = 3,
                                     par = c(sigma = 4, b = 1, r = 48), name = "Lorenz '63 as expressions")

bench_gbees_l63 <- function(device, threads, model = lorenz63()) {
  old <- options(gpustats.threads = threads)
  on.exit(options(old))
  gbees(model, x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(1, 2),
        measurements = gbees_measurements(1, -8, 3, 1), threshold = 1e-7, device = device)
}

bench_gbees_l96 <- function(device, t_end, threads = NULL, dx = 0.1) {
  old <- options(gpustats.threads = threads)
  on.exit(options(old))
  gbees(lorenz96(6, 4), x0 = c(4.5, 4, 4, 4, 4, 4), cov = diag(0.04, 6), dx = dx, times = t_end,
        threshold = 8e-9, device = device)
}

bench_gbees <- function(reps = bench_opt("gbees_reps", 3, 1), mc_n = bench_opt("gbees_mc_n", 1e5, 1e4),
                        l96_t = bench_opt("gbees_l96_t", 0.05, 0), l96_dx = bench_opt("gbees_l96_dx", 0.1),
                        l96_gpu_t = bench_opt("gbees_l96_gpu_t", 0.3, 0),
                        l96_bc_bins = bench_opt("gbees_l96_bc_bins", 0, 0), l96_kde = bench_opt("gbees_l96_kde", 0, 0),
                        cpu_threads = bench_opt("gbees_threads", 0), use_gpu = bench_opt("gbees_gpu", 1),
                        with_bc = bench_opt("gbees_bc", 1)) {
  rows <- list()
  add <- function(case, device, threads, fit, seconds, setup = 0, bc = NA, bc4 = NA) {
    rows[[length(rows) + 1L]] <<- cbind(data.frame(
      case = case, device = device, threads = threads, seconds = seconds, setup = setup, steps = fit$info$steps,
      peak_cells = fit$info$peak_cells, cell_updates_per_s = fit$info$cell_updates / (seconds - setup), bc = bc,
      bc_4 = bc4), as.data.frame(as.list(stats::setNames(fit$info$phase_seconds,
                                                        paste0("phase_", names(fit$info$phase_seconds))))))
  }
  gpu <- use_gpu != 0 && bench_gpu_ok("GBEES GPU benchmarks")
  all_threads <- bench_cpu_threads()
  if (all(cpu_threads > 0)) all_threads <- as.integer(max(cpu_threads))
  thread_counts <- if (all(cpu_threads > 0)) as.integer(cpu_threads) else unique(c(all_threads, 1L))
  runs <- rbind(if (gpu) data.frame(device = "gpu", threads = NA_integer_),
                data.frame(device = "cpu", threads = thread_counts))
  mc <- NULL
  for (r in seq_len(nrow(runs))) {
    device <- runs$device[r]
    threads <- if (is.na(runs$threads[r])) all_threads else runs$threads[r]
    fit <- NULL
    # the first GPU call creates the device context: a warm-up run
    seconds <- bench_time(function() fit <<- bench_gbees_l63(device, threads), reps = reps,
                          warmup = as.integer(device == "gpu"))
    bc <- bc4 <- NA
    if (with_bc != 0 && (r == 1L || (device == "cpu" && threads == all_threads))) {
      if (is.null(mc)) {
        set.seed(1)
        mc_device <- if (gpu) "gpu" else "cpu"
        mc_seconds <- system.time(mc <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = 1,
                                                 n = mc_n, device = mc_device))[["elapsed"]]
        message(sprintf("Lorenz '63 Monte Carlo (%s): %s samples in %.2f s", mc_device, fmt_n(mc_n), mc_seconds))
      }
      bc <- bhattacharyya(fit, mc, time = 1, method = "bins", reference = FALSE)$coefficient
      bc4 <- bhattacharyya(fit, mc, time = 1, method = "bins", bin = 4, reference = FALSE)$coefficient
    }
    add("Lorenz '63, to t = 2 with the update at t = 1", device, runs$threads[r], fit, seconds, bc = bc, bc4 = bc4)
  }
  if (gpu) {
    fit <- NULL
    seconds <- bench_time(function() fit <<- bench_gbees_l63("gpu", all_threads, bench_l63_expressions), reps = reps)
    add("Lorenz '63 as above, the model given as C expressions", "gpu", NA, fit, seconds)
  }
  l96_bc <- NULL
  l96_runs <- rbind(if (gpu && l96_gpu_t > 0) data.frame(device = "gpu", threads = NA_integer_),
                    if (l96_t > 0) data.frame(device = "cpu", threads = thread_counts))
  for (r in seq_len(NROW(l96_runs))) {
    device <- l96_runs$device[r]
    threads <- if (is.na(l96_runs$threads[r])) all_threads else l96_runs$threads[r]
    t_end <- if (device == "gpu") l96_gpu_t else l96_t
    fit <- NULL
    # the initial grid (13^6 cells) on its own, to separate it from the steps
    setup <- system.time(bench_gbees_l96(device, 0, threads, l96_dx))[["elapsed"]]
    seconds <- system.time(fit <- bench_gbees_l96(device, t_end, threads, l96_dx))[["elapsed"]]
    add(sprintf("Lorenz '96 6-D%s, to t = %g", if (l96_dx != 0.1) sprintf(" (cells %g)", l96_dx) else "", t_end), device, l96_runs$threads[r], fit, seconds, setup = setup)
    if (device == "gpu" && any(l96_bc_bins > 0)) l96_bc <- bench_gbees_l96_bc(fit, t_end, mc_n, l96_bc_bins, l96_kde)
  }
  res <- do.call(rbind, rows)
  attr(res, "l96_bc") <- l96_bc
  res
}

# Bhattacharyya coefficients of a Lorenz '96 density at t_end against Monte
# Carlo samples, on bins of b^6 cells for each b, and with kde > 0 the
# kernel-smoothed one estimated from kde sampled cells (attribute "kde").
bench_gbees_l96_bc <- function(fit, t_end, n, bins, kde = 0) {
  set.seed(1)
  mc <- gbees_mc(lorenz96(6, 4), x0 = c(4.5, 4, 4, 4, 4, 4), cov = diag(0.04, 6), times = t_end, n = n, device = "gpu")
  res <- data.frame(time = t_end, n = n, bin = bins,
                    bc = vapply(bins, function(b) {
                      bhattacharyya(fit, mc, time = t_end, method = "bins", bin = b, reference = FALSE)$coefficient
                    }, 0))
  if (kde > 0) {
    seconds <- system.time(k <- bhattacharyya(fit, mc, time = t_end, method = "kde", max_cells = kde))[["elapsed"]]
    attr(res, "kde") <- c(k[c("coefficient", "coefficient_se", "one_sided", "one_sided_se", "reference", "reference_se",
                              "evaluated", "cells")], seconds = seconds)
  }
  res
}

gbees_tables <- function(res) {
  where <- ifelse(res$device == "gpu", "GPU", sprintf("CPU, %d thread%s", res$threads, ifelse(res$threads == 1, "", "s")))
  df <- data.frame(case = res$case, device = where, seconds = fmt_sec(res$seconds),
                   `of which set-up` = ifelse(res$setup > 0, fmt_sec(res$setup), "-"), steps = res$steps,
                   `peak cells` = fmt_n(res$peak_cells), `cell updates/s in steps` = fmt_rate(res$cell_updates_per_s),
                   `per core` = ifelse(res$device == "gpu", "-", fmt_rate(res$cell_updates_per_s / res$threads)),
                   `BC t=1` = fmt_g(res$bc, 3), `BC t=1, 4^3 bins` = fmt_g(res$bc_4, 3), check.names = FALSE)
  l63 <- res[grepl("63, to", res$case), ]
  ratio <- function(a, b) if (length(a) == 1L && length(b) == 1L) sprintf("%.1fx", b / a) else "n/a"
  c("## GBEES", "",
    "Published Lorenz '63 and Lorenz '96 cases, end to end (grid set-up, propagation, measurement update and",
    "read-out). The Lorenz '96 set-up (its initial grid) is timed on its own and left out of the cell-update",
    "rate. BC: Bhattacharyya coefficient against Monte Carlo samples binned on the grid's cells (and on blocks",
    "of 4 x 4 x 4 cells).", "",
    md_table(df, "llrrrrrrrr"), "",
    sprintf("Lorenz '63: GPU against one CPU core %s, against all cores %s.",
            ratio(l63$seconds[l63$device == "gpu"], l63$seconds[l63$device == "cpu" & l63$threads == 1]),
            ratio(l63$seconds[l63$device == "gpu"],
                  l63$seconds[l63$device == "cpu" & l63$threads == max(l63$threads, na.rm = TRUE)])),
    gbees_l96_bc_line(attr(res, "l96_bc")), "", gbees_cpu_scaling(res))
}

# The CPU path's speed-up on all cores against one thread, and the wall time
# of each phase of every CPU run.
gbees_cpu_scaling <- function(res) {
  cpu <- res[res$device == "cpu", ]
  if (!nrow(cpu)) return(character())
  top <- max(cpu$threads)
  lines <- vapply(unique(cpu$case), function(case) {
    one <- cpu[cpu$case == case & cpu$threads == 1, ]
    all <- cpu[cpu$case == case & cpu$threads == top, ]
    if (nrow(one) != 1L || nrow(all) != 1L || top == 1L) return(NA_character_)
    steps <- function(r) r$seconds - r$setup
    sprintf("%s: %d threads against 1, %.1fx (%s s against %s s)%s.", case, top, one$seconds / all$seconds,
            fmt_sec(all$seconds), fmt_sec(one$seconds),
            if (one$setup > 0) sprintf("; without the set-up, %.1fx", steps(one) / steps(all)) else "")
  }, "")
  phases <- grep("^phase_", names(cpu), value = TRUE)
  df <- data.frame(case = cpu$case, threads = cpu$threads, seconds = fmt_sec(cpu$seconds), check.names = FALSE)
  for (p in phases) df[[sub("^phase_", "", p)]] <- ifelse(cpu[[p]] > 0, fmt_sec(cpu[[p]]), "-")
  c("CPU path, speed-up on all cores:", "", paste0("- ", lines[!is.na(lines)]), "",
    "Wall time of each phase, seconds (the last call of each run; the rest is R's own work, such as reading",
    "out the density at each requested time):", "", md_table(df, paste0("lrr", strrep("r", length(phases)))))
}

gbees_l96_bc_line <- function(bc) {
  if (is.null(bc)) return(character())
  k <- attr(bc, "kde")
  c("", sprintf("Lorenz '96 on the GPU at t = %g, Bhattacharyya coefficient against %s Monte Carlo samples: %s.",
                bc$time[1], fmt_n(bc$n[1]),
                paste(sprintf("%.3f on blocks of %d^6 cells", bc$bc, bc$bin), collapse = ", ")),
    if (!is.null(k)) {
      sprintf(paste("Kernel-smoothed (%s of %s cells sampled, %.0f s): %.4f (standard error %.2g), one-sided %.4f",
                    "(%.2g), exact-agreement reference %.4f (%.2g)."), fmt_n(k$evaluated), fmt_n(k$cells), k$seconds,
              k$coefficient, k$coefficient_se, k$one_sided, k$one_sided_se, k$reference, k$reference_se)
    })
}

gbees_long <- function(res) {
  bench_row(paste("gbees", res$case), res$peak_cells, ifelse(res$device == "gpu", "gpu", paste0("cpu", res$threads)),
            res$seconds, res$cell_updates_per_s)
}

if (sys.nframe() == 0L) {
  res <- bench_gbees()
  cat(gbees_tables(res), sep = "\n")
}
