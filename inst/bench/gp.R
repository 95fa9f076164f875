# Matérn Gaussian processes: one log-likelihood (generation, factorisation and
# solve timed apart on the GPU, and end to end from R), a full fit on the GPU,
# the same fit on the package's CPU path, and base R optim() on a dense
# covariance (dist() + besselK() + chol()) as the peer.
#
#   Rscript inst/bench/gp.R [--option=value ...]      (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gp_loglik_n   log-likelihood size (default 50000)
#   gp_fit_n      GPU fit size (default 50000)
#   gp_cpu_n      CPU (and small GPU) fit sizes (default 2000,5000)
#   gp_peer_n     size of the full base R optim() fit (default 2000: at 5000 it
#                 needs hours); one of its likelihood evaluations is also timed
#                 at every gp_cpu_n
#   gp_hessian    1 to include the standard errors in the GPU fit (default 1)
#   gp_tiled_n    sizes of one log-likelihood factored by the tile Cholesky on
#                 the GPU, out of core where the lower triangle exceeds device
#                 memory (default 100000; 0: none)
#   gp_tiled_fit_n sizes of a full GPU fit by the tile Cholesky (default 0:
#                 none; at n = 100,000 each evaluation is one factorization of
#                 about 8 seconds on an H100)
#   reps          timed repeats (default 3)

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

# Data simulated with the settings of ExaGeoStat's evaluation: unit square,
# sigma2 = 1, range 0.1, smoothness 0.5.
gp_bench_data <- function(n, seed = 1) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- gp_simulate(locs, sigma2 = 1, range = 0.1, smoothness = 0.5, device = if (gpu_available()) "gpu" else "cpu")
  list(locs = locs, y = y)
}

# What an R user without gpustats writes: a dense Matérn covariance from
# dist() and besselK(), chol(), and optim(L-BFGS-B) on the full likelihood.
gp_peer_nll <- function(y, locs) {
  D <- as.matrix(dist(locs))
  n <- length(y)
  function(t) {
    s2 <- exp(t[1]); a <- exp(t[2]); nu <- exp(t[3])
    z <- D / a
    S <- s2 * 2^(1 - nu) / gamma(nu) * z^nu * besselK(z, nu)
    diag(S) <- s2
    R <- tryCatch(chol(S), error = function(e) NULL)
    if (is.null(R)) return(1e10)
    sum(log(diag(R))) + 0.5 * sum(backsolve(R, y, transpose = TRUE)^2) + 0.5 * n * log(2 * pi)
  }
}

gp_peer_fit <- function(y, locs) {
  nll <- gp_peer_nll(y, locs)
  o <- stats::optim(log(c(var(y), 0.1, 1)), nll, method = "L-BFGS-B",
                    lower = log(c(1e-3, 1e-4, 0.05)), upper = log(c(100, 10, 5)))
  # L-BFGS-B's numerical gradient costs 2 x 3 more likelihoods per gradient
  list(loglik = -o$value, counts = o$counts[["function"]] + 6L * o$counts[["gradient"]])
}

