# Time of stable_fit("mle") as a user calls it, on laws drawn at random:
# `fits` samples of n points, each of its own law (S0, alpha uniform in
# [1.1, 1.9], beta in [-0.5, 0.5], gamma = 1, delta = 0), fitted one call
# each (median elapsed and CPU seconds per fit), and `batch` such samples as
# the columns of one matrix, fitted in one call (elapsed and CPU seconds,
# and per fit). CPU seconds are those of the process, all its threads.
#
#   Rscript inst/bench/stable-fit-speed.R [--sfs_n=1000] [--sfs_fits=50] [--sfs_batch=1000]
#     [--sfs_device=auto]

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

# Elapsed and CPU seconds of evaluating expr.
sfs_seconds <- function(expr) {
  p0 <- proc.time()
  force(expr)
  p <- proc.time() - p0
  c(elapsed = p[["elapsed"]], cpu = p[["user.self"]] + p[["sys.self"]])
}

sfs_samples <- function(count, n, seed) {
  set.seed(seed)
  alpha <- stats::runif(count, 1.1, 1.9)
  beta <- stats::runif(count, -0.5, 0.5)
  vapply(seq_len(count), function(j) rstable(n, alpha[j], beta[j], device = "cpu"), numeric(n))
}

stable_fit_speed <- function(n = bench_opt("sfs_n", 1000), fits = bench_opt("sfs_fits", 50, 10),
                             batch = bench_opt("sfs_batch", 1000, 20), device = bench_opt("sfs_device", "auto")) {
  xs <- sfs_samples(fits, n, 42)
  invisible(stable_fit(xs[, 1], device = device)) # McCulloch's tables, once per session
  one <- t(vapply(seq_len(fits), function(j) sfs_seconds(stable_fit(xs[, j], device = device)), numeric(2)))
  rows <- data.frame(what = sprintf("stable_fit(x), n = %d, median of %d laws", n, fits),
                     elapsed_s = stats::median(one[, 1]), cpu_s = stats::median(one[, 2]),
                     per_fit_s = stats::median(one[, 1]))
  if (batch > 0) {
    X <- sfs_samples(batch, n, 7)
    s <- sfs_seconds(stable_fit(X, device = device, control = list(progress = FALSE)))
    rows <- rbind(rows, data.frame(what = sprintf("stable_fit(matrix with %d columns), n = %d", batch, n),
                                   elapsed_s = s[[1]], cpu_s = s[[2]], per_fit_s = s[[1]] / batch))
  }
  rows
}

if (sys.nframe() == 0L) {
  res <- stable_fit_speed()
  cat(sprintf("\nstable_fit by maximum likelihood, device %s, %d CPU threads\n", bench_opt("sfs_device", "auto"),
              bench_cpu_threads()))
  print(data.frame(what = res$what, `elapsed s` = fmt_sec(res$elapsed_s), `CPU s` = fmt_sec(res$cpu_s),
                   `per fit s` = fmt_sec(res$per_fit_s), check.names = FALSE), row.names = FALSE, right = FALSE)
}
