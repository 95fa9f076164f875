# Legendre <-> Chebyshev conversions on the CPU: the direct O(n^2) method
# against the Toeplitz-Hankel O(n log^2 n) method, times for n = 256 .. 2^20
# (one column, and a batch of columns), the crossover, the rank of the
# Hankel factor, and the error of the fast method against the direct one
# (relative to the largest output coefficient) and of its round trip.
#
#   Rscript inst/bench/poly-legcheb.R [--option=value ...]
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   sizes        n (default 2^8 .. 2^20 by factors of 2)
#   direct_max   largest n timed by the direct method (default 16384: its
#                matrix takes 8 n^2 bytes)
#   batch        columns of the batched timing (default 32)
#   reps         timed repeats, median (default 3)
# There is no GPU path: these conversions run on the CPU (gpustats.threads).

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

legcheb_rank <- function(n, to_chebyshev) {
  vapply(0:1, function(p) .Call(gpustats:::gs_r_legcheb_rank, as.integer(n), to_chebyshev, p), integer(1))
}

bench_legcheb_size <- function(n, batch, direct_max, reps) {
  x <- stats::rnorm(n)
  xb <- matrix(stats::rnorm(n * batch), n)
  time <- function(f, x, method) if (method == "direct" && n > direct_max) NA_real_ else bench_time(function() f(x, method), reps)
  th <- legendre_to_chebyshev(x, "toeplitz-hankel")
  err_direct <- if (n <= direct_max) max(abs(th - legendre_to_chebyshev(x, "direct"))) / max(abs(th)) else NA_real_
  back <- chebyshev_to_legendre(th, "toeplitz-hankel")
  row <- data.frame(
    n = n, rank_l2c = max(legcheb_rank(n, TRUE)), rank_c2l = max(legcheb_rank(n, FALSE)),
    direct_s = time(legendre_to_chebyshev, x, "direct"), fast_s = time(legendre_to_chebyshev, x, "toeplitz-hankel"),
    c2l_direct_s = time(chebyshev_to_legendre, x, "direct"), c2l_fast_s = time(chebyshev_to_legendre, x, "toeplitz-hankel"),
    batch_direct_s = time(legendre_to_chebyshev, xb, "direct"), batch_fast_s = time(legendre_to_chebyshev, xb, "toeplitz-hankel"),
    fast_vs_direct = err_direct, round_trip = max(abs(back - x)) / max(abs(x)))
  message(sprintf("n = %7d  rank %2d/%2d  leg2cheb direct %s fast %s  cheb2leg direct %s fast %s  batch of %d: direct %s fast %s  err %.1e  round trip %.1e",
                  n, row$rank_l2c, row$rank_c2l, fmt_sec(row$direct_s), fmt_sec(row$fast_s), fmt_sec(row$c2l_direct_s),
                  fmt_sec(row$c2l_fast_s), batch, fmt_sec(row$batch_direct_s), fmt_sec(row$batch_fast_s),
                  row$fast_vs_direct, row$round_trip))
  row
}

# The smallest n of the table from which the fast method is faster for one
# column and for the batch.
legcheb_crossover_of <- function(d) {
  first <- function(direct, fast) {
    ok <- !is.na(direct) & fast < direct
    if (any(ok)) d$n[which(ok)[1]] else NA
  }
  c(one_column = first(d$direct_s, d$fast_s), batch = first(d$batch_direct_s, d$batch_fast_s))
}

bench_legcheb <- function(sizes = bench_opt("sizes", 2^(8:20), 2^(8:12)), batch = bench_opt("batch", 32, 4),
                          direct_max = bench_opt("direct_max", 16384, 4096), reps = bench_opt("reps", 3, 1)) {
  set.seed(7)
  message(sprintf("Legendre <-> Chebyshev on the CPU, %d threads", bench_cpu_threads()))
  d <- do.call(rbind, lapply(sizes, bench_legcheb_size, batch = batch, direct_max = direct_max, reps = reps))
  cross <- legcheb_crossover_of(d)
  message(sprintf("fast method faster from n = %s (one column), n = %s (%d columns)", cross[1], cross[2], batch))
  list(table = d, crossover = cross)
}

if (sys.nframe() == 0L) {
  suppressPackageStartupMessages(library(gpustats))
  res <- bench_legcheb()
  print(res$table, digits = 3)
}
