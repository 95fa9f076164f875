# Tile Cholesky (FP64): on one GPU against cuSOLVER's Xpotrf in the same run,
# on the Matérn covariance of n random points in the unit square (range 0.1,
# smoothness 0.5, nugget 0.01) generated in device memory; in core (the
# factor kept on the device, and stored to host memory) and out of core (the
# device cache capped to a fraction of the tiles), and one tile_chol() call
# end to end. On the CPU: the package's path on all cores against base
# chol() on the host's BLAS.
#
#   Rscript inst/bench/tile_chol.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   tile_n         GPU sizes (default 32768,65536)
#   tile_sizes     GPU tile sizes (default 1024,2048)
#   tile_ooc       fractions of the tiles the capped cache holds (default
#                  0.5,0.25; 0: none)
#   tile_big_n     sizes larger than device memory, factored out of core with
#                  the cache the device holds (default 150000; skipped when
#                  the host memory cannot hold the tiles)
#   tile_big_sizes their tile sizes (default 2048)
#   tile_cpu_n     CPU size (default 4000; 0: no CPU rows)
#   tile_trace     file for the event trace of one factorization at the largest
#                  GPU size (CSV; default none)
#   tile_trace_size its tile size (default the largest of tile_sizes)
#   tile_gpus_n    sizes of the study on several GPUs (all of the host's;
#                  default 100000,200000; 0: none)
#   tile_gpus_size its tile size (default 2048)
#   tile_gpus_trace file for the event trace of one factorization on all the
#                  GPUs at the largest of tile_gpus_n (CSV; default none)
#   tile_mixed_n   sizes of the mixed-precision study (default 65536; 0: none)
#   tile_mixed_size its tile size (default 2048)
#   tile_mixed_fp8 0: the lowest format is FP16 (tile_chol's default); 1: FP8
#                  allowed; 0,1: both (default 0)
#   gp_mixed_fit_n sizes of the gp_fit recovery study: FP64 against mixed
#                  precision on the same data (default 20000; 0: none)
#   reps           timed repeats (default 3)

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

