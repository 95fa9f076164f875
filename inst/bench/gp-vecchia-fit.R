# gp_fit(approx = "vecchia") end to end: a constant mean, sigma2, range,
# smoothness and nugget estimated by Fisher scoring, at n = 1e5 and 1e6 (the
# data drawn from the Vecchia law itself, m = 30), on the GPU and the CPU path,
# grouped (gp_fit's default, Guinness 2021) and not (--gpv_group=1,0).
#
#   Rscript inst/bench/gp-vecchia-fit.R [--gpv_n=1e5,1e6] [--gpv_devices=gpu,cpu] [--gpv_group=1,0] [--gpv_sim_ordering=random]
#                                       [--gpv_recovery_reps=50] [--gpv_recovery_n=1e5] [--gpv_parts_n=1e5,1e6]
#                                       [--gpv_reuse_n=1e5,1e6] [--gpv_simulate_n=1e5,1e6]
#
# and the recovery of the parameters over replicates (below).
#
# Each fit's line states the peak resident memory of the R process during the
# fit (VmHWM of /proc/self/status, reset before the fit through
# /proc/self/clear_refs; Linux only), the resident memory before it (the
# data), their difference per observation, and on a GPU the device memory
# that the fit's Vecchia object holds after one likelihood with gradient and
# information (the free memory before its opening minus after; opened again
# after the fit, which repeats the ordering: --gpv_gpu_memory=0 skips it).

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

# A draw of y = 1 + S + e from the Vecchia law (sigma2 1, range 0.05,
# smoothness 0.8, nugget 0.1) at n uniform locations.
# The draw takes the ordering `ordering` ("random" spares a second maxmin
# ordering of 1e7 points; the fit orders by maxmin in any case).
gpv_data <- function(n, device, seed = 1, ordering = bench_opt("gpv_sim_ordering", "maxmin")) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  ns <- asNamespace("gpustats")
  vc <- ns$vecchia_open(locs, 30, ordering = ordering, device = device, label = "bench")
  on.exit(ns$vecchia_close(vc))
  ns$vecchia_factor(vc, c(sigma2 = 1, range = 0.05, smoothness = 0.8, nugget = 0.1), label = "bench")
  list(locs = locs, y = 1 + ns$vecchia_apply(vc, rnorm(n), what = "inverse"))
}

# The resident memory of this process now (VmRSS) or at its peak (VmHWM),
# GB; NA where /proc/self/status is missing.
gpv_rss_gb <- function(field = "VmHWM") {
  s <- tryCatch(readLines("/proc/self/status"), error = function(e) character(), warning = function(w) character())
  line <- grep(paste0("^", field, ":"), s, value = TRUE)
  if (!length(line)) return(NA_real_)
  as.numeric(sub("^[A-Za-z]+:[[:space:]]+([0-9]+) kB.*", "\\1", line)) / 2^20
}

# Sets the peak (VmHWM) to the current resident memory (Linux 4.0 and later).
gpv_peak_reset <- function() {
  invisible(tryCatch({
    cat("5", file = "/proc/self/clear_refs")
    TRUE
  }, error = function(e) FALSE, warning = function(w) FALSE))
}

# GPU memory (GB) held by a Vecchia object of the fit's size after one
# likelihood with gradient and information; NA off the GPU.
gpv_gpu_gb <- function(d, group, dev) {
  if (dev != "gpu" || bench_opt("gpv_gpu_memory", 1) != 1) return(NA_real_)
  ns <- asNamespace("gpustats")
  id <- getOption("gpustats.gpus")
  id <- if (is.null(id)) 0L else id[1]
  free <- function() {
    i <- gpu_info()
    i$free_memory[i$id == id]
  }
  before <- free()
  vc <- ns$vecchia_open(d$locs, 30, device = "gpu", group = group, label = "bench")
  on.exit(ns$vecchia_close(vc))
  ns$vecchia_loglik_grad_info(vc, c(sigma2 = 1, range = 0.05, smoothness = 0.8, nugget = 0.1), d$y, matrix(1, length(d$y), 1), label = "bench")
  (before - free()) / 1e9
}