bench_gp <- function(loglik_n = bench_opt("gp_loglik_n", 5e4, 400),
                     fit_n = bench_opt("gp_fit_n", 5e4, 400),
                     cpu_n = bench_opt("gp_cpu_n", c(2e3, 5e3), 300),
                     peer_n = bench_opt("gp_peer_n", 2e3, 300),
                     hessian = bench_opt("gp_hessian", 1, 1),
                     tiled_n = bench_opt("gp_tiled_n", 1e5, 0),
                     tiled_fit_n = bench_opt("gp_tiled_fit_n", 0, 0),
                     mixed_n = bench_opt("gp_mixed_n", 65536, 0),
                     reps = bench_opt("reps", 3, 1), gpu = NA) {
  if (is.na(gpu)) gpu <- bench_gpu_ok("GPU Gaussian-process benchmarks")
  rows <- list()
  add <- function(...) rows[[length(rows) + 1L]] <<- bench_row(...)
  quiet <- list(trace = FALSE)
  big <- list(trace = FALSE, hessian = hessian == 1)
  if (gpu) {
    hook <- get("gs_r_bench_gp_loglik", envir = asNamespace("gpustats"))
    id <- as.integer(getOption("gpustats.gpus", 0L)[1L])
    for (n in loglik_n) {
      s <- .Call(hook, as.double(n), 0.1, 0.5, as.integer(max(reps, 1)), id)
      add("gp_loglik: covariance generation", n, "gpu kernel", s[1], n^2 / s[1])
      add("gp_loglik: Cholesky (Xpotrf)", n, "gpu kernel", s[2], n^3 / 3 / s[2])
      add("gp_loglik: triangular solve", n, "gpu kernel", s[3], n^2 / s[3])
      message(sprintf("gp_loglik n = %s: generation %s s, Xpotrf %s s (%.1f TFLOP/s), solve %s s",
                      fmt_n(n), fmt_sec(s[1]), fmt_sec(s[2]), n^3 / 3 / s[2] / 1e12, fmt_sec(s[3])))
      d <- gp_bench_data(n)
      t <- bench_time(function() gp_loglik(d$y, d$locs, 1, 0.1, 0.5, device = "gpu"), reps = reps, warmup = 1L)
      # from n = 32,768 a GPU factors tile by tile, not with the Xpotrf timed above
      gp <- gpustats:::gp_open(d$locs, "euclidean", "gpu", environment())
      path <- if (gp$tiled) "tile Cholesky" else "Xpotrf"
      gpustats:::gp_close(gp)
      add(sprintf("gp_loglik (end to end, %s)", path), n, "gpu", t, 1 / t)
      message(sprintf("gp_loglik n = %s end to end (%s): %s s", fmt_n(n), path, fmt_sec(t)))
    }
    bench_gp_tiled(tiled_n[tiled_n > 0], tiled_fit_n[tiled_fit_n > 0], quiet, add)
    for (n in mixed_n[mixed_n > 0]) bench_gp_mixed(n, reps, add)
    for (n in fit_n) {
      d <- gp_bench_data(n, seed = 2)
      t <- system.time(fit <- gp_fit_zero_mean(d$y, d$locs, device = "gpu", control = big))[["elapsed"]]
      add(sprintf("gp_fit 3 parameters (%d evaluations%s)", fit$evaluations,
                  if (hessian == 1) ", standard errors" else ", no standard errors"), n, "gpu", t, 1 / t)
      message(sprintf("gp_fit n = %s on the GPU: %s s, %d evaluations; estimates %s", fmt_n(n), fmt_sec(t),
                      fit$evaluations, paste(signif(coef(fit)[1:3], 4), collapse = ", ")))
    }
  }
  for (n in cpu_n) {
    d <- gp_bench_data(n, seed = 3)
    t <- system.time(fit <- gp_fit_zero_mean(d$y, d$locs, device = "cpu", control = quiet))[["elapsed"]]
    add(sprintf("gp_fit 3 parameters (%d evaluations)", fit$evaluations), n,
        sprintf("cpu (%d threads)", bench_cpu_threads()), t, 1 / t)
    message(sprintf("gp_fit n = %s on the CPU: %s s, loglik %.6f", fmt_n(n), fmt_sec(t), fit$loglik))
    nll <- gp_peer_nll(d$y, d$locs)
    te <- system.time(nll(log(c(1, 0.1, 1))))[["elapsed"]]
    add("base R dense likelihood, one evaluation", n, "cpu (R)", te, 1 / te)
    message(sprintf("base R one likelihood n = %s: %s s", fmt_n(n), fmt_sec(te)))
    if (n %in% peer_n) {
      tp <- system.time(peer <- gp_peer_fit(d$y, d$locs))[["elapsed"]]
      add(sprintf("base R optim L-BFGS-B, dense (%d evaluations)", peer$counts), n, "cpu (R)", tp, 1 / tp)
      message(sprintf("base R optim n = %s: %s s, loglik %.6f (gpustats %.6f)", fmt_n(n), fmt_sec(tp),
                      peer$loglik, fit$loglik))
    }
    if (gpu) {
      tg <- system.time(fg <- gp_fit_zero_mean(d$y, d$locs, device = "gpu", control = quiet))[["elapsed"]]
      add(sprintf("gp_fit 3 parameters (%d evaluations)", fg$evaluations), n, "gpu", tg, 1 / tg)
    }
  }
  do.call(rbind, rows)
}

# The likelihood and the fit with the tile Cholesky on the GPU (forced, so
# that the rows say what ran even where the dense matrix would fit).
bench_gp_tiled <- function(loglik_n, fit_n, control, add) {
  old <- options(gpustats.gp_tiles = TRUE)
  on.exit(options(old))
  for (n in loglik_n) {
    d <- gp_bench_data(n, seed = 4)
    t <- system.time(ll <- gp_loglik(d$y, d$locs, 1, 0.1, 0.5, device = "gpu"))[["elapsed"]]
    add("gp_loglik, tile Cholesky (end to end)", n, "gpu", t, 1 / t)
    message(sprintf("gp_loglik n = %s with the tile Cholesky: %s s end to end (log-likelihood %.6f)", fmt_n(n),
                    fmt_sec(t), ll))
  }
  for (n in fit_n) {
    d <- gp_bench_data(n, seed = 4)
    t <- system.time(fit <- gp_fit_zero_mean(d$y, d$locs, device = "gpu", control = control))[["elapsed"]]
    add(sprintf("gp_fit 3 parameters, tile Cholesky (%d evaluations)", fit$evaluations), n, "gpu", t, 1 / t)
    message(sprintf("gp_fit n = %s with the tile Cholesky: %s s, %d evaluations; estimates %s", fmt_n(n),
                    fmt_sec(t), fit$evaluations, paste(signif(coef(fit)[1:3], 4), collapse = ", ")))
  }
}

