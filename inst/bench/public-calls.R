# The exported functions as a user calls them, end to end, each against the
# target of its kernel: spherical-harmonic analysis plus synthesis with the
# grid built by the call, the tile Cholesky of a Matérn covariance (the
# second call of a process), the stable laws with random parameters, the
# stable fit and the Lorenz '63 GBEES case. Best of `reps` where repeated.
#
#   Rscript inst/bench/public-calls.R [--pc_sht_lmax=1023,4095] [--pc_chol_n=65536] [--pc_stable_n=1e7]
#                                     [--pc_fits=1000] [--pc_reps=3]
#
# The Gaussian-process calls (fits, predictions, Vecchia) have their own
# files: gp-exact-grad.R, gp-predict.R, gp-vecchia-fit.R.

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

pc_best <- function(reps, f) min(vapply(seq_len(reps), function(i) system.time(f())[["elapsed"]], 0))

pc_row <- function(call, seconds, size, rate = NA_real_) {
  message(sprintf("%-60s %10s  %8.4f s%s", call, size, seconds, if (is.na(rate)) "" else sprintf("  %.3g /s", rate)))
  data.frame(call = call, size = size, seconds = seconds, rate = rate)
}

bench_public_calls <- function(lmax = bench_opt("pc_sht_lmax", c(1023, 4095), 63), chol_n = bench_opt("pc_chol_n", 65536, 2048),
                               stable_n = bench_opt("pc_stable_n", 1e7, 1e4), fits = bench_opt("pc_fits", 1000, 10),
                               reps = bench_opt("pc_reps", 3, 1)) {
  dev <- if (gpu_available()) "gpu" else "cpu"
  rows <- NULL
  for (l in lmax[lmax > 0]) {
    set.seed(1)
    f <- matrix(rnorm((l + 1) * (2 * l + 2)), l + 1)
    s <- pc_best(reps, function() sht_synthesis(sht_analysis(f, l, device = dev), device = dev))
    rows <- rbind(rows, pc_row(sprintf("sht_synthesis(sht_analysis(f, %d)), %s", l, dev), s, sprintf("lmax %d", l)))
  }
  if (chol_n > 0) {
    set.seed(2)
    locs <- matrix(runif(2 * chol_n), ncol = 2)
    spec <- matern_spec(locs, 1, 0.1, 0.5, nugget = 0.01)
    first <- system.time(r <- tile_chol(spec, device = dev))[["elapsed"]]
    rm(r)
    second <- system.time(r <- tile_chol(spec, device = dev))[["elapsed"]]
    rows <- rbind(rows, pc_row(sprintf("tile_chol(matern_spec(...)), %s, first call", dev), first, chol_n),
                  pc_row(sprintf("tile_chol(matern_spec(...)), %s, second call", dev), second, chol_n))
    message(sprintf("  second call: info$seconds %.3f, info$host_seconds %.3f", r$info$seconds, r$info$host_seconds))
    rm(r)
    invisible(gc())
    if (dev == "gpu") {
      # the factorization alone: the span of its GPU operations (a diagnostic)
      tr <- tile_chol(spec, device = dev, trace = TRUE)$trace
      span <- max(tr$end) - min(tr$start)
      rows <- rbind(rows, pc_row("  tile_chol factorization on the GPU (event trace span)", span, chol_n,
                                 chol_n^3 / 3 / span))
      invisible(gc())
    }
  }
  if (stable_n > 0) rows <- rbind(rows, pc_stable(stable_n, fits, reps, dev))
  source(file.path("inst", "bench", "gbees.R"), local = TRUE)
  g <- pc_best(reps, function() bench_gbees_l63(dev, NULL))
  rbind(rows, pc_row(sprintf("gbees(), Lorenz '63 of the benchmarks, %s", dev), g, "l63"))
}

# The stable laws with random parameters, one fit and `fits` fits in one call.
pc_stable <- function(n, fits, reps, dev) {
  set.seed(3)
  alpha <- runif(n, 0.5, 2)
  beta <- runif(n, -1, 1)
  x <- rnorm(n, 0, 3)
  p <- runif(n)
  s <- pc_best(reps, function() dstable(x, alpha, beta, device = dev))
  rows <- rbind(pc_row(sprintf("dstable, random parameters, %s", dev), s, n, n / s))
  s <- pc_best(reps, function() pstable(x, alpha, beta, device = dev))
  rows <- rbind(rows, pc_row(sprintf("pstable, random parameters, %s", dev), s, n, n / s))
  nq <- n / 10
  s <- pc_best(reps, function() qstable(p[seq_len(nq)], alpha[seq_len(nq)], beta[seq_len(nq)], device = dev))
  rows <- rbind(rows, pc_row(sprintf("qstable, random parameters, %s", dev), s, nq, nq / s))
  set.seed(4)
  xs <- rstable(1000, 1.7, 0.3)
  one <- vapply(seq_len(max(reps, 21)), function(i) system.time(stable_fit(xs))[["elapsed"]], 0)
  rows <- rbind(rows, pc_row("stable_fit(x), MLE, n = 1,000, median", stats::median(one), 1000))
  if (fits > 0) {
    X <- matrix(rstable(1000 * fits, 1.7, 0.3), 1000)
    s <- system.time(stable_fit(X))[["elapsed"]]
    rows <- rbind(rows, pc_row(sprintf("stable_fit(matrix, %d columns), MLE, n = 1,000 each", fits), s, fits, fits / s))
  }
  rows
}

if (sys.nframe() == 0L) print(bench_public_calls())
