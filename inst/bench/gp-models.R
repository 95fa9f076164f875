# Gaussian-process models as a spatial statistician fits them: a trend in two
# covariates, a nugget and the smoothness estimated (REML), timed on the GPU;
# the same kind of model on the CPU path against fields' spatialProcess in the
# same run (smoothness fixed, which spatialProcess needs); anisotropic and
# space-time fits; and the coverage of the profile-likelihood intervals on
# simulated data.
#
#   Rscript inst/bench/gp-models.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gpm_gpu_n       GPU sizes of the trend + nugget + free smoothness fit (default 50000)
#   gpm_cpu_n       CPU sizes of the comparison with fields (default 2000,5000)
#   gpm_aniso_n     sizes of the anisotropic and space-time fits (default 20000 on a GPU;
#                   2000 on the CPU)
#   gpm_cover_reps  replicates of the coverage study (default 50; 0: none)
#   gpm_cover_n     observations per replicate (default 300)
#   gpm_hessian     1 to include the standard errors in the GPU fit (default 1)

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))
`%||%` <- function(a, b) if (is.null(a)) b else a

# y = 1 + 0.5 x1 - 0.3 x2 + S + e on the unit square: S Matérn (sigma2 1,
# range 0.1, smoothness 0.8), nugget 0.1; x1 a smooth covariate, x2 noise.
gpm_data <- function(n, seed = 1, map = identity, time = NULL) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  if (!is.null(time)) locs <- cbind(locs, sample(time, n, replace = TRUE))
  X <- cbind(1, x1 = sin(2 * pi * locs[, 1]), x2 = rnorm(n))
  dev <- if (gpu_available()) "gpu" else "cpu"
  s <- gp_simulate(map(locs), sigma2 = 1, range = if (identical(map, identity)) 0.1 else 1, smoothness = 0.8,
                   nugget = 0.1, device = dev)
  list(locs = locs, X = X, y = drop(X %*% c(1, 0.5, -0.3)) + s)
}

gpm_row <- function(rows, what, n, device, seconds, fit) {
  message(sprintf("%s n = %s on the %s: %s s, %d evaluations, loglik %.4f", what, fmt_n(n), device, fmt_sec(seconds),
                  fit$evaluations %||% NA_integer_, fit$loglik %||% NA_real_))
  rbind(rows, data.frame(benchmark = what, n = n, device = device, seconds = seconds,
                         evaluations = fit$evaluations %||% NA_integer_, loglik = fit$loglik %||% NA_real_))
}