bench_gp_vecchia_fit <- function(sizes = bench_opt("gpv_n", c(1e5, 1e6), 5000),
                                 devices = bench_opt("gpv_devices", if (gpu_available()) "gpu,cpu" else "cpu"),
                                 groups = bench_opt("gpv_group", c(1, 0))) {
  devices <- strsplit(devices, ",", fixed = TRUE)[[1]]
  rows <- NULL
  for (n in Filter(function(n) n > 0, sizes)) {
    d <- gpv_data(n, devices[1])
    for (dev in devices) for (group in groups == 1) {
      invisible(gc())
      rss <- gpv_rss_gb("VmRSS")
      gpv_peak_reset()
      t <- system.time(f <- gp_fit(d$y, d$locs, approx = "vecchia", m = 30, group = group, device = dev,
                                   control = list(trace = FALSE)))[["elapsed"]]
      peak <- gpv_rss_gb("VmHWM")
      gpu <- gpv_gpu_gb(d, group, dev)
      message(sprintf(paste("gp_fit Vecchia m = 30%s, n = %s on the %s: %.1f s, %d iterations, %d evaluations; logLik %.3f; %s;",
                            "peak RSS %.2f GB (%.2f GB before: %.0f bytes a point more), GPU memory %s GB"),
                      if (group) " grouped" else "", fmt_n(n), dev, t, f$iterations, f$evaluations, f$loglik,
                      paste(names(f$covariance), signif(f$covariance, 4), collapse = " "),
                      peak, rss, (peak - rss) * 2^30 / n, format(round(gpu, 2))))
      rows <- rbind(rows, data.frame(n = n, device = dev, grouped = group, seconds = t, iterations = f$iterations,
                                     evaluations = f$evaluations, t(f$covariance), rss_before_gb = rss, peak_rss_gb = peak,
                                     peak_bytes_per_point = (peak - rss) * 2^30 / n, gpu_gb = gpu))
    }
  }
  rows
}

# Where a fit's time goes, grouped and not, on one device: the ordering and
# neighbour search, the grouping pass, the opening (uploads), and one
# likelihood with gradient and information (fastest of `reps`), each timed
# alone through the package's internals (a diagnostic: the headline is the
# fit above). --gpv_parts_n=0 skips it.
bench_gp_vecchia_parts <- function(sizes = bench_opt("gpv_parts_n", c(1e5, 1e6), 5000),
                                   dev = if (gpu_available()) "gpu" else "cpu", reps = 3) {
  ns <- asNamespace("gpustats")
  p <- c(sigma2 = 1, range = 0.05, smoothness = 0.8, nugget = 0.1)
  rows <- NULL
  for (n in Filter(function(n) n > 0, sizes)) {
    d <- gpv_data(n, dev)
    X <- matrix(1, n, 1)
    t_nb <- system.time(nb <- vecchia_neighbors(d$locs, 30))[["elapsed"]]
    t_group <- system.time(blocks <- ns$vecchia_group(nb$neighbors, environment(), "bench"))[["elapsed"]]
    nb$blocks <- blocks
    for (group in c(FALSE, TRUE)) {
      t_open <- system.time(vc <- ns$vecchia_open(d$locs, 30, device = dev, neighbors = nb, group = group, label = "bench"))[["elapsed"]]
      t_eval <- min(replicate(reps, system.time(ns$vecchia_loglik_grad_info(vc, p, d$y, X, label = "bench"))[["elapsed"]]))
      ns$vecchia_close(vc)
      message(sprintf("Vecchia parts, n = %s, %s%s: neighbours %.3f s, grouping %.3f s, open %.3f s, one evaluation %.4f s",
                      fmt_n(n), dev, if (group) " grouped" else "", t_nb, t_group, t_open, t_eval))
      rows <- rbind(rows, data.frame(n = n, device = dev, grouped = group, neighbors_s = t_nb,
                                     grouping_s = if (group) t_group else 0, open_s = t_open, evaluation_s = t_eval))
    }
  }
  rows
}

