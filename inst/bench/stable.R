# Throughput of the alpha-stable functions: gpustats on the GPU (kernel and
# end to end from R), gpustats on all CPU cores, and stabledist (the R
# package a user has) on all host cores through parallel::mclapply; then
# stable_fit("mle") of one sample (also the median over single fits of
# several samples) and of a batch of samples.
#
#   Rscript inst/bench/stable.R [--option=value ...]
#
# Inputs: alpha uniform in [0.5, 2], beta in [-1, 1], gamma = 1, delta = 0,
# x uniform in [-100, 100] (p uniform in (0, 1) for qstable), generated
# before timing; the same inputs for every implementation of one op (a
# leading subsample for the slower ones). Options (or environment
# GPUSTATS_BENCH_<OPTION>):
#   stable_kernel_n   GPU kernel size of dstable and pstable (default 1e7)
#   stable_gpu_n      end-to-end size on the GPU (default 2e6)
#   stable_cpu_n      gpustats CPU path size (default 2e5)
#   stable_peer_n     stabledist size on all cores (default 8000)
#   stable_fit_batch  samples of n = 1,000 in the batched fit (default 1000)
#   reps              timed repeats after one warm-up (default 3)
# qstable runs on a tenth of each size.

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

stable_bench_inputs <- function(n, quantile = FALSE) {
  list(x = if (quantile) stats::runif(n) else stats::runif(n, -100, 100),
       alpha = stats::runif(n, 0.5, 2), beta = stats::runif(n, -1, 1))
}

# One gpustats op on the leading n inputs.
stable_call <- function(op, inp, n, device) {
  i <- seq_len(n)
  switch(op,
         dstable = dstable(inp$x[i], inp$alpha[i], inp$beta[i], device = device),
         pstable = pstable(inp$x[i], inp$alpha[i], inp$beta[i], device = device),
         qstable = qstable(inp$x[i], inp$alpha[i], inp$beta[i], device = device))
}

# stabledist takes one (alpha, beta) per call: one call per point, the
# points split over `cores` forked workers.
stable_peer <- function(op, inp, n, cores) {
  f <- switch(op, dstable = stabledist::dstable, pstable = stabledist::pstable,
              qstable = stabledist::qstable)
  bench_parallel(n, cores, function(i) {
    vapply(i, function(k) f(inp$x[k], inp$alpha[k], inp$beta[k]), numeric(1))
  })
}

