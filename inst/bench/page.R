# The benchmark page, BENCHMARKS.md: every figure is an exported function
# called as a user calls it, timed end to end (R objects in, R objects out),
# beside a reference measured in the same run on the same machine: the peer
# package a user would otherwise call, the package's own CPU path, or the
# limit the call cannot beat (one factorization for a fit or a prediction).
# A reference timed through an internal hook is labelled a diagnostic.
#
#   Rscript inst/bench/page.R [FILE]      (from the package source root; default BENCHMARKS.md)
#   make bench                            (the same, after installing into .lib)
#
# GPUSTATS_BENCH_QUICK=1 runs tiny sizes (a check that the page is made, not
# figures). On a host without a GPU the calls run on the CPU and the rows
# that compare the GPU with the CPU path have no reference.

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))
if (!exists("bench_gbees_l63", mode = "function")) source(file.path("inst", "bench", "gbees.R"))
if (!exists("accuracy_report", mode = "function")) source(file.path("inst", "bench", "accuracy.R"))

page_device <- function() if (isTRUE(tryCatch(gpu_available(), error = function(e) FALSE))) "gpu" else "cpu"

# Seconds of f(), the best of `reps` runs.
page_seconds <- function(f, reps = 1L) {
  min(vapply(seq_len(reps), function(i) system.time(f())[["elapsed"]], 0))
}

# One row of the page. `size` is the work of one call (points, entries, ...);
# the reference did `ref_size` of the same work in `ref_seconds` (a peer too
# slow for the whole size runs a part of it), so the speed-up compares rates.
# A reference that is a limit (one factorization) is compared by time: the
# call takes so many times the limit. `rate`: the row's throughput matters
# (points per second).
page_row <- function(section, call, size, seconds, reference = "", ref_seconds = NA_real_, ref_size = size,
                     target = "", limit = FALSE, rate = FALSE, size_label = fmt_n(size)) {
  speedup <- (size / seconds) / (ref_size / ref_seconds)
  message(sprintf("[%s] %s, %s: %s s%s", section, call, fmt_n(size), fmt_sec(seconds),
                  if (is.na(ref_seconds)) "" else sprintf("; %s: %s s (%s)", reference, fmt_sec(ref_seconds),
                                                          fmt_ratio(speedup))))
  data.frame(section = section, call = call, size = size, seconds = seconds, reference = reference,
             ref_seconds = ref_seconds, ref_size = ref_size, speedup = speedup, target = target, limit = limit,
             rate = rate, size_label = size_label)
}

# The CPU path of the same call as the reference of a GPU row (none on a CPU
# host, where the row is the CPU path itself).
page_cpu_reference <- function(dev, f, reps = 1L) {
  if (dev != "gpu") return(list(label = "", seconds = NA_real_))
  list(label = sprintf("the same call, device = \"cpu\" (%d threads)", bench_cpu_threads()),
       seconds = page_seconds(function() f("cpu"), reps))
}

page_special_functions <- function(dev, quick) {
  n <- if (quick) 1e4 else 1e7
  set.seed(1)
  x <- exp(runif(n, log(1e-3), log(140)))
  nu <- runif(n, 0, 20)
  s <- page_seconds(function() bessel_k(x, nu, log = TRUE, device = dev), 3)
  k <- min(n, 1e6)
  r <- page_seconds(function() log(besselK(x[seq_len(k)], nu[seq_len(k)], expon.scaled = TRUE)) - x[seq_len(k)])
  rows <- page_row("Special functions", sprintf("bessel_k(x, nu, log = TRUE), random nu in (0, 20), %s", dev), n, s,
                   sprintf("base::besselK (1 core, %s points)", fmt_n(k)), r, k, rate = TRUE)
  m <- if (quick) 500 else 10000
  locs <- matrix(runif(2 * m), ncol = 2)
  f <- function(d) matern_cov(locs, sigma2 = 1, range = 0.1, smoothness = 1.3, device = d)
  s <- page_seconds(function() f(dev), 3)
  ref <- page_cpu_reference(dev, f)
  rbind(rows, page_row("Special functions", sprintf("matern_cov(locs), smoothness 1.3, %s x %s, %s", fmt_n(m), fmt_n(m), dev),
                       m^2, s, ref$label, ref$seconds, rate = TRUE))
}

