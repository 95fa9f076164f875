# Polynomial transforms: speed of the DCTs and batched tridiagonal solves on
# the GPU against the CPU path (all cores), accuracy and error growth of the
# Jones-Worland transforms (connection against quadrature), and the
# spherical-harmonic round trip at high degree.
#
#   Rscript inst/bench/poly.R [--option=value ...]
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   dct_n, dct_batch        DCT length and columns (default 1024, 4096)
#   tri_sizes               tridiagonal "n x systems" pairs (default 1024x4096,64x100000)
#   jw_n                    Jones-Worland sizes N for the error growth (l = N, nr = N + l/2;
#                           default 32,64,128,256,512,1024)
#   sht_lmax                spherical-harmonic degrees of the round trip (default 1023;
#                           4095 takes minutes on the CPU)
#   jw_field                N = L of the whole-ball Jones-Worland field (default 255): plans
#                           (connection, quadrature) on the CPU and the GPU against the loop
#                           over l; bench_poly_jw_field() alone (see its comment):
#                           Rscript -e 'source("inst/bench/poly.R"); bench_poly_jw_field_print(
#                             bench_poly_jw_field(255, 255, gpu = TRUE, reps = 3))'
#   reps                    timed repeats (default 3)
# GPU timings are end to end from R (host copies included), median of `reps`,
# except the last table: the tridiagonal bar in device memory against the
# copy bandwidth and cuSPARSE (bench_poly_tridiag_device; the tri_sizes).

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

bench_poly_dct <- function(n, batch, reps, gpu) {
  x <- matrix(stats::rnorm(n * batch), n, batch)
  rows <- list()
  for (type in 2:4) {
    cpu <- bench_time(function() dct(x, type, device = "cpu"), reps)
    line <- sprintf("dct type %d, n = %d x %d: cpu %s", type, n, batch, fmt_sec(cpu))
    row <- data.frame(what = sprintf("dct-%d", type), size = sprintf("%d x %d", n, batch), cpu_s = cpu,
                      gpu_s = NA_real_, ratio = NA_real_, gpu_vs_cpu_max_rel = NA_real_)
    if (gpu) {
      g <- bench_time(function() dct(x, type, device = "gpu"), reps)
      c0 <- dct(x, type, device = "cpu")
      row$gpu_s <- g
      row$ratio <- cpu / g
      row$gpu_vs_cpu_max_rel <- max(abs(dct(x, type, device = "gpu") - c0)) / max(abs(c0))
      line <- paste0(line, sprintf(", gpu %s (%.1fx)", fmt_sec(g), cpu / g))
    }
    message(line)
    rows[[length(rows) + 1L]] <- row
  }
  do.call(rbind, rows)
}

bench_poly_tridiag <- function(sizes, reps, gpu) {
  rows <- list()
  for (s in sizes) {
    nk <- as.numeric(strsplit(s, "x", fixed = TRUE)[[1]])
    n <- nk[1]; k <- nk[2]
    lower <- matrix(stats::runif((n - 1) * k, -1, 1), n - 1); upper <- matrix(stats::runif((n - 1) * k, -1, 1), n - 1)
    diag <- matrix(stats::runif(n * k, 2.5, 4), n); b <- matrix(stats::rnorm(n * k), n)
    cpu <- bench_time(function() banded_solve(lower, diag, upper, b, device = "cpu"), reps)
    row <- data.frame(what = "tridiagonal, one matrix per system", size = s, cpu_s = cpu, gpu_s = NA_real_,
                      ratio = NA_real_, gpu_vs_cpu_max_rel = NA_real_)
    if (gpu) {
      g <- bench_time(function() banded_solve(lower, diag, upper, b, device = "gpu"), reps)
      c0 <- banded_solve(lower, diag, upper, b, device = "cpu")
      row$gpu_s <- g
      row$ratio <- cpu / g
      row$gpu_vs_cpu_max_rel <- max(abs(banded_solve(lower, diag, upper, b, device = "gpu") - c0)) / max(abs(c0))
    }
    message(sprintf("tridiagonal %s: cpu %s%s", s, fmt_sec(cpu),
                    if (gpu) sprintf(", gpu %s (%.1fx)", fmt_sec(row$gpu_s), row$ratio) else ""))
    rows[[length(rows) + 1L]] <- row
  }
  do.call(rbind, rows)
}

