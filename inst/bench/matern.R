# Throughput of Matern covariance matrices: gpustats on the GPU (kernel and end
# to end from R), gpustats on all CPU cores, and the base R formula on a dist()
# matrix (what fields::Matern does, one core).
#
#   Rscript inst/bench/matern.R [--option=value ...]
#
# n random locations in the unit square, range 0.1. Options (or environment
# GPUSTATS_BENCH_<OPTION>):
#   matern_kernel_n        GPU kernel size (default 50000)
#   matern_smoothness      kernel smoothness values (default 0.5,1.5,1.3)
#   matern_gpu_n           GPU end-to-end sizes (default 20000,50000; 50000 is
#                          replaced by 30000 when the host lacks the memory)
#   matern_cpu_n           gpustats CPU path size (default 10000)
#   matern_peer_n          base R size (default 5000)
#   reps                   timed repeats (default 3)

# run from the package source root
if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

matern_locs <- function(n) matrix(stats::runif(2 * n), n, 2)

# The base R route: distances, then the Matern formula with besselK.
matern_base_dist <- function(locs, range, nu, sigma2 = 1) {
  z <- as.matrix(stats::dist(locs)) / range
  r <- sigma2 * 2^(1 - nu) / gamma(nu) * z^nu * besselK(z, nu)
  r[z == 0] <- sigma2
  r
}

# Largest n <= n_wanted whose n x n double result fits comfortably in host memory.
matern_fit_n <- function(n, fallback = 30000, factor = 2.5) {
  avail <- bench_mem_available()
  need <- 8 * n^2 * factor
  if (is.na(avail) || avail >= need) return(n)
  message(sprintf("note: n = %s needs about %.0f GB of host memory, %.0f GB available; using n = %s",
                  fmt_n(n), need / 1e9, avail / 1e9, fmt_n(fallback)))
  fallback
}

bench_matern <- function(kernel_n = bench_opt("matern_kernel_n", 50000, 2000),
                         smoothness = bench_opt("matern_smoothness", c(0.5, 1.5, 1.3)),
                         gpu_n = bench_opt("matern_gpu_n", c(20000, 50000), 1000),
                         cpu_n = bench_opt("matern_cpu_n", 10000, 400),
                         peer_n = bench_opt("matern_peer_n", 5000, 300),
                         reps = bench_opt("reps", 3, 1),
                         gpu = NA) {
  if (is.na(gpu)) gpu <- bench_gpu_ok("GPU Matern benchmarks")
  threads <- bench_cpu_threads()
  rows <- list()
  add <- function(...) rows[[length(rows) + 1L]] <<- bench_row(...)
  nu_e2e <- 1.3
  set.seed(2)

  if (gpu) {
    hook <- bench_hook("bench_matern_cov_device")
    if (!is.null(hook)) {
      for (n in kernel_n) for (s in smoothness) {
        r <- hook(n = n, smoothness = s, reps = 5)
        add(sprintf("matern_cov nu=%g (kernel)", s), r$n, "gpu kernel", r$seconds, r$entries_per_second)
        message(sprintf("matern kernel    n = %s, nu = %g: %s entries/s", fmt_n(r$n), s,
                        fmt_rate(r$entries_per_second)))
      }
    }
    for (n in sort(gpu_n)) {
      n <- if (n > 30000) matern_fit_n(n) else n
      locs <- matern_locs(n)
      s <- bench_time(function() {
        K <- matern_cov(locs, range = 0.1, smoothness = nu_e2e, device = "gpu")
        rm(K)
        invisible(NULL)
      }, reps = reps, warmup = if (n >= 40000) 0L else 1L)
      add(sprintf("matern_cov nu=%g", nu_e2e), n, "gpu", s, n^2 / s)
      message(sprintf("matern_cov gpu   n = %s: %s s, %s entries/s", fmt_n(n), fmt_sec(s), fmt_rate(n^2 / s)))
      invisible(gc(verbose = FALSE))
    }
  }

  for (n in cpu_n) {
    locs <- matern_locs(n)
    s <- bench_time(function() {
      K <- matern_cov(locs, range = 0.1, smoothness = nu_e2e, device = "cpu")
      rm(K)
      invisible(NULL)
    }, reps = reps, warmup = 1L)
    add(sprintf("matern_cov nu=%g", nu_e2e), n, sprintf("cpu (%d threads)", threads), s, n^2 / s)
    message(sprintf("matern_cov cpu   n = %s: %s s, %s entries/s", fmt_n(n), fmt_sec(s), fmt_rate(n^2 / s)))
    invisible(gc(verbose = FALSE))
  }

  for (n in peer_n) {
    locs <- matern_locs(n)
    s <- bench_time(function() {
      K <- matern_base_dist(locs, range = 0.1, nu = nu_e2e)
      rm(K)
      invisible(NULL)
    }, reps = reps, warmup = 1L)
    add(sprintf("base R dist() + besselK nu=%g", nu_e2e), n, "cpu (1 core)", s, n^2 / s)
    message(sprintf("base R Matern    n = %s: %s s, %s entries/s (1 core)", fmt_n(n), fmt_sec(s), fmt_rate(n^2 / s)))
    invisible(gc(verbose = FALSE))
  }
  do.call(rbind, rows)
}

matern_tables <- function(res) {
  tab <- data.frame(benchmark = res$benchmark, device = res$device, n = fmt_n(res$size),
                    seconds = fmt_sec(res$seconds), `entries/s` = fmt_rate(res$rate),
                    check.names = FALSE, stringsAsFactors = FALSE)
  kern <- bench_pick(res, "^matern_cov nu=1.3 \\(kernel\\)$", "^gpu kernel$")
  e2e <- bench_pick(res, "^matern_cov nu=1.3$", "^gpu$")
  cpu <- bench_pick(res, "^matern_cov nu=1.3$", "^cpu \\(")
  peer <- bench_pick(res, "^base R dist", "1 core")
  ratios <- data.frame(
    ratio = c("GPU kernel (nu = 1.3) / gpustats CPU", "GPU end to end / gpustats CPU",
              "GPU end to end / base R dist() + besselK",
              "gpustats CPU / base R dist() + besselK"),
    value = fmt_ratio(c(kern / cpu, e2e / cpu, e2e / peer, cpu / peer)),
    stringsAsFactors = FALSE)
  md <- paste(c("## Matern covariance matrix: n random locations in the unit square, range 0.1", "",
                "Entries counted as reported by the kernel hook for kernel rows and n^2 for matrices returned to R.", "",
                md_table(tab, "llrrr"), "",
                "Per-entry speed-up factors (largest size of each row group, same run):", "",
                md_table(ratios, "lr"), ""), collapse = "\n")
  list(md = md, rates = c(kernel = kern, gpu = e2e, cpu = cpu, peer = peer))
}

if (sys.nframe() == 0L) {
  res <- bench_matern()
  cat(matern_tables(res)$md, "\n")
}