# The exact Gaussian process: the likelihood, the fit of the benchmark's
# model (a trend, a nugget and the smoothness by ML) and kriging of new
# points with standard errors. The reference of the fit and of the
# prediction is one log-likelihood (one factorization) at the same size.
page_exact_gp <- function(dev, quick) {
  n <- if (quick) 500 else if (dev == "gpu") 50000 else 4000
  set.seed(2)
  locs <- matrix(runif(2 * n), ncol = 2)
  x1 <- sin(2 * pi * locs[, 1])
  z <- 1 + 0.5 * x1 + gp_simulate(locs, 1, 0.1, 0.8, nugget = 0.1, device = dev)
  data <- data.frame(z = z, x1 = x1, x = locs[, 1], y = locs[, 2])
  ll <- function(d) gp_loglik(z, locs, 1, 0.1, 0.8, nugget = 0.1, device = d)
  one <- page_seconds(function() ll(dev), 2)
  nl <- if (quick) n else if (dev == "gpu") 20000 else n
  sub <- seq_len(nl)
  ll_sub <- function(d) gp_loglik(z[sub], locs[sub, ], 1, 0.1, 0.8, nugget = 0.1, device = d)
  ref <- page_cpu_reference(dev, ll_sub)
  rows <- page_row("Gaussian processes, exact", sprintf("gp_loglik(y, locs, ...), %s", dev), nl,
                   page_seconds(function() ll_sub(dev), 2), ref$label, ref$seconds)
  fit <- NULL
  s <- page_seconds(function() {
    fit <<- gp_fit(z ~ x1, data, coords = ~ x + y, method = "ml", nugget = TRUE, device = dev,
                   control = list(trace = FALSE))
  })
  rows <- rbind(rows, page_row("Gaussian processes, exact",
                               sprintf("gp_fit(z ~ x1, data, coords = ~ x + y, method = \"ml\", nugget = TRUE), free smoothness, standard errors, %s (%d evaluations)",
                                       dev, fit$evaluations),
                               n, s, "one gp_loglik() at this n", one, target = if (n == 50000) "<= 25 s" else "", limit = TRUE))
  m <- if (quick) 100 else if (dev == "gpu") 10000 else 1000
  new <- data.frame(x = runif(m), y = runif(m), x1 = 0)
  s <- page_seconds(function() predict(fit, new, se.fit = TRUE, device = dev), 2)
  rbind(rows, page_row("Gaussian processes, exact",
                       sprintf("predict(fit, newdata, se.fit = TRUE), %s new points, n = %s, %s", fmt_n(m), fmt_n(n), dev),
                       n, s, "one gp_loglik() at this n", one, target = if (n == 50000) "<= 1.5 s" else "", limit = TRUE))
}

