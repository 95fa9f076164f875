# Throughput of the alpha-stable functions at small alpha (alpha = 10^u,
# u uniform in [-12, -3], the plain integrals; beta in [-1, 1];
# x = sinh(v), v uniform in [-20, 20]): gpustats on the GPU against its
# CPU path on all cores, and the CPU at alpha in [0.5, 2] for scale.
#
#   Rscript inst/bench/stable-small-alpha.R [--stable_small_n=2e5] [--reps=3]
#
# Prints one table: op, device, seconds (median of reps after a warm-up),
# evaluations per second, and the GPU's speed-up over the CPU in the same run.

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

stable_small_alpha_bench <- function(n = bench_opt("stable_small_n", 2e5, 2e4),
                                     reps = bench_opt("reps", 3, 1)) {
  set.seed(20261127)
  x <- sinh(stats::runif(n, -20, 20))
  a <- 10^stats::runif(n, -12, -3)
  b <- stats::runif(n, -1, 1)
  p <- stats::runif(n)
  ops <- list(
    dstable = function(dev, al) dstable(x, al, b, device = dev),
    pstable = function(dev, al) pstable(x, al, b, device = dev),
    qstable = function(dev, al) qstable(p[seq_len(n / 10)], al[seq_len(n / 10)], b[seq_len(n / 10)],
                                        device = dev),
    rstable = function(dev, al) rstable(n, 1e-4, 0.3, device = dev))
  devices <- c("cpu", if (bench_gpu_ok("the small-alpha GPU timings")) "gpu")
  rows <- list()
  for (op in names(ops)) {
    size <- if (op == "qstable") n / 10 else n
    cpu_wide <- bench_time(function() ops[[op]]("cpu", stats::runif(n, 0.5, 2)), reps)
    for (dev in devices) {
      s <- bench_time(function() ops[[op]](dev, a), reps)
      rows[[length(rows) + 1L]] <- data.frame(op = op, device = dev, n = size, seconds = s,
                                              rate = size / s, cpu_alpha_0.5_2 = cpu_wide)
    }
  }
  res <- do.call(rbind, rows)
  gpu <- res$device == "gpu"
  res$speedup <- NA_real_
  if (any(gpu)) res$speedup[gpu] <- res$seconds[!gpu][match(res$op[gpu], res$op[!gpu])] / res$seconds[gpu]
  res
}

if (sys.nframe() == 0L) print(stable_small_alpha_bench(), digits = 3)