# One likelihood end to end, as a fit evaluates it, with the dense FP64
# factorization (cuSOLVER), the tile Cholesky in FP64 and in mixed precision,
# on the weak and medium correlations of the mixed-precision study (range
# 0.02627 and 0.078809, smoothness 0.5); the rows give the log-likelihood's
# distance from the dense one.
bench_gp_mixed <- function(n, reps, add) {
  d <- gp_bench_data(n, seed = 5)
  runs <- list(list("dense FP64", "double", 0, FALSE), list("tiled FP64", "double", 0, TRUE),
               list("mixed 1e-5", "mixed", 1e-5, FALSE), list("mixed 1e-8", "mixed", 1e-8, FALSE))
  for (range in c(0.02627, 0.078809)) {
    exact <- NA_real_
    for (run in runs) {
      old <- options(gpustats.gp_tiles = run[[4]])
      ll <- function() {
        if (run[[2]] == "double") return(gp_loglik(d$y, d$locs, 1, range, 0.5, device = "gpu"))
        gp_loglik(d$y, d$locs, 1, range, 0.5, precision = "mixed", accuracy = run[[3]], device = "gpu")
      }
      value <- ll()
      t <- bench_time(ll, reps = reps, warmup = 0L)
      options(old)
      if (is.na(exact)) exact <- value
      add(sprintf("gp_loglik range %g, %s (end to end)", range, run[[1]]), n, "gpu", t, 1 / t)
      message(sprintf("gp_loglik n = %s range %g %s: %s s, log-likelihood %.6f (off by %.2e)", fmt_n(n), range,
                      run[[1]], fmt_sec(t), value, abs(value - exact)))
    }
  }
}

# fields::spatialProcess, the package a spatial statistician would reach
# for, fits the comparable model with the smoothness fixed (here 0.5) and a
# nugget; gpustats fits the same model on the CPU and the GPU in the same run.
bench_gp_fields <- function(sizes = bench_opt("gp_fields_n", 5e3, 300)) {
  if (!requireNamespace("fields", quietly = TRUE)) {
    message("note: package fields not installed; the fields comparison is skipped")
    return(NULL)
  }
  suppressPackageStartupMessages(library(fields))
  rows <- list()
  add <- function(...) rows[[length(rows) + 1L]] <<- bench_row(...)
  quiet <- list(trace = FALSE, hessian = FALSE)
  for (n in sizes) {
    set.seed(5)
    locs <- matrix(runif(2 * n), ncol = 2)
    y <- gp_simulate(locs, 1, 0.1, 0.5, nugget = 0.01)
    tf <- system.time(sp <- spatialProcess(locs, y, mKrig.args = list(m = 0),
                                           cov.args = list(Covariance = "Matern", smoothness = 0.5),
                                           verbose = FALSE))[["elapsed"]]
    add(sprintf("fields::spatialProcess, smoothness 0.5 (loglik %.4f)", sp$summary[["lnProfileLike.FULL"]]), n,
        "cpu (R)", tf, 1 / tf)
    message(sprintf("fields n = %s: %s s, loglik %.6f", fmt_n(n), fmt_sec(tf), sp$summary[["lnProfileLike.FULL"]]))
    for (dev in c("cpu", if (gpu_available()) "gpu")) {
      t <- system.time(f <- gp_fit_zero_mean(y, locs, nugget = TRUE, fixed = list(smoothness = 0.5), device = dev,
                                   control = quiet))[["elapsed"]]
      add(sprintf("gp_fit, smoothness 0.5 (loglik %.4f)", f$loglik), n,
          if (dev == "cpu") sprintf("cpu (%d threads)", bench_cpu_threads()) else "gpu", t, 1 / t)
      message(sprintf("gp_fit %s n = %s: %s s, loglik %.6f", dev, fmt_n(n), fmt_sec(t), f$loglik))
    }
  }
  do.call(rbind, rows)
}

gp_tables <- function(res) {
  tab <- data.frame(benchmark = res$benchmark, device = res$device, n = fmt_n(res$size),
                    seconds = fmt_sec(res$seconds), stringsAsFactors = FALSE)
  paste(c("## Matérn Gaussian processes (unit square, range 0.1, smoothness 0.5)", "",
          md_table(tab, "llrr"), "",
          "Cholesky rows give the rate as n^3/3 floating-point operations per second; generation and solve rows entries per second.",
          ""), collapse = "\n")
}

if (sys.nframe() == 0L) {
  res <- bench_gp()
  print(res)
  cat(gp_tables(res), "\n")
}