page_vecchia_gp <- function(dev, quick) {
  big <- if (quick) 2000 else 1e6
  small <- if (quick) 1000 else 1e5
  set.seed(3)
  locs <- matrix(runif(2 * big), ncol = 2)
  y <- 1 + gp_simulate(locs, 1, 0.05, 0.8, nugget = 0.1, approx = "vecchia", device = dev)
  sim <- page_seconds(function() gp_simulate(locs, 1, 0.05, 0.8, nugget = 0.1, approx = "vecchia", device = dev))
  rows <- page_row("Gaussian processes, Vecchia (m = 30)",
                   sprintf("gp_simulate(locs, ..., approx = \"vecchia\"), ordering and sets included, %s", dev), big, sim)
  nb <- NULL
  s <- page_seconds(function() nb <<- vecchia_neighbors(locs, 30))
  rows <- rbind(rows, page_row("Gaussian processes, Vecchia (m = 30)",
                               sprintf("vecchia_neighbors(locs, 30): maxmin ordering and sets, %d threads", bench_cpu_threads()),
                               big, s, target = if (big == 1e6) "<= 2 s on 16 cores" else ""))
  ll <- function(where) vecchia_loglik(y, where, 1, 0.05, 0.8, nugget = 0.1, X = matrix(1, big, 1), device = dev)
  ll(nb)
  s <- page_seconds(function() ll(nb), 3)
  rows <- rbind(rows, page_row("Gaussian processes, Vecchia (m = 30)",
                               sprintf("vecchia_loglik(y, vecchia_neighbors(locs), ...), a further evaluation, %s", dev),
                               big, s, "vecchia_loglik(y, locs, ...): ordering and sets in the call",
                               page_seconds(function() ll(locs)), target = if (big == 1e6) "<= 0.1 s" else ""))
  sub <- seq_len(small)
  fit_small <- function(d) gp_fit(y[sub], locs[sub, ], approx = "vecchia", device = d, control = list(trace = FALSE))
  ref <- page_cpu_reference(dev, fit_small)
  rows <- rbind(rows, page_row("Gaussian processes, Vecchia (m = 30)",
                               sprintf("gp_fit(y, locs, approx = \"vecchia\"), free smoothness and nugget, %s", dev), small,
                               page_seconds(function() fit_small(dev)), ref$label, ref$seconds))
  if (dev == "gpu" || quick) {
    s <- page_seconds(function() gp_fit(y, locs, approx = "vecchia", device = dev, control = list(trace = FALSE)))
    rows <- rbind(rows, page_row("Gaussian processes, Vecchia (m = 30)",
                                 sprintf("gp_fit(y, locs, approx = \"vecchia\"), free smoothness and nugget, %s", dev), big, s,
                                 target = if (big == 1e6) "<= 10 s" else ""))
  }
  rows
}

# Densities, tail probabilities and quantiles with a random (alpha, beta) per
# point, against stabledist (one call per point, as its parameters are
# scalars) on a part of the points; fits of 1,000 points.
page_stable <- function(dev, quick) {
  n <- if (quick) 1e4 else 1e7
  set.seed(4)
  alpha <- runif(n, 0.5, 2)
  beta <- runif(n, -1, 1)
  x <- rnorm(n, 0, 3)
  p <- runif(n)
  have_peer <- requireNamespace("stabledist", quietly = TRUE)
  # stabledist integrates per point (and qstable searches per point): a
  # part of the points, sized to take seconds
  row <- function(name, call, size, v, k, target) {
    s <- page_seconds(function() call(), 3)
    f <- if (have_peer) getExportedValue("stabledist", name)
    k <- if (quick) 10 else k
    r <- if (have_peer) page_seconds(function() for (i in seq_len(k)) f(v[i], alpha[i], beta[i])) else NA_real_
    page_row("Alpha-stable laws", sprintf("%s(x, alpha, beta), random alpha in [0.5, 2], beta in [-1, 1], %s", name, dev), size,
             s, if (have_peer) sprintf("stabledist::%s (%s points)", name, fmt_n(k)) else "", r, k, target, rate = TRUE)
  }
  nq <- n / 10
  rows <- rbind(
    row("dstable", function() dstable(x, alpha, beta, device = dev), n, x, 1000, ">= 1e8 points/s"),
    row("pstable", function() pstable(x, alpha, beta, device = dev), n, x, 500, ">= 1e8 points/s"),
    row("qstable", function() qstable(p[seq_len(nq)], alpha[seq_len(nq)], beta[seq_len(nq)], device = dev), nq, p, 50,
        ">= 1e7 points/s"))
  xs <- rstable(1000, 1.7, 0.3)
  one <- stats::median(vapply(seq_len(if (quick) 3 else 21), function(i) system.time(stable_fit(xs, device = dev))[["elapsed"]], 0))
  fits <- if (quick) 10 else 1000
  X <- matrix(rstable(1000 * fits, 1.7, 0.3), 1000)
  rbind(rows,
        page_row("Alpha-stable laws", sprintf("stable_fit(x), maximum likelihood, n = 1,000, median of 21, %s", dev), 1000, one,
                 target = "<= 5 ms"),
        page_row("Alpha-stable laws", sprintf("stable_fit(X), %s columns of 1,000 in one call, %s", fmt_n(fits), dev), fits,
                 page_seconds(function() stable_fit(X, device = dev)), target = if (fits == 1000) "<= 2 s" else ""))
}