# The bar of the batched tridiagonal solve, in device memory (no host
# copies), all in one native call on the same random systems: the
# device-to-device copy of the systems' bytes (three diagonals and the
# right-hand side), the package's solver and cusparseDgtsv2StridedBatch,
# each timed with CUDA events (median of `reps` runs of 10), and the largest
# difference between the two solutions. Effective bandwidth: 2 x system
# bytes / time, as for the copy (which reads and writes them once). Bar: at
# least 70 % of the copy's bandwidth and faster than cuSPARSE.
bench_poly_tridiag_device <- function(sizes, reps) {
  hook <- bench_hook("gs_r_bench_tridiag")
  if (is.null(hook)) return(NULL)
  id <- as.integer(getOption("gpustats.gpus", 0L)[1L])
  rows <- lapply(sizes, function(s) {
    nk <- as.numeric(strsplit(s, "x", fixed = TRUE)[[1]])
    r <- .Call(hook, nk[1], nk[2], as.integer(max(reps, 5)), id)
    bw <- 2 * r[5] / r[1:3] / 1e9
    data.frame(n = nk[1], systems = nk[2], system_mb = r[5] / 1e6, copy_gbs = bw[1], package_gbs = bw[2],
               pct_of_copy = 100 * bw[2] / bw[1], cusparse_gbs = bw[3], package_s = r[2], cusparse_s = r[3],
               vs_cusparse = r[3] / r[2], max_rel_diff = r[4],
               bar = if (bw[2] >= 0.7 * bw[1] && r[2] < r[3]) "met" else "not met")
  })
  do.call(rbind, rows)
}

bench_poly_tridiag_device_print <- function(d) {
  old <- options(width = max(getOption("width"), 220)) # one table, not wrapped
  on.exit(options(old))
  if (is.null(d) || !nrow(d)) return(invisible())
  f <- data.frame(`n x systems` = sprintf("%d x %d", d$n, d$systems), MB = fmt_g(d$system_mb, 3),
                  `copy GB/s` = fmt_g(d$copy_gbs, 4), `package GB/s` = fmt_g(d$package_gbs, 4),
                  `% of copy` = sprintf("%.0f", d$pct_of_copy), `cuSPARSE GB/s` = fmt_g(d$cusparse_gbs, 4),
                  `package s` = fmt_sec(d$package_s), `cuSPARSE s` = fmt_sec(d$cusparse_s),
                  `x cuSPARSE` = fmt_ratio(d$vs_cusparse), `max rel diff` = fmt_g(d$max_rel_diff, 2),
                  `bar (>= 70 %, < cuSPARSE)` = d$bar, check.names = FALSE)
  cat(sprintf("\nBatched tridiagonal solve in device memory, %s: bandwidth = 2 x system bytes / time\n", bench_gpu_name()))
  print(f, row.names = FALSE, right = TRUE)
}

# Round-trip error (analysis after synthesis, max abs over 4 random columns)
# for l = N, nr = N + l/2, and the slope of log(error) on log(N).
bench_poly_jw <- function(sizes) {
  err <- t(vapply(sizes, function(N) {
    l <- N; nr <- N + ceiling(l / 2); coef <- matrix(stats::rnorm(N * 4), N)
    e <- function(m) max(abs(jwt_analysis(jwt_synthesis(coef, l, nr, m), l, N, m) - coef))
    c(N = N, connection = e("connection"), quadrature = e("quadrature"))
  }, numeric(3)))
  d <- as.data.frame(err)
  slope <- function(y) unname(stats::coef(stats::lm(log(y) ~ log(d$N)))[2])
  message(sprintf("JW round-trip error slopes on log N: connection %.2f, quadrature %.2f",
                  slope(d$connection), slope(d$quadrature)))
  print(d)
  list(errors = d, slope_connection = slope(d$connection), slope_quadrature = slope(d$quadrature))
}

