# One likelihood evaluation of a fit of r replicates at the same locations
# (y an n x r matrix in gp_fit): one factorization of the covariance and one
# triangular solve with r + p right-hand sides, against r evaluations of one
# replicate each (what separate fits would pay). The evaluation is timed as a
# gp_fit with every covariance parameter fixed (a constant mean, REML), so it
# includes the fit's set-up; on a GPU the same on the GPU path.
#
#   Rscript inst/bench/gp-fit-replicates.R [--gprep_n=2000] [--gprep_r=1,10,100] [--gprep_reps=3]
#
# Also the whole fit of fields::ozone2 (153 stations x 89 days, an
# exponential covariance with a constant mean and a nugget, REML, standard
# errors from the Hessian), each day keeping the stations it observed: 81
# patterns of missing values, each factored once per evaluation. Dropping
# every station missing on some day, as fits did before, leaves 67 of 153,
# so the two are not the same problem and only the new fit is timed.
# And one evaluation with 5% of the values missing at random, which makes
# every replicate a pattern of its own (r factorizations), against the
# complete replicates (one).
#
# Prints one line per size, device and r: seconds for the r replicates in one
# evaluation, r times the measured seconds of one single-replicate evaluation
# (separate evaluations), and their ratio. On a GPU host:
#
#   Rscript inst/bench/gp-fit-replicates.R --gprep_n=2000,20000

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

gprep_one <- function(Y, locs, device) {
  gp_fit(Y, locs, fixed = list(sigma2 = 1, range = 0.1, smoothness = 0.8, nugget = 0.1), device = device,
         control = list(trace = FALSE, hessian = FALSE))
}

bench_gp_fit_replicates <- function(sizes = bench_opt("gprep_n", 2000, 500), rs = bench_opt("gprep_r", c(1, 10, 100)),
                                    reps = bench_opt("gprep_reps", 3, 1)) {
  devices <- c("cpu", if (bench_gpu_ok("GPU replicate evaluations")) "gpu")
  rows <- NULL
  for (n in sizes) for (device in devices) {
    set.seed(1)
    locs <- matrix(runif(2 * n), ncol = 2)
    Y <- 1 + gp_simulate(locs, 1, 0.1, 0.8, 0.1, nsim = max(rs), device = device)
    single <- bench_time(function() gprep_one(Y[, 1], locs, device), reps)
    for (r in rs) {
      t <- bench_time(function() gprep_one(Y[, seq_len(r), drop = FALSE], locs, device), reps)
      message(sprintf("n = %s, r = %d on the %s: %s s for one evaluation of all replicates, %s s for %d separate ones (%s)",
                      fmt_n(n), r, device, fmt_sec(t), fmt_sec(r * single), r, fmt_ratio(r * single / t)))
      rows <- rbind(rows, data.frame(n = n, r = r, device = device, seconds = t, separate_seconds = r * single))
    }
  }
  rows
}

# The ozone2 fit on each device: seconds (the median of `reps` after a
# warm-up), evaluations, patterns and observed values.
bench_gp_fit_ozone2 <- function(reps = bench_opt("gprep_reps", 3, 1)) {
  if (!requireNamespace("fields", quietly = TRUE)) return(NULL)
  ozone2 <- get(utils::data("ozone2", package = "fields", envir = environment()))
  Y <- t(ozone2$y)
  devices <- c("cpu", if (bench_gpu_ok("GPU replicate fits")) "gpu")
  rows <- NULL
  for (device in devices) {
    fit <- NULL
    t <- bench_time(function() fit <<- gp_fit(Y, ozone2$lon.lat, cov = "exponential", device = device,
                                             control = list(trace = FALSE)), reps)
    patterns <- length(unique(apply(!is.na(Y), 2L, paste, collapse = "")))
    message(sprintf("ozone2 (%d stations x %d days, %d observed, %d patterns) on the %s: %s s, %d evaluations",
                    fit$n, fit$replicates, nobs(fit), patterns, device, fmt_sec(t), fit$evaluations))
    rows <- rbind(rows, data.frame(data = "ozone2", n = fit$n, r = fit$replicates, observed = nobs(fit),
                                   patterns = patterns, device = device, seconds = t, evaluations = fit$evaluations))
  }
  rows
}

# One evaluation (as bench_gp_fit_replicates()) of r complete replicates and
# of the same with 5% of their values missing at random, on the CPU.
bench_gp_fit_replicates_scattered <- function(n = bench_opt("gprep_n", 2000, 500), r = 10,
                                              reps = bench_opt("gprep_reps", 3, 1)) {
  rows <- NULL
  for (size in n) {
    set.seed(1)
    locs <- matrix(runif(2 * size), ncol = 2)
    Y <- 1 + gp_simulate(locs, 1, 0.1, 0.8, 0.1, nsim = r, device = "cpu")
    Ym <- Y
    Ym[sample(length(Y), round(0.05 * length(Y)))] <- NA
    complete <- bench_time(function() gprep_one(Y, locs, "cpu"), reps)
    missing <- bench_time(function() gprep_one(Ym, locs, "cpu"), reps)
    message(sprintf("n = %s, r = %d on the cpu: %s s complete, %s s with 5%% missing at random (%s)", fmt_n(size), r,
                    fmt_sec(complete), fmt_sec(missing), fmt_ratio(missing / complete)))
    rows <- rbind(rows, data.frame(n = size, r = r, complete_seconds = complete, missing_seconds = missing))
  }
  rows
}

if (sys.nframe() == 0L) {
  print(bench_gp_fit_replicates(), row.names = FALSE)
  print(bench_gp_fit_ozone2(), row.names = FALSE)
  print(bench_gp_fit_replicates_scattered(), row.names = FALSE)
}