page_sht <- function(dev, quick) {
  rows <- NULL
  for (l in if (quick) 63 else c(1023, 4095)) {
    set.seed(5)
    f <- matrix(rnorm((l + 1) * (2 * l + 2)), l + 1)
    call <- function(d) sht_synthesis(sht_analysis(f, l, device = d), device = d)
    ref <- page_cpu_reference(dev, call, 2)
    rows <- rbind(rows, page_row("Transforms", sprintf("sht_synthesis(sht_analysis(f, %d)), Gauss grid built in the call, %s", l, dev),
                                 (l + 1)^2, page_seconds(function() call(dev), 3), ref$label, ref$seconds,
                                 target = switch(as.character(l), "1023" = "<= 0.02 s", "4095" = "<= 0.2 s", "")))
  }
  rows
}

# A batch of tridiagonal systems, one per column (the diagonals are
# matrices), against Matrix's sparse LU of each system, a user's banded
# solve in R, on a part of the batch.
page_banded <- function(dev, quick) {
  n <- if (quick) 200 else 2000
  k <- if (quick) 50 else 2000
  set.seed(6)
  lower <- matrix(runif((n - 1) * k, -1, 1), n - 1)
  upper <- matrix(runif((n - 1) * k, -1, 1), n - 1)
  diag <- matrix(4 + runif(n * k), n)
  b <- matrix(rnorm(n * k), n)
  s <- page_seconds(function() banded_solve(lower, diag, upper, b, device = dev), 3)
  kp <- min(k, 100)
  r <- NA_real_
  label <- ""
  if (requireNamespace("Matrix", quietly = TRUE)) {
    r <- page_seconds(function() {
      for (j in seq_len(kp)) {
        A <- Matrix::bandSparse(n, k = -1:1, diagonals = list(lower[, j], diag[, j], upper[, j]))
        Matrix::solve(A, b[, j])
      }
    })
    label <- sprintf("Matrix::solve(Matrix::bandSparse(...), b) per system (%d systems)", kp)
  }
  page_row("Transforms", sprintf("banded_solve(lower, diag, upper, b), %s tridiagonal systems of order %s, %s", fmt_n(k),
                                 fmt_n(n), dev), n * k, s, label, r, n * kp, rate = TRUE)
}

# The tile Cholesky of a Matérn covariance made tile by tile, the second
# call of the process (the first result released), against its own
# factorization: the span of its GPU operations in an event trace.
page_tile_chol <- function(dev, quick) {
  n <- if (quick) 2048 else if (dev == "gpu") 65536 else 8192
  set.seed(7)
  locs <- matrix(runif(2 * n), ncol = 2)
  spec <- matern_spec(locs, 1, 0.1, 0.5, nugget = 0.01)
  r <- tile_chol(spec, device = dev)
  rm(r)
  invisible(gc())
  s <- page_seconds(function() tile_chol(spec, device = dev))
  invisible(gc())
  span <- NA_real_
  if (dev == "gpu") {
    tr <- tile_chol(spec, device = dev, trace = TRUE)$trace
    span <- max(tr$end) - min(tr$start)
    invisible(gc())
  }
  page_row("Large Cholesky factorizations", sprintf("tile_chol(matern_spec(locs, ...)), second call in the process, %s", dev), n, s,
           if (is.na(span)) "" else "its factorization on the GPU (event-trace span; diagnostic)", span,
           target = if (n == 65536) "<= 1.3x the factorization" else "", limit = TRUE)
}

page_gbees <- function(dev, quick) {
  f <- function(d) bench_gbees_l63(d, NULL)
  f(dev)
  ref <- page_cpu_reference(dev, f, 3)
  page_row("Uncertainty propagation", sprintf("gbees(lorenz63(), ...), two measurement updates, %s", dev), 1,
           page_seconds(function() f(dev), 3), ref$label, ref$seconds, target = "<= 50 ms on the GPU",
           size_label = "Lorenz '63")
}

