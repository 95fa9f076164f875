# The cost of one exact likelihood evaluation on the CPU path, by part, for
# the data of gp-models.R (trend in two covariates, nugget, smoothness 0.8):
# the covariance generation (Matérn with Bessel K), the factorization
# (generation plus Cholesky), the GLS solve, and the whole evaluation as a
# fit calls it; against one likelihood evaluation of fields (mKrig at the
# same parameters, a Cholesky by R's LAPACK) in the same run. The
# covariance is timed as matern_cov() makes it: each pair evaluated once
# (and mirrored), as in the factorization.
#
#   Rscript inst/bench/gp-cpu-eval.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gpe_n        sizes (default 1000,2000,5000)
#   gpe_threads  thread counts (default 1 and all cores)
#   gpe_reps     repeats, the fastest kept (default 3)
#   gpe_fields   1 to time fields::mKrig too (default 1)

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))
if (!exists("gpm_data", mode = "function")) source(file.path("inst", "bench", "gp-models.R"))

gpe_time <- function(f, reps) min(vapply(seq_len(reps), function(i) system.time(f())[["elapsed"]], numeric(1)))

gpe_parts <- function(d, threads, reps) {
  ns <- asNamespace("gpustats")
  old <- options(gpustats.threads = threads)
  on.exit(options(old))
  model <- ns$gp_cov_model("matern", 2, "euclidean", NULL)
  par <- list(geom = c(range = 0.1), shape = c(smoothness = 0.8), ratio = 0.1)
  params <- ns$gp_cov_params(1, 0.1, par$shape, 0.1)
  gp <- ns$gp_open(d$locs, "euclidean", "cpu", NULL, 0, model$native)
  on.exit(ns$gp_close(gp), add = TRUE)
  cov <- gpe_time(function() matern_cov(d$locs, range = 0.1, smoothness = 0.8, nugget = 0.1, device = "cpu"), reps)
  factor <- gpe_time(function() ns$gp_factor(gp, params, d$locs, NULL), reps)
  gls <- gpe_time(function() ns$gls_solve(gp, d, 0, NULL), reps)
  # a likelihood of its own each time (it memoises its points), opened on d$locs
  evaluation <- function() {
    lik <- ns$gp_likelihood(d, model, "ml", "cpu", 0, NULL)
    on.exit(lik$close())
    lik$profile(par)
  }
  eval <- gpe_time(evaluation, reps)
  data.frame(threads = threads, covariance = cov, factor = factor, gls = gls, evaluation = eval, fields_mkrig = NA_real_)
}

bench_gp_cpu_eval <- function() {
  reps <- bench_opt("gpe_reps", 3, 1)
  fields <- bench_opt("gpe_fields", 1) == 1 && requireNamespace("fields", quietly = TRUE)
  rows <- NULL
  for (n in bench_opt("gpe_n", c(1000, 2000, 5000), 1000)) {
    d <- gpm_data(n, seed = 2)
    for (t in unique(bench_opt("gpe_threads", c(1, bench_cores()), 1))) {
      r <- cbind(n = n, gpe_parts(d, t, reps))
      message(sprintf("n = %d, %d threads: covariance %s s, factor %s s, GLS %s s, evaluation %s s", n, t,
                      fmt_sec(r$covariance), fmt_sec(r$factor), fmt_sec(r$gls), fmt_sec(r$evaluation)))
      rows <- rbind(rows, r)
    }
    if (fields) {
      tf <- system.time(mk <- fields::mKrig(d$locs, d$y, Z = d$X[, -1], m = 1, lambda = 0.1,
                                            cov.function = fields::stationary.cov,
                                            cov.args = list(Covariance = "Matern", smoothness = 0.8, aRange = 0.1)))
      message(sprintf("n = %d: fields::mKrig, one evaluation: %s s", n, fmt_sec(tf[["elapsed"]])))
      rows$fields_mkrig[rows$n == n] <- tf[["elapsed"]]
    }
  }
  rows
}

if (sys.nframe() == 0L) {
  suppressPackageStartupMessages(library(gpustats))
  res <- bench_gp_cpu_eval()
  res[] <- lapply(res, function(x) if (is.double(x)) signif(x, 3) else x)
  cat(md_table(res), sep = "\n")
}