# One scalar ball field, N = L: for each l the 2 (l + 1) columns (orders m,
# real and imaginary parts) through synthesis then analysis, on one radial
# grid nr = N + ceiling(L / 2) + 1. Rows: a plan (jwt_plan(), built once and
# timed apart) by connection and by quadrature (one DGEMM per degree), on
# the CPU (all cores) and the GPU; and the loop over l of the single-degree
# functions, which build their tables and move their columns at each call.
# Memory: what a plan holds (on its device) and the working memory of a call
# (the larger direction; a GPU's cuFFT plans come on top); for the loop, the
# tables and columns of its largest degree. `vs CPU plan`: the largest
# difference of the synthesized values from the CPU connection plan's,
# relative to their largest value; `round trip`: the largest error of the
# coefficients after synthesis and analysis.
bench_poly_jw_field <- function(N, L, gpu, reps) {
  nr <- N + ceiling(L / 2) + 1
  coef <- lapply(0:L, function(l) matrix(stats::rnorm(N * 2 * (l + 1)), N))
  ncol <- sum(2 * (0:L + 1))
  work_bytes <- function(ptr) max(.Call(gpustats:::gs_r_jwt_plan_work_bytes, ptr, ncol, FALSE),
                                  .Call(gpustats:::gs_r_jwt_plan_work_bytes, ptr, ncol, TRUE))
  max_diff <- function(a, b) max(mapply(function(x, y) max(abs(x - y)), a, b))
  ref <- NULL
  rows <- list()
  add <- function(what, device, build, seconds, bytes, work, v, back) {
    if (is.null(ref)) ref <<- v
    rows[[length(rows) + 1L]] <<- data.frame(
      what = what, device = device, build_s = build, seconds = seconds, plan_mb = bytes / 1e6, work_mb = work / 1e6,
      vs_cpu_plan = max_diff(v, ref) / max(vapply(ref, function(x) max(abs(x)), 0)), round_trip = max_diff(back, coef))
    message(sprintf("JW field N = L = %d, %s on the %s: %s (plan built in %s)", N, what, device, fmt_sec(seconds),
                    fmt_sec(build)))
  }
  devices <- c("cpu", if (gpu) "gpu")
  for (device in devices) for (method in c("connection", "quadrature")) {
    build <- system.time(p <- jwt_plan(N, L, nr, method, device = device))[["elapsed"]]
    v <- jwt_plan_synthesis(p, coef) # also the warm-up
    back <- jwt_plan_analysis(p, v)
    t <- bench_time(function() jwt_plan_analysis(p, jwt_plan_synthesis(p, coef)), reps, warmup = 0L)
    add(paste("plan,", method), device, build, t, p$bytes, work_bytes(p$ptr), v, back)
    rm(p, v, back)
    invisible(gc(verbose = FALSE))
  }
  for (device in devices) {
    v <- vector("list", L + 1L)
    back <- vector("list", L + 1L)
    t <- system.time(for (l in 0:L) {
      v[[l + 1L]] <- jwt_synthesis(coef[[l + 1L]], l, nr, device = device)
      back[[l + 1L]] <- jwt_analysis(v[[l + 1L]], l, N, device = device)
    })[["elapsed"]]
    top <- .Call(gpustats:::gs_r_jwt_plan_new, L, L, N, nr, 0L, if (device == "gpu") 0L else -1L, 0L)
    add("loop over l, connection", device, NA_real_, t, .Call(gpustats:::gs_r_jwt_plan_info, top)$bytes,
        max(.Call(gpustats:::gs_r_jwt_plan_work_bytes, top, 2 * (L + 1), FALSE),
            .Call(gpustats:::gs_r_jwt_plan_work_bytes, top, 2 * (L + 1), TRUE)), v, back)
  }
  d <- do.call(rbind, rows)
  d$vs_cpu_loop <- d$seconds[d$what == "loop over l, connection" & d$device == "cpu"] / d$seconds
  structure(d, N = N)
}

bench_poly_jw_field_print <- function(d) {
  f <- data.frame(transform = d$what, device = d$device, `plan built (s)` = fmt_sec(d$build_s),
                  `synthesis + analysis (s)` = fmt_sec(d$seconds), `x CPU loop` = fmt_ratio(d$vs_cpu_loop),
                  `plan MB` = fmt_g(d$plan_mb, 3), `work MB` = fmt_g(d$work_mb, 3),
                  `vs CPU plan` = fmt_g(d$vs_cpu_plan, 2), `round trip` = fmt_g(d$round_trip, 2), check.names = FALSE)
  cat(md_section(sprintf("Jones-Worland transforms of one ball field, N = L = %d", attr(d, "N")), f, "llrrrrrrr",
                 sprintf("GPU: %s; CPU: %s, %d threads. End to end from R (host copies included), median of the repeats; the loops once.",
                         bench_gpu_name(), bench_cpu_name(), bench_cpu_threads())))
}

