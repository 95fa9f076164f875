# Throughput of log K_nu(x): gpustats on the GPU (kernel and end to end from R),
# gpustats on all CPU cores, and the peers an R user has (base R besselK and
# gsl::bessel_Knu, run on all host cores through parallel::mclapply).
#
#   Rscript inst/bench/bessel.R [--option=value ...]
#
# Inputs: nu uniform in (0, 20], x log-uniform in [1e-3, 140], generated
# before timing. Options (or environment GPUSTATS_BENCH_<OPTION>):
#   bessel_kernel_n   GPU kernel size (default 1e8)
#   bessel_gpu_n      GPU end-to-end sizes, comma separated (default 1e7,1e8)
#   bessel_cpu_n      gpustats CPU path size (default 1e7)
#   bessel_peer_n     base R / gsl size on all cores (default 1e7)
#   bessel_single_n   base R size on one core (default 5e6)
#   reps              timed repeats after one warm-up (default 3)
# GPUSTATS_BENCH_QUICK=1 uses tiny sizes and skips nothing but the GPU parts
# (skipped anyway without a GPU).

# run from the package source root
if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

# Base R besselK / gsl::bessel_Knu over chunks on `cores` forked workers.
peer_parallel <- function(fun, x, nu, cores) {
  bench_parallel(length(x), cores, function(i) fun(x[i], nu[i]))
}

bench_bessel <- function(kernel_n = bench_opt("bessel_kernel_n", 1e8, 1e6),
                         gpu_n = bench_opt("bessel_gpu_n", c(1e7, 1e8), 1e5),
                         cpu_n = bench_opt("bessel_cpu_n", 1e7, 1e5),
                         peer_n = bench_opt("bessel_peer_n", 1e7, 1e5),
                         single_n = bench_opt("bessel_single_n", 5e6, 5e4),
                         reps = bench_opt("reps", 3, 1),
                         gpu = NA) {
  if (is.na(gpu)) gpu <- bench_gpu_ok("GPU Bessel benchmarks")
  cores <- bench_cores()
  threads <- bench_cpu_threads()
  rows <- list()
  add <- function(...) rows[[length(rows) + 1L]] <<- bench_row(...)
  set.seed(1)

  # GPU kernel (device-side data, CUDA events)
  if (gpu) {
    hook <- bench_hook("bench_bessel_k_device")
    if (!is.null(hook)) {
      for (n in kernel_n) {
        r <- hook(n = n, reps = 10)
        add("bessel_k log (kernel)", r$n, "gpu kernel", r$seconds, r$evals_per_second)
        message(sprintf("bessel kernel    n = %s: %s evals/s", fmt_n(r$n), fmt_rate(r$evals_per_second)))
      }
    }
  }

  # GPU end to end from R
  if (gpu) {
    for (n in gpu_n) {
      inp <- bench_bessel_inputs(n)
      s <- bench_time(function() {
        y <- bessel_k(inp$x, inp$nu, log = TRUE, device = "gpu")
        invisible(NULL)
      }, reps = reps, warmup = 1L)
      add("bessel_k log", n, "gpu", s, n / s)
      message(sprintf("bessel_k gpu     n = %s: %s s, %s evals/s", fmt_n(n), fmt_sec(s), fmt_rate(n / s)))
      rm(inp); invisible(gc(verbose = FALSE))
    }
  }

  # gpustats CPU path, all cores
  for (n in cpu_n) {
    inp <- bench_bessel_inputs(n)
    s <- bench_time(function() {
      y <- bessel_k(inp$x, inp$nu, log = TRUE, device = "cpu")
      invisible(NULL)
    }, reps = reps, warmup = 1L)
    add("bessel_k log", n, sprintf("cpu (%d threads)", threads), s, n / s)
    message(sprintf("bessel_k cpu     n = %s: %s s, %s evals/s", fmt_n(n), fmt_sec(s), fmt_rate(n / s)))
    rm(inp)
  }

  # peers on all host cores
  inp <- bench_bessel_inputs(max(peer_n))
  for (n in peer_n) {
    x <- inp$x[seq_len(n)]; nu <- inp$nu[seq_len(n)]
    s <- bench_time(function() {
      y <- peer_parallel(function(a, b) besselK(a, b), x, nu, cores)
      invisible(NULL)
    }, reps = reps, warmup = 1L)
    add("base::besselK", n, sprintf("cpu (%d processes)", cores), s, n / s)
    message(sprintf("base besselK     n = %s: %s s, %s evals/s (%d processes)", fmt_n(n), fmt_sec(s), fmt_rate(n / s), cores))
    if (requireNamespace("gsl", quietly = TRUE)) {
      s <- bench_time(function() {
        y <- peer_parallel(function(a, b) gsl::bessel_Knu(b, a), x, nu, cores)
        invisible(NULL)
      }, reps = reps, warmup = 1L)
      add("gsl::bessel_Knu", n, sprintf("cpu (%d processes)", cores), s, n / s)
      message(sprintf("gsl bessel_Knu   n = %s: %s s, %s evals/s (%d processes)", fmt_n(n), fmt_sec(s), fmt_rate(n / s), cores))
    } else {
      message("note: package gsl not installed; gsl::bessel_Knu skipped")
    }
  }
  for (n in single_n) {
    x <- inp$x[seq_len(min(n, length(inp$x)))]; nu <- inp$nu[seq_len(length(x))]
    if (length(x) < n) {
      more <- bench_bessel_inputs(n)
      x <- more$x; nu <- more$nu
    }
    s <- bench_time(function() { y <- besselK(x, nu); invisible(NULL) }, reps = reps, warmup = 1L)
    add("base::besselK", n, "cpu (1 core)", s, n / s)
    message(sprintf("base besselK     n = %s: %s s, %s evals/s (1 core)", fmt_n(n), fmt_sec(s), fmt_rate(n / s)))
  }
  do.call(rbind, rows)
}