# Recovery: replicates drawn from the Vecchia law of the fitted model (maxmin
# ordering, m = 30: the law the fit assumes), each fitted; the fraction of
# replicates whose estimate lies within two standard errors (inverse Fisher
# information) of the truth, per parameter.
bench_gp_vecchia_recovery <- function(reps = bench_opt("gpv_recovery_reps", 50, 3),
                                      n = bench_opt("gpv_recovery_n", 1e5, 2000)) {
  if (reps < 1) return(NULL)
  dev <- if (gpu_available()) "gpu" else "cpu"
  truth <- c(sigma2 = 1, range = 0.05, smoothness = 0.8, nugget = 0.1)
  within <- matrix(NA, reps, 4, dimnames = list(NULL, names(truth)))
  t0 <- proc.time()[["elapsed"]]
  for (r in seq_len(reps)) {
    d <- gpv_data(n, dev, seed = 100 + r, ordering = "maxmin")
    f <- gp_fit(d$y, d$locs, approx = "vecchia", m = 30, device = dev, control = list(trace = FALSE))
    se <- sqrt(diag(f$vcov))[names(truth)]
    within[r, ] <- abs(f$covariance[names(truth)] - truth) <= 2 * se
    if (r %% 10 == 0) message(sprintf("recovery: %d of %d replicates, %.0f s", r, reps, proc.time()[["elapsed"]] - t0))
  }
  out <- data.frame(parameter = names(truth), truth = truth, within_2se = colMeans(within), replicates = reps, n = n,
                    device = dev, seconds_per_replicate = (proc.time()[["elapsed"]] - t0) / reps)
  out$all_within_2se <- mean(apply(within, 1, all))
  out
}

# Repeated likelihoods at the same locations (an optimizer, a profile,
# MCMC) through the public API: the structure made once by
# vecchia_neighbors(), the first vecchia_loglik() on it (the grouping and
# the opening), each later one (median of `reps`), against the call with
# the locations, which orders, searches and groups each time; constant
# mean, grouped and not. --gpv_reuse_n=1e5,1e6 (0 skips it).
bench_gp_vecchia_reuse <- function(sizes = bench_opt("gpv_reuse_n", c(1e5, 1e6), 5000),
                                   dev = if (gpu_available()) "gpu" else "cpu", reps = 5) {
  p <- c(sigma2 = 1, range = 0.05, smoothness = 0.8, nugget = 0.1)
  loglik <- function(d, locs, group) {
    vecchia_loglik(d$y, locs, p[["sigma2"]], p[["range"]], p[["smoothness"]], p[["nugget"]], X = matrix(1, length(d$y), 1),
                   device = dev, group = group)
  }
  rows <- NULL
  for (n in Filter(function(n) n > 0, sizes)) {
    d <- gpv_data(n, dev)
    for (group in c(TRUE, FALSE)) {
      t_structure <- system.time(nb <- vecchia_neighbors(d$locs, 30))[["elapsed"]]
      t_first <- system.time(loglik(d, nb, group))[["elapsed"]]
      t_reuse <- stats::median(replicate(reps, system.time(loglik(d, nb, group))[["elapsed"]]))
      t_call <- system.time(loglik(d, d$locs, group))[["elapsed"]]
      message(sprintf(paste("vecchia_loglik reused, m = 30%s, n = %s on the %s: structure %.2f s, first call %.3f s,",
                            "then %.4f s an evaluation; with the locations %.2f s a call"),
                      if (group) " grouped" else "", fmt_n(n), dev, t_structure, t_first, t_reuse, t_call))
      rows <- rbind(rows, data.frame(n = n, device = dev, grouped = group, structure_s = t_structure, first_call_s = t_first,
                                     reused_call_s = t_reuse, call_with_locs_s = t_call))
    }
  }
  rows
}

# gp_simulate(approx = "vecchia") end to end at uniform locations: the
# ordering, the conditioning sets, the factor and nsim draws (sigma2 1,
# range 0.05, smoothness 0.8, nugget 0.1, m = 30). --gpv_simulate_n=0 skips it.
bench_gp_vecchia_simulate <- function(sizes = bench_opt("gpv_simulate_n", c(1e5, 1e6), 5000),
                                      dev = if (gpu_available()) "gpu" else "cpu", nsim = 1) {
  rows <- NULL
  for (n in Filter(function(n) n > 0, sizes)) {
    set.seed(1)
    locs <- matrix(runif(2 * n), ncol = 2)
    t <- system.time(d <- gp_simulate(locs, 1, 0.05, 0.8, nugget = 0.1, nsim = nsim, approx = "vecchia", device = dev))
    message(sprintf("gp_simulate Vecchia m = 30, n = %s, %d draw(s), %s: %.2f s", fmt_n(n), nsim, dev, t[["elapsed"]]))
    rows <- rbind(rows, data.frame(n = n, device = dev, nsim = nsim, seconds = t[["elapsed"]]))
  }
  rows
}

if (sys.nframe() == 0L) {
  print(bench_gp_vecchia_simulate())
  print(bench_gp_vecchia_parts())
  print(bench_gp_vecchia_fit())
  print(bench_gp_vecchia_recovery())
  print(bench_gp_vecchia_reuse())
}
