# Tile Cholesky (FP64): on one GPU against cuSOLVER's Xpotrf in the same run,
# on the Matérn covariance of n random points in the unit square (range 0.1,
# smoothness 0.5, nugget 0.01) generated in device memory; in core (the
# factor kept on the device, and stored to host memory) and out of core (the
# device cache capped to a fraction of the tiles). On the CPU: the package's
# path on all cores against base chol() on the host's BLAS.
#
#   Rscript inst/bench/tile_chol.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   tile_n         GPU sizes (default 32768,65536)
#   tile_sizes     GPU tile sizes (default 1024,2048)
#   tile_ooc       fractions of the tiles the capped cache holds (default 0.5,0.25)
#   tile_cpu_n     CPU size (default 4000)
#   tile_trace     file for the event trace of one factorization at the largest
#                  GPU size and tile (CSV; default none)
#   reps           timed repeats (default 3)

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

bench_tile_chol <- function(sizes = bench_opt("tile_n", c(32768, 65536), 4096),
                            tiles = bench_opt("tile_sizes", c(1024, 2048), 512),
                            ooc = bench_opt("tile_ooc", c(0.5, 0.25), 0.5),
                            cpu_n = bench_opt("tile_cpu_n", 4000, 500),
                            trace_file = bench_opt("tile_trace", ""),
                            reps = bench_opt("reps", 3, 1), gpu = NA) {
  if (is.na(gpu)) gpu <- bench_gpu_ok("GPU tile Cholesky benchmarks")
  rows <- list()
  add <- function(...) rows[[length(rows) + 1L]] <<- bench_row(...)
  flops <- function(n) n^3 / 3
  if (gpu) {
    hook <- get("gs_r_bench_tile_chol", envir = asNamespace("gpustats"))
    id <- as.integer(getOption("gpustats.gpus", 0L)[1L])
    for (n in sizes) for (nb in tiles) {
      s <- .Call(hook, as.double(n), as.integer(nb), 0L, as.integer(reps), id)
      gen <- s[2]
      add("Xpotrf (cuSOLVER, in core)", n, "gpu", s[1] - gen, flops(n) / (s[1] - gen))
      add(sprintf("tile_chol, tile %d, factor on the device", nb), n, "gpu", s[3] - gen, flops(n) / (s[3] - gen))
      add(sprintf("tile_chol, tile %d, factor to host memory", nb), n, "gpu", s[4] - gen, flops(n) / (s[4] - gen))
      message(sprintf("n = %s tile %d: Xpotrf %.2f TFLOP/s; tiles on device %.2f, to host %.2f TFLOP/s (%.2fx Xpotrf)",
                      fmt_n(n), nb, flops(n) / (s[1] - gen) / 1e12, flops(n) / (s[3] - gen) / 1e12,
                      flops(n) / (s[4] - gen) / 1e12, (s[1] - gen) / (s[3] - gen)))
      nt <- ceiling(n / nb)
      for (f in ooc) {
        cache <- as.integer(floor(f * nt * (nt + 1) / 2))
        o <- .Call(hook, as.double(n), as.integer(nb), cache, as.integer(reps), id)
        add(sprintf("tile_chol, tile %d, cache %d%% of the tiles", nb, round(100 * f)), n, "gpu", o[4] - gen,
            flops(n) / (o[4] - gen))
        message(sprintf("  out of core, cache %d of %d tiles: %.2f TFLOP/s (%.0f%% of in core); %.1f GB to the GPU, %.1f GB back (matrix %.1f GB)",
                        cache, nt * (nt + 1) / 2, flops(n) / (o[4] - gen) / 1e12, 100 * (s[4] - gen) / (o[4] - gen),
                        o[5] / 1e9, o[6] / 1e9, 4 * n^2 / 1e9))
      }
    }
  }
  if (gpu && nzchar(trace_file)) tile_trace_run(max(sizes), max(tiles), trace_file)
  set.seed(1)
  X <- matrix(rnorm(cpu_n * cpu_n), cpu_n)
  A <- crossprod(X) / cpu_n + diag(cpu_n)
  t <- bench_time(function() tile_chol(A, device = "cpu"), reps = reps, warmup = 0L)
  add("tile_chol (CPU path, all cores)", cpu_n, "cpu", t, flops(cpu_n) / t)
  t0 <- bench_time(function() chol(A), reps = reps, warmup = 0L)
  add("base chol()", cpu_n, "cpu", t0, flops(cpu_n) / t0)
  message(sprintf("CPU n = %s: tile_chol %s s, chol() %s s", fmt_n(cpu_n), fmt_sec(t), fmt_sec(t0)))
  do.call(rbind, rows)
}

# One traced factorization of the benchmark's matrix: the trace goes to
# `file`, a summary to the log (how busy each stream was, the rate of the
# GEMMs themselves, the time spent in POTRF).
tile_trace_run <- function(n, nb, file) {
  set.seed(11)
  locs <- matrix(runif(2 * n), ncol = 2)
  f <- tile_chol(matern_spec(locs, range = 0.1, nugget = 0.01), tile = nb, trace = TRUE, device = "gpu")
  tr <- f$trace
  utils::write.csv(tr, file, row.names = FALSE)
  span <- max(tr$end) - min(tr$start)
  busy <- tapply(tr$end - tr$start, tr$stream, sum) / span
  gemm <- tr[tr$op == "gemm", ]
  message(sprintf("trace n = %s tile %d: %.3f s, %d ops; busy: %s", fmt_n(n), nb, span, nrow(tr),
                  paste(sprintf("%s %.0f%%", names(busy), 100 * busy), collapse = ", ")))
  message(sprintf("  GEMM %d x %d x %d: median %.3f ms (%.1f TFLOP/s each); POTRF total %.3f s; wrote %s",
                  nb, nb, nb, 1e3 * stats::median(gemm$end - gemm$start),
                  2 * nb^3 / stats::median(gemm$end - gemm$start) / 1e12,
                  sum(tr$end[tr$op == "potrf"] - tr$start[tr$op == "potrf"]), file))
  invisible(tr)
}

tile_chol_tables <- function(res) {
  tab <- data.frame(benchmark = res$benchmark, device = res$device, n = fmt_n(res$size),
                    seconds = fmt_sec(res$seconds), `TFLOP/s` = fmt_g(res$rate / 1e12, 3),
                    stringsAsFactors = FALSE, check.names = FALSE)
  paste(c("## Tile Cholesky (FP64; Matérn covariance of random points on the GPU, random SPD on the CPU)", "",
          md_table(tab, "llrrr"), "",
          "Rates count n^3/3 floating-point operations. GPU times exclude the generation of the covariance (timed alone in the same run).",
          ""), collapse = "\n")
}

if (sys.nframe() == 0L) {
  res <- bench_tile_chol()
  print(res)
  cat(tile_chol_tables(res), "\n")
}