# Markdown for the Bessel results; also returns the key ratios.
bessel_tables <- function(res) {
  res$rate_txt <- fmt_rate(res$rate)
  tab <- data.frame(benchmark = res$benchmark, device = res$device, n = fmt_n(res$size),
                    seconds = fmt_sec(res$seconds), `evaluations/s` = res$rate_txt,
                    check.names = FALSE, stringsAsFactors = FALSE)
  kern <- bench_pick(res, "^bessel_k log \\(kernel\\)$", "^gpu kernel$")
  e2e <- bench_pick(res, "^bessel_k log$", "^gpu$")
  cpu <- bench_pick(res, "^bessel_k log$", "^cpu \\(")
  base_all <- bench_pick(res, "^base::besselK$", "processes")
  gsl_all <- bench_pick(res, "^gsl::bessel_Knu$", "processes")
  base_1 <- bench_pick(res, "^base::besselK$", "1 core")
  ratios <- data.frame(
    ratio = c("GPU kernel / gpustats CPU", "GPU end to end / gpustats CPU",
              "GPU end to end / base R besselK (all cores)",
              "GPU end to end / gsl bessel_Knu (all cores)",
              "gpustats CPU / base R besselK (all cores)",
              "gpustats CPU / gsl bessel_Knu (all cores)",
              "gpustats CPU / base R besselK (1 core)"),
    value = fmt_ratio(c(kern / cpu, e2e / cpu, e2e / base_all, e2e / gsl_all,
                        cpu / base_all, cpu / gsl_all, cpu / base_1)),
    stringsAsFactors = FALSE)
  md <- paste(c("## Bessel K: log K_nu(x), nu in (0, 20], x log-uniform in [1e-3, 140]", "",
                md_table(tab, "llrrr"), "",
                "Rates are from the largest size of each row group (speed-up factors, same run):", "",
                md_table(ratios, "lr"), ""), collapse = "\n")
  list(md = md, rates = c(kernel = kern, gpu = e2e, cpu = cpu, base_all = base_all,
                          gsl_all = gsl_all, base_1 = base_1))
}

if (sys.nframe() == 0L) {
  res <- bench_bessel()
  cat(bessel_tables(res)$md, "\n")
}