bench_tile_chol <- function(sizes = bench_opt("tile_n", c(32768, 65536), 4096),
                            tiles = bench_opt("tile_sizes", c(1024, 2048), 512),
                            ooc = bench_opt("tile_ooc", c(0.5, 0.25), 0.5),
                            big = bench_opt("tile_big_n", 150000, 0),
                            big_tiles = bench_opt("tile_big_sizes", 2048, 2048),
                            cpu_n = bench_opt("tile_cpu_n", 4000, 500),
                            trace_file = bench_opt("tile_trace", ""),
                            trace_tile = bench_opt("tile_trace_size", max(tiles)),
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
      if (is.finite(s[9])) add("DGEMM 8192 x 8192 x 8192 (cuBLAS)", 8192, "gpu", s[9], 2 * 8192^3 / s[9])
      message(sprintf("n = %s tile %d: Xpotrf %.2f TFLOP/s; tiles on device %.2f, to host %.2f TFLOP/s (%.2fx Xpotrf); DGEMM 8192 %.2f TFLOP/s",
                      fmt_n(n), nb, flops(n) / (s[1] - gen) / 1e12, flops(n) / (s[3] - gen) / 1e12,
                      flops(n) / (s[4] - gen) / 1e12, (s[1] - gen) / (s[3] - gen), 2 * 8192^3 / s[9] / 1e12))
      call <- tile_chol_call_time(n, nb, reps)
      add(sprintf("tile_chol() call, tile %d, generation and host memory included", nb), n, "gpu", call,
          flops(n) / call)
      message(sprintf("  tile_chol() call: %.2f s, against %.2f s for the factorization and %.2f s for the generation",
                      call, s[4] - gen, gen))
      nt <- ceiling(n / nb)
      for (f in ooc[ooc > 0]) {
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
  if (gpu) for (n in big[big > 0]) for (nb in big_tiles) bench_tile_chol_big(n, nb, add)
  if (gpu && nzchar(trace_file)) tile_trace_run(max(sizes), trace_tile, trace_file)
  if (cpu_n > 0) { # 0 skips the CPU rows
    set.seed(1)
    X <- matrix(rnorm(cpu_n * cpu_n), cpu_n)
    A <- crossprod(X) / cpu_n + diag(cpu_n)
    t <- bench_time(function() tile_chol(A, device = "cpu"), reps = reps, warmup = 0L)
    add("tile_chol (CPU path, all cores)", cpu_n, "cpu", t, flops(cpu_n) / t)
    t0 <- bench_time(function() chol(A), reps = reps, warmup = 0L)
    add("base chol()", cpu_n, "cpu", t0, flops(cpu_n) / t0)
    message(sprintf("CPU n = %s: tile_chol %s s, chol() %s s", fmt_n(cpu_n), fmt_sec(t), fmt_sec(t0)))
  }
  do.call(rbind, rows)
}

# One tile_chol() call as a user makes it, on the benchmark's covariance
# (random points this time): the factor's host memory is allocated (and
# page-locked) and released by every call, and the tiles are generated in
# device memory.
tile_chol_call_time <- function(n, nb, reps) {
  locs <- matrix(stats::runif(2 * n), ncol = 2)
  spec <- matern_spec(locs, range = 0.1, smoothness = 0.5, nugget = 0.01)
  bench_time(function() tile_chol(spec, tile = nb, device = "gpu"), reps = reps, warmup = 0L)
}

# Out of core at a size the device cannot hold, with the cache it holds: the
# time includes the generation of the tiles (the whole matrix cannot be
# generated alone for reference), and is compared with the in-core tile run
# at the largest benchmark size, generation included there too.
bench_tile_chol_big <- function(n, nb, add) {
  nt <- ceiling(n / nb)
  bytes <- 8 * nb^2 * nt * (nt + 1) / 2
  avail <- bench_mem_available()
  if (!is.na(avail) && avail < 1.05 * bytes) {
    message(sprintf("n = %s: skipped, the tiles need %.1f GB of host memory and %.1f GB are available", fmt_n(n),
                    bytes / 1e9, avail / 1e9))
    return(invisible())
  }
  hook <- get("gs_r_bench_tile_chol", envir = asNamespace("gpustats"))
  id <- as.integer(getOption("gpustats.gpus", 0L)[1L])
  o <- .Call(hook, as.double(n), as.integer(nb), -1L, 1L, id)
  rate <- n^3 / 3 / o[4]
  add(sprintf("tile_chol, tile %d, out of core (cache %d of %d tiles), generation included", nb, o[7],
              nt * (nt + 1) / 2), n, "gpu", o[4], rate)
  message(sprintf("n = %s tile %d out of core: %.2f s, %.2f TFLOP/s with generation; cache %d of %d tiles; %.1f GB to the GPU, %.1f GB back (tiles %.1f GB)",
                  fmt_n(n), nb, o[4], rate / 1e12, o[7], nt * (nt + 1) / 2, o[5] / 1e9, o[6] / 1e9, bytes / 1e9))
}

# The FP64 factorization on 1, 2, ... of the GPUs of gpustats.gpus (all GPUs
# by default), L stored to host memory, the Matérn matrix of the benchmark
# generated on the devices: the rate, and the parallel efficiency against one
# GPU (the rate on g GPUs over g times the rate on one).
bench_tile_chol_gpus <- function(sizes = bench_opt("tile_gpus_n", c(100000, 200000), 0),
                                 nb = bench_opt("tile_gpus_size", 2048, 2048),
                                 reps = bench_opt("reps", 3, 1), gpus = getOption("gpustats.gpus", gpu_info()$id),
                                 trace_file = bench_opt("tile_gpus_trace", "")) {
  hook <- get("gs_r_bench_tile_chol", envir = asNamespace("gpustats"))
  rows <- list()
  for (n in sizes[sizes > 0]) {
    nt <- ceiling(n / nb)
    bytes <- 8 * nb^2 * nt * (nt + 1) / 2
    avail <- bench_mem_available()
    if (!is.na(avail) && avail < 1.05 * bytes) {
      message(sprintf("n = %s on several GPUs: skipped, the tiles need %.1f GB of host memory", fmt_n(n), bytes / 1e9))
      next
    }
    one <- NA_real_
    for (g in seq_along(gpus)) {
      # -1: only the factorization stored to host memory, also on one GPU
      o <- .Call(hook, as.double(n), as.integer(nb), -1L, as.integer(reps), as.integer(gpus[seq_len(g)]))
      rate <- n^3 / 3 / o[4]
      if (g == 1L) one <- rate
      rows[[length(rows) + 1L]] <- data.frame(n = n, tile = nb, gpus = g, seconds = o[4], tflops = rate / 1e12,
                                              efficiency = rate / (g * one), to_gpu_gb = o[5] / 1e9,
                                              to_host_gb = o[6] / 1e9)
      message(sprintf("n = %s tile %d on %d GPU%s: %.2f s, %.2f TFLOP/s with generation, efficiency %.0f%%; %.1f GB to the GPUs, %.1f GB back",
                      fmt_n(n), nb, g, if (g > 1) "s" else "", o[4], rate / 1e12, 100 * rate / (g * one), o[5] / 1e9,
                      o[6] / 1e9))
    }
  }
  if (nzchar(trace_file) && any(sizes > 0)) tile_trace_run(max(sizes), nb, trace_file, gpus)
  do.call(rbind, rows)
}

# One traced factorization of the benchmark's matrix on `gpus`: the trace
# goes to `file`, a summary to the log (how busy each stream of each GPU was,
# the rate of the GEMMs themselves, the time spent in POTRF).
tile_trace_run <- function(n, nb, file, gpus = 0L) {
  set.seed(11)
  locs <- matrix(runif(2 * n), ncol = 2)
  f <- tile_chol(matern_spec(locs, range = 0.1, nugget = 0.01), tile = nb, trace = TRUE, gpus = gpus,
                 device = "gpu")
  tr <- f$trace
  utils::write.csv(tr, file, row.names = FALSE)
  span <- max(tr$end) - min(tr$start)
  message(sprintf("trace n = %s tile %d on %d GPU%s: %.3f s from the first op to the last, %.3f s in all; %d ops",
                  fmt_n(n), nb, length(gpus), if (length(gpus) > 1L) "s" else "", span, f$info$seconds, nrow(tr)))
  for (g in gpus) {
    on <- tr[tr$gpu == g, ]
    busy <- tapply(on$end - on$start, on$stream, sum) / span
    busy <- busy[!is.na(busy)]
    message(sprintf("  GPU %d busy: %s", g, paste(sprintf("%s %.0f%%", names(busy), 100 * busy), collapse = ", ")))
  }
  gemm <- tr[tr$op == "gemm", ]
  message(sprintf("  GEMM %d x %d x %d: median %.3f ms (%.1f TFLOP/s each); POTRF total %.3f s; wrote %s",
                  nb, nb, nb, 1e3 * stats::median(gemm$end - gemm$start),
                  2 * nb^3 / stats::median(gemm$end - gemm$start) / 1e12,
                  sum(tr$end[tr$op == "potrf"] - tr$start[tr$op == "potrf"]), file))
  invisible(tr)
}

# Mixed precision against FP64 on the Matérn covariance (sigma2 1,
# smoothness 0.5, no nugget) of n random points of the unit square in Morton
# order, for weak, medium and strong correlation: both factorizations with
# the tiles generated on the device and the factor stored to host memory
# (the host tiles allocated once); the mixed time includes the precision map
# (a pass over the tiles' norms, also timed alone) and any rerun with
# promoted tiles. D_KL = l_FP64(theta; 0) - l_mixed(theta; 0), half the
# difference of the log-determinants.
bench_tile_chol_mixed <- function(sizes = bench_opt("tile_mixed_n", 65536, 8192),
                                  nb = bench_opt("tile_mixed_size", 2048, 1024),
                                  ranges = c(0.02627, 0.078809, 0.210158), accuracies = c(1e-5, 1e-8),
                                  fp8 = bench_opt("tile_mixed_fp8", 0) > 0, reps = bench_opt("reps", 3, 1)) {
  hook <- get("gs_r_bench_tile_chol_mixed", envir = asNamespace("gpustats"))
  id <- as.integer(getOption("gpustats.gpus", 0L)[1L])
  rows <- list()
  for (n in sizes[sizes > 0]) {
    set.seed(7)
    locs <- matrix(runif(2 * n), ncol = 2)
    locs <- locs[morton_order(locs), ]
    for (range in ranges) for (accuracy in accuracies) for (low8 in fp8) {
      model <- gpustats:::cov_model(c(sigma2 = 1, range = range, smoothness = 0.5, nugget = 0), "euclidean")
      o <- .Call(hook, locs, model, as.integer(nb), accuracy, low8, as.integer(reps), id)
      share <- o[4:7] / sum(o[4:7])
      kl <- (o[9] - o[8]) / 2
      rows[[length(rows) + 1L]] <- data.frame(
        n = n, range = range, accuracy = accuracy, fp8 = low8, fp64_seconds = o[1], mixed_seconds = o[2],
        map_seconds = o[3], speedup = o[1] / o[2], fp64_share = share[1], fp32_share = share[2],
        fp16_share = share[3], fp8_share = share[4], kl = kl, runs = o[10])
      message(sprintf("mixed%s n = %s tile %d range %g accuracy %g: %.3f s against %.3f s in FP64 (%.2fx; %.2f TFLOP/s FP64-equivalent), map %.3f s; tiles FP64 %.1f%%, FP32 %.1f%%, FP16 %.1f%%, FP8 %.1f%%; D_KL %.3g; %d run%s",
                      if (low8) " (FP8 allowed)" else "", fmt_n(n), nb, range, accuracy, o[2], o[1], o[1] / o[2],
                      n^3 / 3 / o[2] / 1e12, o[3], 100 * share[1], 100 * share[2], 100 * share[3],
                      100 * share[4], kl, as.integer(o[10]), if (o[10] > 1) "s" else ""))
    }
  }
  do.call(rbind, rows)
}

# gp_fit in mixed precision against FP64 on the same simulated data, for the
# three correlations of the mixed-precision study (smoothness 0.5, no
# nugget; all three parameters estimated): how far each mixed estimate is
# from the FP64 one, in FP64 standard errors.
bench_gp_fit_mixed <- function(sizes = bench_opt("gp_mixed_fit_n", 20000, 2000),
                               ranges = c(0.02627, 0.078809, 0.210158), accuracies = c(1e-5, 1e-8)) {
  rows <- list()
  quiet <- list(trace = FALSE)
  params <- c("sigma2", "range", "smoothness")
  for (n in sizes[sizes > 0]) for (range in ranges) {
    set.seed(11)
    locs <- matrix(runif(2 * n), ncol = 2)
    y <- gp_simulate(locs, 1, range, 0.5, device = "gpu")
    t <- system.time(ref <- gp_fit_zero_mean(y, locs, device = "gpu", control = quiet))[["elapsed"]]
    se <- sqrt(diag(vcov(ref)))[params]
    row <- function(precision, accuracy, fit, seconds) {
      data.frame(n = n, range = range, precision = precision, accuracy = accuracy,
                 sigma2 = coef(fit)[["sigma2"]], range_hat = coef(fit)[["range"]],
                 smoothness = coef(fit)[["smoothness"]], max_se_distance = max(abs(coef(fit)[params] - coef(ref)[params]) / se),
                 loglik = fit$loglik, evaluations = fit$evaluations, seconds = seconds)
    }
    rows[[length(rows) + 1L]] <- row("double", NA, ref, t)
    message(sprintf("gp_fit n = %s range %g FP64: %s (se %s), %d evaluations, %.1f s", fmt_n(n), range,
                    paste(signif(coef(ref)[params], 6), collapse = ", "), paste(signif(se, 3), collapse = ", "),
                    ref$evaluations, t))
    for (accuracy in accuracies) {
      t <- system.time(fit <- gp_fit_zero_mean(y, locs, precision = "mixed", accuracy = accuracy, device = "gpu",
                                     control = quiet))[["elapsed"]]
      r <- row("mixed", accuracy, fit, t)
      rows[[length(rows) + 1L]] <- r
      message(sprintf("gp_fit n = %s range %g mixed %g: %s, %.3f standard errors from FP64 at most, %d evaluations, %.1f s",
                      fmt_n(n), range, accuracy, paste(signif(coef(fit)[params], 6), collapse = ", "),
                      r$max_se_distance, fit$evaluations, t))
    }
  }
  do.call(rbind, rows)
}

gp_fit_mixed_table <- function(res) {
  tab <- data.frame(n = fmt_n(res$n), range = res$range,
                    precision = ifelse(is.na(res$accuracy), "FP64", sprintf("mixed %s", fmt_g(res$accuracy))),
                    sigma2 = fmt_g(res$sigma2, 5), `range estimate` = fmt_g(res$range_hat, 5),
                    smoothness = fmt_g(res$smoothness, 5), `largest distance (FP64 se)` = fmt_g(res$max_se_distance, 2),
                    evaluations = res$evaluations, seconds = fmt_sec(res$seconds),
                    stringsAsFactors = FALSE, check.names = FALSE)
  md_section("gp_fit in mixed precision against FP64 (Matérn, smoothness 0.5, no nugget; sigma2, range, smoothness estimated; GPU)",
             tab, "rrlrrrrrr",
             "Same data for every row of a range. The distance is the largest over the three parameters of |mixed - FP64| in units of the FP64 standard error (observed information). FP64 fits use the dense factorization; mixed fits the tile Cholesky.")
}

tile_chol_mixed_table <- function(res) {
  pct <- function(x) sprintf("%.1f", 100 * x)
  tab <- data.frame(n = fmt_n(res$n), range = res$range, accuracy = fmt_g(res$accuracy),
                    FP8 = ifelse(res$fp8, "yes", "no"),
                    `FP64 s` = fmt_sec(res$fp64_seconds), `mixed s` = fmt_sec(res$mixed_seconds),
                    speedup = fmt_ratio(res$speedup), `map s` = fmt_sec(res$map_seconds), `% FP64` = pct(res$fp64_share),
                    `% FP32` = pct(res$fp32_share), `% FP16` = pct(res$fp16_share), `% FP8` = pct(res$fp8_share),
                    `D_KL` = fmt_g(res$kl), runs = res$runs,
                    stringsAsFactors = FALSE, check.names = FALSE)
  md_section("Tile Cholesky, mixed precision (Matérn, smoothness 0.5, no nugget, points in Morton order; GPU)",
             tab, "rrrlrrrrrrrrrr",
             "Both factorizations generate the tiles on the device and store the factor to host memory. The mixed time includes the precision map (a pass over the tiles' norms, also timed alone) and the reruns after promoting tiles (runs: the factorizations run). FP8: whether tiles may go down to FP8 (`fp8 = TRUE`; else FP16 is the lowest format). D_KL = l_FP64(theta; 0) - l_mixed(theta; 0). Tiles: shares of the lower triangle's tiles, diagonal included, in the last run.")
}

tile_chol_tables <- function(res) {
  tab <- data.frame(benchmark = res$benchmark, device = res$device, n = fmt_n(res$size),
                    seconds = fmt_sec(res$seconds), `TFLOP/s` = fmt_g(res$rate / 1e12, 3),
                    stringsAsFactors = FALSE, check.names = FALSE)
  paste(c("## Tile Cholesky (FP64; Matérn covariance of random points on the GPU, random SPD on the CPU)", "",
          md_table(tab, "llrrr"), "",
          "Rates count n^3/3 floating-point operations (2 n^3 for the DGEMM). GPU times exclude the generation of the covariance (timed alone in the same run), except where a row says otherwise.",
          ""), collapse = "\n")
}

if (sys.nframe() == 0L) {
  res <- bench_tile_chol()
  print(res)
  cat(tile_chol_tables(res), "\n")
  if (bench_gpu_ok("GPU mixed-precision tile Cholesky benchmarks")) {
    mixed <- bench_tile_chol_mixed()
    if (!is.null(mixed)) cat(tile_chol_mixed_table(mixed), "\n")
    fits <- bench_gp_fit_mixed()
    if (!is.null(fits)) cat(gp_fit_mixed_table(fits), "\n")
  }
}
