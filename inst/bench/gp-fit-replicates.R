# One likelihood evaluation of a fit of r replicates at the same locations
# (y an n x r matrix in gp_fit): one factorization of the covariance and one
# triangular solve with r + p right-hand sides, against r evaluations of one
# replicate each (what separate fits would pay). The evaluation is timed as a
# gp_fit with every covariance parameter fixed (a constant mean, REML), so it
# includes the fit's set-up; on a GPU the same on the GPU path.
#
#   Rscript inst/bench/gp-fit-replicates.R [--gprep_n=2000] [--gprep_r=1,10,100] [--gprep_reps=3]
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

if (sys.nframe() == 0L) print(bench_gp_fit_replicates(), row.names = FALSE)