bench_gp_models <- function(gpu = bench_gpu_ok("GPU Gaussian-process model fits")) {
  rows <- NULL
  quiet <- list(trace = FALSE)
  if (gpu) {
    for (n in Filter(function(n) n > 0, bench_opt("gpm_gpu_n", 5e4, 2000))) {
      d <- gpm_data(n)
      hessian <- bench_opt("gpm_hessian", 1) == 1
      t <- system.time(f <- gp_fit(d$y, d$locs, X = d$X, device = "gpu",
                                   control = c(quiet, hessian = hessian)))[["elapsed"]]
      rows <- gpm_row(rows, sprintf("gp_fit REML: 2-covariate trend, nugget, free smoothness (%s standard errors)",
                                    if (hessian) "with" else "without"), n, "gpu", t, f)
    }
  }
  have_fields <- requireNamespace("fields", quietly = TRUE)
  if (have_fields) suppressPackageStartupMessages(library(fields))
  for (n in Filter(function(n) n > 0, bench_opt("gpm_cpu_n", c(2000, 5000), 300))) {
    d <- gpm_data(n, seed = 2)
    if (have_fields) {
      tf <- system.time(sp <- spatialProcess(d$locs, d$y, Z = d$X[, -1], mKrig.args = list(m = 1), smoothness = 0.8,
                                             verbose = FALSE))[["elapsed"]]
      rows <- gpm_row(rows, "fields::spatialProcess ML: trend, nugget, smoothness 0.8", n, "cpu (R)", tf,
                      list(loglik = sp$summary[["lnProfileLike.FULL"]]))
    }
    for (dev in c("cpu", if (gpu) "gpu")) {
      t <- system.time(f <- gp_fit(d$y, d$locs, X = d$X, method = "ml", fixed = list(smoothness = 0.8), device = dev,
                                   control = quiet))[["elapsed"]]
      rows <- gpm_row(rows, "gp_fit ML: trend, nugget, smoothness 0.8 (with standard errors)", n,
                      if (dev == "cpu") sprintf("cpu (%d threads)", bench_cpu_threads()) else "gpu", t, f)
    }
  }
  for (n in Filter(function(n) n > 0, bench_opt("gpm_aniso_n", if (gpu) 2e4 else 2000, 500))) {
    dev <- if (gpu) "gpu" else "cpu"
    Q <- matrix(c(cos(0.5), sin(0.5), -sin(0.5), cos(0.5)), 2)
    d <- gpm_data(n, seed = 3, map = function(l) sweep(l %*% Q, 2, c(0.2, 0.05), "/"))
    t <- system.time(f <- gp_fit(d$y, d$locs, X = d$X, cov = "matern_aniso", device = dev, control = quiet))[["elapsed"]]
    rows <- gpm_row(rows, "gp_fit REML: anisotropic Matérn, trend, nugget", n, dev, t, f)
    d <- gpm_data(n, seed = 4, time = 1:10, map = function(l) cbind(l[, 1:2] / 0.1, l[, 3] / 3))
    t <- system.time(f <- gp_fit(d$y, d$locs, X = d$X, cov = "matern_spacetime", device = dev,
                                 control = quiet))[["elapsed"]]
    rows <- gpm_row(rows, "gp_fit REML: space-time Matérn, trend, nugget", n, dev, t, f)
  }
  rows
}

# Coverage of 95 % profile-likelihood and Wald intervals over simulated
# replicates: the fraction of replicates whose interval holds the truth.
bench_gp_coverage <- function(reps = bench_opt("gpm_cover_reps", 50, 3), n = bench_opt("gpm_cover_n", 300, 100)) {
  if (reps < 1) return(NULL)
  truth <- c(sigma2 = 1, range = 0.1, nugget = 0.1)
  hits <- list(profile = NULL, wald = NULL)
  for (r in seq_len(reps)) {
    set.seed(1000 + r)
    locs <- matrix(runif(2 * n), ncol = 2)
    y <- 2 + gp_simulate(locs, 1, 0.1, 0.5, nugget = 0.1, device = "cpu")
    f <- gp_fit(y, locs, cov = "exponential", device = "cpu", control = list(trace = FALSE))
    for (m in names(hits)) {
      ci <- suppressWarnings(confint(f, names(truth), method = m))
      hits[[m]] <- rbind(hits[[m]], ci[, 1] <= truth & truth <= ci[, 2])
    }
    if (r %% 10 == 0) message(sprintf("coverage: %d of %d replicates", r, reps))
  }
  out <- data.frame(parameter = names(truth), profile = colMeans(hits$profile), wald = colMeans(hits$wald),
                    replicates = reps, n = n)
  print(out)
  out
}

gp_models_tables <- function(res, coverage) {
  tab <- data.frame(benchmark = res$benchmark, device = res$device, n = fmt_n(res$n), seconds = fmt_sec(res$seconds),
                    evaluations = res$evaluations, loglik = sprintf("%.4f", res$loglik))
  paste(c("## Gaussian-process models", "", md_table(tab, "llrrrr"), "",
          if (!is.null(coverage)) c("Coverage of 95 % intervals (exponential model, constant mean, nugget, REML):", "",
                                    md_table(coverage, "lrrrr"), ""),
          ""), collapse = "\n")
}

if (sys.nframe() == 0L) {
  res <- bench_gp_models()
  coverage <- bench_gp_coverage()
  cat(gp_models_tables(res, coverage), "\n")
}