# The comparison with the reference in words: "12x faster", "3x slower", or
# for a limit "2.1x its time".
page_versus <- function(speedup, limit) {
  if (is.na(speedup)) return("")
  if (limit) return(sprintf("%sx its time", fmt_ratio(1 / speedup)))
  if (speedup >= 1) sprintf("%sx faster", fmt_ratio(speedup)) else sprintf("%sx slower", fmt_ratio(1 / speedup))
}

page_table <- function(rows) {
  versus <- mapply(page_versus, rows$speedup, rows$limit)
  refs <- ifelse(is.na(rows$ref_seconds), "",
                 paste0(rows$reference, ": ", vapply(rows$ref_seconds, fmt_sec, ""), " s"))
  seconds <- paste0(vapply(rows$seconds, fmt_sec, ""),
                    ifelse(rows$rate, paste0(" (", vapply(rows$size / rows$seconds, fmt_g, ""), "/s)"), ""))
  c("| call | size | seconds | reference, same run | against it | target |",
    "|---|---:|---:|---|---:|---|",
    sprintf("| %s | %s | %s | %s | %s | %s |", rows$call, rows$size_label, seconds, refs, versus,
            rows$target))
}

page_header <- function(dev, quick, args) {
  c("# gpustats benchmarks", "",
    "Each figure is an exported function called as a user calls it, timed end to end",
    "(R objects in, R objects out; best of up to three runs), beside a reference",
    "measured in the same run on the same machine: the peer package a user would",
    "otherwise call, the package's CPU path, or the limit a call cannot beat (one",
    "factorization for a fit or a prediction). The speed-up compares rates where the",
    "reference did a part of the work. The targets are the project's.",
    "",
    sprintf("- date: %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z")),
    sprintf("- gpustats %s, %s", utils::packageVersion("gpustats"), R.version.string),
    sprintf("- GPU: %s", if (dev == "gpu") bench_gpu_name() else "none (every call on the CPU)"),
    sprintf("- CPU: %s; %d cores; the CPU path used %d threads",
            if (is.na(bench_cpu_name())) "unknown" else bench_cpu_name(), bench_cores(), bench_cpu_threads()),
    sprintf("- R's BLAS and LAPACK: %s, %s (the package's dense Cholesky factorizations are its own code)",
            basename(extSoftVersion()[["BLAS"]]), basename(La_library())),
    sprintf("- command: `make bench` (`%s`)", paste(c("Rscript inst/bench/page.R", args[startsWith(args, "--")]), collapse = " ")),
    if (quick) "- quick mode (tiny sizes): the figures are not representative",
    "",
    "History of earlier measurements: `inst/bench/HISTORY.md`; the detailed studies behind",
    "each domain (kernels through internal hooks, scaling, memory): `inst/bench/run-all.R`.",
    "")
}

# The page is written again after each part, so a run cut short leaves the
# parts it finished.
bench_page <- function(file = "BENCHMARKS.md") {
  args <- commandArgs(trailingOnly = TRUE)
  dev <- page_device()
  quick <- bench_quick()
  parts <- list(page_special_functions, page_exact_gp, page_vecchia_gp, page_stable, page_sht, page_banded, page_tile_chol,
                page_gbees)
  header <- page_header(dev, quick, args)
  rows <- NULL
  for (part in parts) {
    r <- tryCatch(part(dev, quick), error = function(e) {
      message("a part of the page failed: ", conditionMessage(e))
      NULL
    })
    rows <- rbind(rows, r)
    invisible(gc())
    writeLines(c(header, page_sections(rows)), file)
  }
  acc <- tryCatch(accuracy_report(root = ".", gpu = dev == "gpu"), error = function(e) NULL)
  if (!is.null(acc)) acc <- c(acc, "")
  writeLines(c(header, page_sections(rows), acc), file)
  message("wrote ", file)
  invisible(rows)
}

page_sections <- function(rows) {
  unlist(lapply(unique(rows$section), function(section) {
    c(paste("##", section), "", page_table(rows[rows$section == section, ]), "")
  }))
}

if (sys.nframe() == 0L) {
  a <- commandArgs(trailingOnly = TRUE)
  a <- a[!startsWith(a, "--")]
  bench_page(if (length(a)) a[[1]] else "BENCHMARKS.md")
}