bench_poly_sht <- function(lmaxes, gpu = FALSE) {
  rows <- list()
  for (lmax in lmaxes) {
    g <- sht_grid(lmax)
    L <- lmax + 1
    low <- outer(0:lmax, 0:lmax, ">=")
    a <- structure(list(cos = array(stats::rnorm(L * L) * low, c(L, L, 1)),
                        sin = array(stats::rnorm(L * L) * low, c(L, L, 1)), lmax = lmax, grid = g), class = "sht")
    a$sin[, 1, 1] <- 0
    t_syn <- system.time(v <- sht_synthesis(a))[["elapsed"]]
    t_ana <- system.time(b <- sht_analysis(v, grid = g))[["elapsed"]]
    err <- sqrt(sum((b$cos - a$cos)^2 + (b$sin - a$sin)^2) / sum(a$cos^2 + a$sin^2))
    message(sprintf("SHT lmax = %d (Gauss %d x %d), CPU %d threads: synthesis %s, analysis %s, relative L2 round-trip error %.2e",
                    lmax, g$nlat, g$nlon, bench_cpu_threads(), fmt_sec(t_syn), fmt_sec(t_ana), err))
    row <- data.frame(lmax = lmax, synthesis_s = t_syn, analysis_s = t_ana, rel_l2 = err, gpu_synthesis_s = NA_real_,
                      gpu_analysis_s = NA_real_, gpu_rel_l2 = NA_real_)
    if (gpu) {
      sht_synthesis(a, device = "gpu") # warm-up: context, plans
      row$gpu_synthesis_s <- system.time(vg <- sht_synthesis(a, device = "gpu"))[["elapsed"]]
      row$gpu_analysis_s <- system.time(bg <- sht_analysis(vg, grid = g, device = "gpu"))[["elapsed"]]
      row$gpu_rel_l2 <- sqrt(sum((bg$cos - a$cos)^2 + (bg$sin - a$sin)^2) / sum(a$cos^2 + a$sin^2))
      message(sprintf("SHT lmax = %d on the GPU: synthesis %s, analysis %s (end to end), relative L2 round-trip error %.2e",
                      lmax, fmt_sec(row$gpu_synthesis_s), fmt_sec(row$gpu_analysis_s), row$gpu_rel_l2))
    }
    rows[[length(rows) + 1L]] <- row
  }
  do.call(rbind, rows)
}

bench_poly <- function(dct_n = bench_opt("dct_n", 1024, 128), dct_batch = bench_opt("dct_batch", 4096, 64),
                       tri_sizes = bench_opt("tri_sizes", "1024x4096,64x100000", "64x1000"),
                       jw_n = bench_opt("jw_n", c(32, 64, 128, 256, 512, 1024), c(32, 64, 128)),
                       sht_lmax = bench_opt("sht_lmax", 1023, 63), jw_field = bench_opt("jw_field", 255, 31),
                       reps = bench_opt("reps", 3, 1)) {
  set.seed(11)
  gpu <- bench_gpu_ok("GPU polynomial-transform benchmarks")
  tri_sizes <- strsplit(tri_sizes, ",", fixed = TRUE)[[1]]
  list(dct = bench_poly_dct(dct_n, dct_batch, reps, gpu), tridiag = bench_poly_tridiag(tri_sizes, reps, gpu),
       tridiag_device = if (gpu) bench_poly_tridiag_device(tri_sizes, reps) else NULL,
       jw = bench_poly_jw(jw_n), jw_field = bench_poly_jw_field(jw_field, jw_field, gpu, reps),
       sht = bench_poly_sht(sht_lmax, gpu))
}

if (sys.nframe() == 0L) {
  res <- bench_poly()
  print(res$dct)
  print(res$tridiag)
  bench_poly_jw_field_print(res$jw_field)
  print(res$sht)
  bench_poly_tridiag_device_print(res$tridiag_device)
}
