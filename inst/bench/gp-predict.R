# Kriging through the public call: predict(fit, newdata, se.fit = TRUE) of an
# exact fit (the covariance parameters fixed, so that no search is timed),
# and conditional simulate(), end to end: the factorization, the
# cross-covariances, their solves and the standard errors.
#
#   Rscript inst/bench/gp-predict.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gpp_n       observed locations (default 50000 on a GPU, 4000 on the CPU; quick 1000)
#   gpp_m       new locations (default 10000 on a GPU, 4000 on the CPU; quick 500)
#   gpp_nsim    conditional draws timed at the same sizes (default 10; 0: none)
#   gpp_device  "gpu" where one is available, else "cpu" (or either, named)
#   reps        timed repeats (default 3)

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

bench_gp_predict <- function(device = bench_opt("gpp_device", if (bench_gpu_ok("GPU kriging")) "gpu" else "cpu"),
                             sizes = bench_opt("gpp_n", if (device == "gpu") 5e4 else 4000, 1000),
                             news = bench_opt("gpp_m", if (device == "gpu") 1e4 else 4000, 500),
                             nsim = bench_opt("gpp_nsim", 10, 2), reps = bench_opt("reps", 3, 1)) {
  rows <- list()
  add <- function(...) rows[[length(rows) + 1L]] <<- bench_row(...)
  label <- if (device == "cpu") sprintf("cpu (%d threads)", bench_cpu_threads()) else device
  for (n in sizes) {
    set.seed(3)
    locs <- matrix(runif(2 * n), ncol = 2)
    y <- 1 + gp_simulate(locs, 1, 0.1, 0.5, nugget = 0.01, device = device)
    fit <- gp_fit(y ~ 1, data.frame(y = y, x1 = locs[, 1], x2 = locs[, 2]), coords = ~ x1 + x2,
                  fixed = list(sigma2 = 1, range = 0.1, smoothness = 0.5, nugget = 0.01), device = device,
                  control = list(trace = FALSE))
    for (m in news) {
      new <- data.frame(x1 = runif(m), x2 = runif(m))
      t <- bench_time(function() predict(fit, new, se.fit = TRUE, device = device), reps = reps, warmup = 0L)
      add(sprintf("predict(se.fit = TRUE), %s new locations", fmt_n(m)), n, label, t, m / t)
      message(sprintf("predict n = %s, m = %s, se.fit = TRUE on the %s: %s s", fmt_n(n), fmt_n(m), device, fmt_sec(t)))
      if (nsim > 0) {
        t <- bench_time(function() simulate(fit, nsim, seed = 1, newdata = new, device = device), reps = reps,
                        warmup = 0L)
        add(sprintf("simulate(nsim = %d), %s new locations", nsim, fmt_n(m)), n, label, t, m * nsim / t)
        message(sprintf("simulate n = %s, m = %s, nsim = %d on the %s: %s s", fmt_n(n), fmt_n(m), nsim, device,
                        fmt_sec(t)))
      }
    }
  }
  do.call(rbind, rows)
}

if (sys.nframe() == 0L) print(bench_gp_predict(), row.names = FALSE)
