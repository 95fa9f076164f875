# Legendre <-> Chebyshev conversions: the direct O(n^2) method against the
# Toeplitz-Hankel O(n log^2 n) method on the CPU and on the GPU, times for
# n = 256 .. 2^22 (one column each way, and a batch of columns), the
# crossover, the rank of the Hankel factor and the time of the CPU's factor
# alone (the low-rank pivoted Cholesky factorisation of both parities), and
# errors relative to the largest output coefficient: the fast method against
# the direct one, the GPU against the CPU, and the fast round trip.
#
#   Rscript inst/bench/poly-legcheb.R [--option=value ...]
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   sizes        n (default 2^8 .. 2^22 by factors of 2)
#   direct_max   largest n timed by the direct method (default 16384: its
#                matrix takes 8 n^2 bytes)
#   batch        columns of the batched timing (default 32)
#   batch_max    largest n of the batched timing (default 2^16)
#   reps         timed repeats, median (default 3)
# The CPU runs on the threads of gpustats.threads (default all cores); GPU
# times are end to end from R (the Hankel factor, the copies to and from the
# GPU included), after a warm-up, with the GPU when present. "factor" is the
# CPU's factorisation of Legendre -> Chebyshev run alone (through the rank
# hook, on the same threads): the CPU conversion spends it and the rest on
# the Toeplitz products. The GPU conversion chooses the pivots on the CPU
# and factors the rows on the GPU; "factor / l2c gpu" compares the CPU
# factor's time with the whole GPU conversion.

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

# The ranks of both parities' Hankel factors (each call factors one parity).
legcheb_rank <- function(n, to_chebyshev) {
  vapply(0:1, function(p) .Call(gpustats:::gs_r_legcheb_rank, as.integer(n), to_chebyshev, p), integer(1))
}

# The largest difference relative to the largest coefficient of the reference.
legcheb_rel <- function(x, ref) max(abs(x - ref)) / max(abs(ref))

bench_legcheb_size <- function(n, batch, direct_max, batch_max, reps, gpu) {
  x <- stats::rnorm(n)
  xb <- if (n <= batch_max) matrix(stats::rnorm(n * batch), n) else NULL
  time <- function(f, x, method, device = "cpu") {
    if (is.null(x) || (method == "direct" && n > direct_max) || (device == "gpu" && !gpu)) return(NA_real_)
    bench_time(function() f(x, method, device = device), reps)
  }
  fast <- "toeplitz-hankel"
  th <- legendre_to_chebyshev(x, fast, device = "cpu")
  back <- chebyshev_to_legendre(th, fast, device = "cpu")
  gpu_err <- NA_real_
  if (gpu) {
    gpu_err <- max(legcheb_rel(legendre_to_chebyshev(x, fast, device = "gpu"), th),
                   legcheb_rel(chebyshev_to_legendre(th, fast, device = "gpu"), back))
  }
  row <- data.frame(
    n = n, rank = max(legcheb_rank(n, TRUE), legcheb_rank(n, FALSE)),
    factor = bench_time(function() legcheb_rank(n, TRUE), reps),
    l2c_direct = time(legendre_to_chebyshev, x, "direct"), l2c_cpu = time(legendre_to_chebyshev, x, fast),
    l2c_gpu = time(legendre_to_chebyshev, x, fast, "gpu"), c2l_cpu = time(chebyshev_to_legendre, x, fast),
    c2l_gpu = time(chebyshev_to_legendre, x, fast, "gpu"), batch_direct = time(legendre_to_chebyshev, xb, "direct"),
    batch_cpu = time(legendre_to_chebyshev, xb, fast), batch_gpu = time(legendre_to_chebyshev, xb, fast, "gpu"),
    err_vs_direct = if (n <= direct_max) legcheb_rel(th, legendre_to_chebyshev(x, "direct")) else NA_real_,
    err_gpu_vs_cpu = gpu_err, round_trip = legcheb_rel(back, x))
  row$gpu_speedup <- row$l2c_cpu / row$l2c_gpu
  row$factor_share_gpu <- row$factor / row$l2c_gpu
  row$batch_gpu_speedup <- row$batch_cpu / row$batch_gpu
  message(sprintf("n = %7d done", n))
  row
}

# The smallest n of the table from which the fast method is faster for one
# column and for the batch.
legcheb_crossover_of <- function(d) {
  first <- function(direct, fast) {
    ok <- !is.na(direct) & fast < direct
    if (any(ok)) d$n[which(ok)[1]] else NA
  }
  c(one_column = first(d$l2c_direct, d$l2c_cpu), batch = first(d$batch_direct, d$batch_cpu))
}

# One table: times in seconds, errors relative to the largest coefficient.
legcheb_print <- function(d, batch) {
  old <- options(width = max(getOption("width"), 220)) # one table, not wrapped
  on.exit(options(old))
  f <- data.frame(n = d$n, rank = d$rank, factor = fmt_sec(d$factor),
                  `factor / l2c gpu` = fmt_g(d$factor_share_gpu, 2), `l2c direct` = fmt_sec(d$l2c_direct),
                  `l2c cpu` = fmt_sec(d$l2c_cpu), `l2c gpu` = fmt_sec(d$l2c_gpu), `gpu x` = fmt_ratio(d$gpu_speedup), `c2l cpu` = fmt_sec(d$c2l_cpu),
                  `c2l gpu` = fmt_sec(d$c2l_gpu), `batch direct` = fmt_sec(d$batch_direct),
                  `batch cpu` = fmt_sec(d$batch_cpu), `batch gpu` = fmt_sec(d$batch_gpu),
                  `batch gpu x` = fmt_ratio(d$batch_gpu_speedup), `fast-direct` = fmt_g(d$err_vs_direct, 2),
                  `gpu-cpu` = fmt_g(d$err_gpu_vs_cpu, 2), `round trip` = fmt_g(d$round_trip, 2), check.names = FALSE)
  cat(sprintf("\nLegendre <-> Chebyshev, seconds (median); l2c/c2l: one column each way; batch: %d columns, l2c;\n", batch))
  cat("cpu/gpu: the Toeplitz-Hankel method; gpu x: cpu time / gpu time; errors relative to the largest coefficient\n")
  cat("factor: the CPU's Hankel factor of both parities of l2c alone (the GPU factors the rows on the device)\n")
  print(f, row.names = FALSE, right = TRUE)
}

bench_legcheb <- function(sizes = bench_opt("sizes", 2^(8:22), 2^(8:12)), batch = bench_opt("batch", 32, 4),
                          direct_max = bench_opt("direct_max", 16384, 4096),
                          batch_max = bench_opt("batch_max", 2^16, 2^12), reps = bench_opt("reps", 3, 1)) {
  set.seed(7)
  gpu <- bench_gpu_ok("GPU Legendre-Chebyshev timings")
  gpu_name <- if (gpu) paste0(", GPU: ", gpu_info()$name[1]) else ""
  message(sprintf("Legendre <-> Chebyshev, CPU %d threads%s", bench_cpu_threads(), gpu_name))
  d <- do.call(rbind, lapply(sizes, bench_legcheb_size, batch = batch, direct_max = direct_max,
                             batch_max = batch_max, reps = reps, gpu = gpu))
  cross <- legcheb_crossover_of(d)
  message(sprintf("fast method faster than the direct one from n = %s (one column), n = %s (%d columns)",
                  cross[1], cross[2], batch))
  list(table = d, crossover = cross, batch = batch)
}

if (sys.nframe() == 0L) {
  suppressPackageStartupMessages(library(gpustats))
  res <- bench_legcheb()
  legcheb_print(res$table, res$batch)
}