bench_stable <- function(kernel_n = bench_opt("stable_kernel_n", 1e7, 1e5),
                         gpu_n = bench_opt("stable_gpu_n", 2e6, 2e4),
                         cpu_n = bench_opt("stable_cpu_n", 2e5, 2e3),
                         peer_n = bench_opt("stable_peer_n", 8000, 200),
                         fit_batch = bench_opt("stable_fit_batch", 1000, 4),
                         reps = bench_opt("reps", 3, 1),
                         gpu = NA) {
  if (is.na(gpu)) gpu <- bench_gpu_ok("GPU stable benchmarks")
  cores <- bench_cores()
  threads <- bench_cpu_threads()
  peer <- requireNamespace("stabledist", quietly = TRUE)
  if (!peer) message("note: stabledist is not installed; its rows are skipped")
  rows <- list()
  add <- function(...) rows[[length(rows) + 1L]] <<- bench_row(...)
  set.seed(2)
  hook <- if (gpu) bench_hook("bench_stable_device") else NULL

  for (op in c("dstable", "pstable", "qstable")) {
    q <- op == "qstable"
    scale <- if (q) 0.1 else 1
    if (!is.null(hook)) {
      n <- kernel_n * scale
      r <- hook(n = n, op = c(dstable = "stable_d", pstable = "stable_p", qstable = "stable_q")[[op]],
                reps = reps)
      add(op, n, "gpu kernel", r$seconds, r$points_per_second)
      message(sprintf("%s kernel  n = %s: %s points/s", op, fmt_n(n), fmt_rate(r$points_per_second)))
    }
    inp <- stable_bench_inputs(max(gpu_n, cpu_n) * scale, quantile = q)
    if (gpu) {
      n <- gpu_n * scale
      s <- bench_time(function() invisible(stable_call(op, inp, n, "gpu")), reps = reps)
      add(op, n, "gpu", s, n / s)
      message(sprintf("%s gpu     n = %s: %s s, %s points/s", op, fmt_n(n), fmt_sec(s), fmt_rate(n / s)))
    }
    n <- cpu_n * scale
    s <- bench_time(function() invisible(stable_call(op, inp, n, "cpu")), reps = reps)
    add(op, n, sprintf("cpu (%d threads)", threads), s, n / s)
    message(sprintf("%s cpu     n = %s: %s s, %s points/s", op, fmt_n(n), fmt_sec(s), fmt_rate(n / s)))
    if (peer) {
      n <- max(cores, round(peer_n * scale))
      s <- bench_time(function() invisible(stable_peer(op, inp, n, cores)), reps = 1L, warmup = 0L)
      add(op, n, sprintf("stabledist (%d processes)", cores), s, n / s)
      message(sprintf("%s stabledist n = %s: %s s, %s points/s", op, fmt_n(n), fmt_sec(s), fmt_rate(n / s)))
    }
  }

  # stable_fit("mle"): samples of n = 1,000 with random parameters
  sample_of <- function(k) {
    rstable(1000, stats::runif(1, 0.5, 2), stats::runif(1, -1, 1), device = "cpu")
  }
  one <- sample_of(1)
  devices <- c(if (gpu) "gpu", "cpu")
  for (dev in devices) {
    # a fit takes about 10 ms on a GPU: the median of many, as the host's
    # own hiccups are of that size
    s <- bench_time(function() invisible(stable_fit(one, device = dev)), reps = 10L * reps)
    add("stable_fit mle, 1 sample of n = 1,000", 1, dev, s, 1 / s)
    message(sprintf("stable_fit %s  1 sample: %s s", dev, fmt_sec(s)))
  }
  batch <- vapply(seq_len(fit_batch), sample_of, numeric(1000))
  # one fit's time depends on its sample's law (its starting point, its
  # Newton steps): also the median over single fits of the batch's first
  # samples
  m <- max(1L, min(fit_batch, 20L))
  for (dev in devices) {
    s <- stats::median(vapply(seq_len(m), function(j) {
      bench_time(function() invisible(stable_fit(batch[, j], device = dev)), reps = 1L, warmup = 0L)
    }, numeric(1)))
    add(sprintf("stable_fit mle, 1 sample of n = 1,000, median of %d samples", m), 1, dev, s, 1 / s)
    message(sprintf("stable_fit %s  1 sample, median of %d: %s s", dev, m, fmt_sec(s)))
  }
  if (gpu) {
    s <- bench_time(function() invisible(stable_fit(batch, device = "gpu")), reps = 1L, warmup = 0L)
    add("stable_fit mle, batch of n = 1,000", fit_batch, "gpu", s, fit_batch / s)
    message(sprintf("stable_fit gpu  %d samples: %s s", fit_batch, fmt_sec(s)))
  }
  # the CPU path on a slice of the batch (samples per second)
  s <- bench_time(function() invisible(stable_fit(batch[, seq_len(m), drop = FALSE], device = "cpu")),
                  reps = 1L, warmup = 0L)
  add("stable_fit mle, batch of n = 1,000", m, sprintf("cpu (%d threads)", threads), s, m / s)
  message(sprintf("stable_fit cpu  %d samples: %s s", m, fmt_sec(s)))
  do.call(rbind, rows)
}

stable_tables <- function(res) {
  fit <- grepl("^stable_fit", res$benchmark)
  d <- res[!fit, ]
  tab <- data.frame(op = d$benchmark, implementation = d$device, n = fmt_n(d$size),
                    seconds = fmt_sec(d$seconds), `points/s` = fmt_rate(d$rate),
                    check.names = FALSE, stringsAsFactors = FALSE)
  rate <- function(op, dev) bench_pick(res, paste0("^", op, "$"), dev)
  ratios <- do.call(rbind, lapply(c("dstable", "pstable", "qstable"), function(op) {
    k <- rate(op, "^gpu kernel$"); g <- rate(op, "^gpu$")
    cp <- rate(op, "^cpu"); p <- rate(op, "^stabledist")
    data.frame(op = op,
               `GPU kernel / CPU` = fmt_ratio(k / cp), `GPU end to end / CPU` = fmt_ratio(g / cp),
               `GPU end to end / stabledist` = fmt_ratio(g / p), `CPU / stabledist` = fmt_ratio(cp / p),
               check.names = FALSE, stringsAsFactors = FALSE)
  }))
  f <- res[fit, ]
  ftab <- data.frame(fit = f$benchmark, device = f$device, samples = fmt_n(f$size),
                     seconds = fmt_sec(f$seconds), `samples/s` = fmt_rate(f$rate),
                     check.names = FALSE, stringsAsFactors = FALSE)
  rates <- c(d_kernel = rate("dstable", "^gpu kernel$"), p_kernel = rate("pstable", "^gpu kernel$"),
             q_kernel = rate("qstable", "^gpu kernel$"), d_gpu = rate("dstable", "^gpu$"),
             d_cpu = rate("dstable", "^cpu"), d_peer = rate("dstable", "^stabledist"))
  md <- c("### Alpha-stable laws: alpha in [0.5, 2], beta in [-1, 1], x in [-100, 100]", "",
          md_table(tab, "llrrr"), "", md_table(ratios, "lrrrr"), "",
          "### stable_fit(\"mle\"), samples of n = 1,000 with random alpha and beta", "",
          md_table(ftab, "llrrr"))
  list(md = paste(md, collapse = "\n"), rates = rates)
}

if (sys.nframe() == 0L) {
  res <- bench_stable()
  cat(stable_tables(res)$md, "\n")
}
