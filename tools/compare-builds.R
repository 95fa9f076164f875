# Compare two installed builds of gpustats (an older and a newer source tree)
# on the same machine, domain by domain: the speed of each case (new/old,
# flagged outside [0.97, 1.03]) and its result (the largest relative
# difference, flagged above 1e-12, or wherever the results should be
# bit-identical and are not). Meant to show that a restructuring leaves every
# domain's speed and results unchanged.
#
#   Rscript tools/compare-builds.R --old=LIB --new=LIB [options]
#
#   --old=LIB, --new=LIB  the R libraries holding the two builds (the folders
#                         that contain gpustats/, as given to R CMD INSTALL
#                         --library)
#   --rounds=N            rounds (default 3); each runs the old build, then
#                         the new one, each in a fresh Rscript process
#   --reps=N              timed repetitions per case and device, after one
#                         untimed warm-up (default 3; 1 where the warm-up took
#                         over 10 s)
#   --cases=REGEX         only the cases whose name matches (e.g. 'stable')
#   --quick=1             small sizes, for a check on a small machine
#   --out=FILE            also write the report (markdown) to FILE
#   --list=1              print the cases and their calls, run nothing
#
# Every case runs on the GPU when the build has one (device = "gpu") and on
# the CPU with all cores (device = "cpu"). The inputs are made with base R
# from a fixed seed, so both builds see the same data, and every call is
# preceded by set.seed(), so random draws can be compared too. Times are the
# median over rounds of each round's median. Results are compared through a
# digest: the quantities a result stands for (a log-likelihood and its
# terms, a log-determinant, fitted parameters) or, for an array, its length,
# mean, extremes and up to 10,000 evenly spaced entries; the difference is
# relative entry by entry, or, for draws and densities, relative to the
# largest magnitude.
#
# Two versions of one package cannot be loaded into one R session, so the
# cases run in a worker script that this tool writes to a temporary file
# (the worker functions below, dumped) and runs once per build and round.
# Only exported functions and arguments that both versions accept with the
# same meaning are called; the cases left out are printed with the reason.

# ---- cases (run in the worker) ----------------------------------------------

# The cases. Each has a name, its size n on each device and its size in a
# quick run, the data it needs (a name: cases that share data share one copy
# per size), the call (run), optionally a digest of its result (default
# cmp_digest), how digests are compared (compare: "entry", the default, or
# "norm"; see cmp_part_diff) and whether the two builds must agree bit for
# bit (exact). Sizes are chosen for a 16-core host with an H100 or H200:
# about 0.1 to 1 s per evaluation.
cmp_cases <- function() {
  list(
    # Bessel K over the region of the benchmarks (nu in (0, 20], x
    # log-uniform in [1e-3, 140]); the H100 ran 1.9e8/s end to end, 16 cores
    # 4.7e7/s
    list(name = "bessel_k", data = "bessel", n = c(gpu = 2e7, cpu = 5e6), quick = 2e5,
         run = function(d, device) bessel_k(d$x, d$nu, device = device)),
    list(name = "bessel_k log", data = "bessel", n = c(gpu = 2e7, cpu = 5e6), quick = 2e5,
         run = function(d, device) bessel_k(d$x, d$nu, log = TRUE, device = device)),
    list(name = "bessel_k scaled", data = "bessel", n = c(gpu = 2e7, cpu = 5e6), quick = 2e5,
         run = function(d, device) bessel_k(d$x, d$nu, expon_scaled = TRUE, device = device)),
    list(name = "bessel_k_deriv nu", data = "bessel", n = c(gpu = 1e7, cpu = 2e6), quick = 1e5,
         run = function(d, device) bessel_k_deriv(d$x, d$nu, wrt = "nu", device = device)),
    # the element-wise Matérn (a map op, like bessel_k) at a general smoothness
    list(name = "matern", data = "distances", n = c(gpu = 2e7, cpu = 5e6), quick = 2e5,
         run = function(d, device) matern(d$d, sigma2 = 1, range = 0.1, smoothness = 1.3, device = device)),
    # covariance matrices: the H100 built 1.9e9 entries/s end to end, 16
    # cores 6.6e7/s
    list(name = "matern_cov", data = "locations", n = c(gpu = 15000, cpu = 4000), quick = 1000,
         run = function(d, device) matern_cov(d$locs, sigma2 = 1, range = 0.1, smoothness = 1.3, device = device)),
    # the exact likelihood: below n = 32,768 the GPU factors the whole
    # matrix (cuSOLVER), the mixed-precision call goes through the tile
    # Cholesky at any size
    list(name = "gp_loglik", data = "field", n = c(gpu = 30000, cpu = 1500), quick = 1000,
         run = function(d, device) {
           gp_loglik(d$y, d$locs, sigma2 = 1, range = 0.1, smoothness = 0.8, nugget = 0.01, device = device)
         },
         digest = cmp_digest_loglik),
    list(name = "gp_loglik mixed", data = "field", n = c(gpu = 25000, cpu = 1500), quick = 1000,
         run = function(d, device) {
           gp_loglik(d$y, d$locs, sigma2 = 1, range = 0.1, smoothness = 0.8, nugget = 0.01, precision = "mixed",
                     accuracy = 1e-8, device = device)
         },
         digest = cmp_digest_loglik),
    # draws L z with z from R's generator (seeded before the call)
    list(name = "gp_simulate", data = "field", n = c(gpu = 20000, cpu = 1500), quick = 1000,
         run = function(d, device) {
           gp_simulate(d$locs, sigma2 = 1, range = 0.1, smoothness = 0.8, nugget = 0.01, device = device)
         },
         compare = "norm"),
    # alpha-stable laws at random parameters, one law per point (the
    # benchmarks' inputs): the H100 ran 2.1e7 densities/s end to end, 16
    # cores 2.4e6/s; quantiles 4.9e6/s and 3e5/s
    list(name = "dstable", data = "stable", n = c(gpu = 4e6, cpu = 4e5), quick = 2e4,
         run = function(d, device) dstable(d$x, d$alpha, d$beta, device = device)),
    list(name = "pstable", data = "stable", n = c(gpu = 4e6, cpu = 4e5), quick = 2e4,
         run = function(d, device) pstable(d$x, d$alpha, d$beta, device = device)),
    list(name = "qstable", data = "stable", n = c(gpu = 4e5, cpu = 4e4), quick = 2e3,
         run = function(d, device) qstable(d$p, d$alpha, d$beta, device = device)),
    # random numbers from R's seed: the two builds must give the same bits
    list(name = "rstable", data = "stable_laws", n = c(gpu = 1e7, cpu = 2e6), quick = 3e5,
         run = function(d, device) rstable(length(d$alpha), d$alpha, d$beta, device = device), exact = TRUE),
    # maximum-likelihood fits of heavy-tailed samples (Student t, 1 to 4
    # degrees of freedom), one batched call: the H100 fitted 1,000 samples
    # of 1,000 in 3.5 s, 16 cores 20 in 1.7 s
    list(name = "stable_fit mle", data = "stable_samples", n = c(gpu = 50, cpu = 4), quick = 1,
         run = function(d, device) stable_fit(d$samples, method = "mle", device = device),
         digest = function(r, d) as.list(r[c("alpha", "beta", "gamma", "delta", "loglik")])),
    # GBEES: the published Lorenz '63 case (to t = 2, a measurement of x3 at
    # t = 1): 0.09 to 0.1 s on an H100, 0.4 to 1.2 s on 16 cores. The quick
    # run stops at t = 0.2 with the measurement at t = 0.1 (the mean of x3
    # is then about 8)
    list(name = "gbees lorenz63", data = "lorenz63", n = c(gpu = 2, cpu = 2), quick = 0.2,
         run = function(d, device) {
           gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(d$t_meas, d$t_end),
                 measurements = gbees_measurements(d$t_meas, d$y, 3, 1), threshold = 1e-7, device = device)
         },
         digest = cmp_digest_gbees, compare = "norm"),
    # the Monte Carlo reference: n samples by fourth-order Runge-Kutta to t = 1
    list(name = "gbees_mc lorenz63", data = "count", n = c(gpu = 1e6, cpu = 3e4), quick = 5e3,
         run = function(d, device) {
           gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = 1, n = d$n, device = device)
         },
         digest = function(r, d) cmp_digest(r$samples[[1L]]), compare = "norm"),
    # tile Cholesky of a dense matrix (the exponential covariance of a
    # regular 1-D grid, built in base R) and of a Matérn covariance that is
    # generated tile by tile (matern_spec)
    list(name = "tile_chol dense", data = "spd", n = c(gpu = 8000, cpu = 4000), quick = 1500,
         run = function(d, device) tile_chol(d$A, device = device),
         digest = function(r, d) cmp_digest_factor(r, d$b)),
    list(name = "tile_chol matern_spec", data = "field", n = c(gpu = 25000, cpu = 4000), quick = 1500,
         run = function(d, device) {
           tile_chol(matern_spec(d$locs, sigma2 = 1, range = 0.1, smoothness = 0.5, nugget = 0.01), device = device)
         },
         digest = function(r, d) cmp_digest_factor(r, d$y))
  )
}

# Cases that both versions have but that cannot be called with the same
# meaning, and why; printed with the report.
cmp_left_out <- function() {
  c("gp_fit" = paste(
      "the two versions fit different models by default (older: ML, zero mean, no nugget; newer: REML,",
      "constant mean, nugget estimated) and the older has no `X` or `method` argument to ask for the newer",
      "one's model, nor the newer a way to ask for the older's; no call means the same in both"),
    "map ops" = paste(
      "the element-wise map layer (gs_map) is internal in both versions; it is timed through its exported",
      "users, bessel_k(), bessel_k_deriv(), matern() and the stable laws"))
}

# The inputs of a case at size n, made with base R from a fixed seed (the
# same in both builds).
cmp_make_data <- function(kind, n) {
  set.seed(20261127)
  switch(kind,
    bessel = list(x = exp(stats::runif(n, log(1e-3), log(140))), nu = stats::runif(n, 0, 20)),
    distances = list(d = stats::runif(n, 0, 1)),
    locations = list(locs = matrix(stats::runif(2 * n), ncol = 2)),
    field = list(locs = matrix(stats::runif(2 * n), ncol = 2), y = stats::rnorm(n)),
    stable = list(x = stats::runif(n, -100, 100), p = stats::runif(n), alpha = stats::runif(n, 0.5, 2),
                  beta = stats::runif(n, -1, 1)),
    stable_laws = list(alpha = stats::runif(n, 0.5, 2), beta = stats::runif(n, -1, 1)),
    stable_samples = list(samples = lapply(seq_len(n), function(i) {
      stats::rt(1000, df = 1 + 3 * (i - 1) / max(1, n - 1))
    })),
    spd = list(A = cmp_kms_matrix(n, n / 10, 0.01), b = stats::rnorm(n)),
    # GBEES to t = n with x3 measured at n / 2: -8 at t = 1 (the published
    # case), 8 near the mean of x3 at the quick run's t = 0.1
    lorenz63 = list(t_end = n, t_meas = n / 2, y = if (n / 2 >= 1) -8 else 8),
    count = list(n = n))
}

# The exponential covariance exp(-|i - j| / range) of n equally spaced
# points plus a nugget: symmetric positive definite and dense. Column j is
# a contiguous slice of one vector, so no n x n temporaries are made.
cmp_kms_matrix <- function(n, range, nugget) {
  r <- exp(-(0:(n - 1)) / range)
  r[1L] <- r[1L] + nugget
  both <- c(rev(r[-1L]), r) # r[n], ..., r[2], r[1], r[2], ..., r[n]
  A <- matrix(0, n, n)
  for (j in seq_len(n)) A[, j] <- both[(n - j + 1L):(2L * n - j)]
  A
}

# The data of a case, kept while consecutive cases share it (the Bessel
# variants, the stable laws), so that it is made once per size.
cmp_data_cache <- new.env()
cmp_data <- function(kind, n) {
  key <- paste(kind, format(n, scientific = FALSE))
  if (!identical(cmp_data_cache$kind, kind)) {
    rm(list = ls(cmp_data_cache), envir = cmp_data_cache)
    cmp_data_cache$kind <- kind
  }
  if (is.null(cmp_data_cache[[key]])) assign(key, cmp_make_data(kind, n), envir = cmp_data_cache)
  cmp_data_cache[[key]]
}

# ---- digests (run in the worker) --------------------------------------------

# A digest is a named list of numeric parts, each compared between the
# builds on its own (cmp_part_diff): single quantities (a log-likelihood, a
# fitted parameter) or what summarises an array.

# An array: its length; its mean, smallest and largest entries; up to
# 10,000 evenly spaced entries (all of them when there are no more). Nothing
# here copies the array, which for the largest (a GPU covariance matrix)
# would cost seconds.
cmp_digest <- function(x) {
  n <- length(x)
  at <- unique(round(seq(1, n, length.out = min(n, 10000))))
  list(n = n, summary = c(mean(x), min(x), max(x)), entries = as.double(x[at]))
}

# A Gaussian log-likelihood and its two terms.
cmp_digest_loglik <- function(r, d) {
  list(loglik = as.double(r), logdet = attr(r, "logdet"), quadform = attr(r, "quadform"))
}

# A Cholesky factor of A: log det A and b' A^-1 b, which depend on the whole
# factor and, unlike the entries of a solution, are not thrown off by the
# matrix's condition.
cmp_digest_factor <- function(r, b) {
  list(logdet = as.double(determinant(r)$modulus), quadform = sum(b * solve(r, b)))
}

# A GBEES density: its cells (centres) and probabilities at every recorded
# time, in an order of the cells that does not depend on how the grid stores
# them; centres and probabilities are parts of their own (their scales
# differ).
cmp_digest_gbees <- function(fit, d) {
  df <- as.data.frame(fit)
  states <- fit$model$state_names
  o <- do.call(order, unname(as.list(df[c("time", "updated", states)])))
  c(cells = cmp_digest(as.matrix(df[o, c("time", states)])), prob = cmp_digest(df$prob[o]))
}

# ---- timing (run in the worker) ---------------------------------------------

# Seconds of one call of f (elapsed), after a garbage collection, so that
# the collection of an earlier result is not charged to this one.
cmp_time_once <- function(f) {
  invisible(gc(verbose = FALSE))
  t0 <- proc.time()[["elapsed"]]
  value <- f()
  list(seconds = proc.time()[["elapsed"]] - t0, value = value)
}

# One case on one device: an untimed warm-up, then `reps` timed calls (one
# where the warm-up took over 10 s, to keep the run short); the digest of
# the last result; any error or warning as text.
cmp_run_case <- function(case, device, quick, reps) {
  n <- if (quick) case$quick else case$n[[device]]
  digest <- if (is.null(case$digest)) function(r, d) cmp_digest(r) else case$digest
  warnings <- character(0)
  started <- proc.time()[["elapsed"]]
  out <- withCallingHandlers(tryCatch({
    d <- cmp_data(case$data, n)
    call <- function() {
      set.seed(1) # random draws (rstable, gp_simulate, gbees_mc) equal in both builds
      case$run(d, device)
    }
    warm <- cmp_time_once(call)$seconds
    k <- if (warm > 10) 1L else reps
    seconds <- numeric(k)
    for (i in seq_len(k)) {
      r <- NULL
      r <- cmp_time_once(call)
      seconds[i] <- r$seconds
    }
    list(seconds = seconds, warmup = warm, digest = lapply(digest(r$value, d), as.double))
  }, error = function(e) list(error = conditionMessage(e))),
  warning = function(w) {
    warnings <<- c(warnings, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  c(list(case = case$name, device = device, n = n, warnings = unique(warnings),
         wall = proc.time()[["elapsed"]] - started), out)
}

# The worker: loads gpustats from `lib`, runs the selected cases on each
# device and saves the results (and what it ran on) to `out` with saveRDS.
cmp_worker_main <- function(args) {
  lib <- args[[1L]]
  out <- args[[2L]]
  quick <- args[[3L]] == "1"
  pattern <- args[[4L]]
  reps <- as.integer(args[[5L]])
  .libPaths(c(lib, .libPaths()))
  suppressPackageStartupMessages(library(gpustats))
  # all cores for the CPU path, whatever OMP_NUM_THREADS says
  cores <- parallel::detectCores()
  options(gpustats.threads = cores)
  gpu <- gpu_available()
  # the threads the CPU path uses (cpu_threads() is internal in older versions)
  threads <- get("cpu_threads", envir = asNamespace("gpustats"))()
  info <- list(lib = dirname(getNamespaceInfo("gpustats", "path")),
               version = as.character(utils::packageVersion("gpustats")), gpu = gpu,
               gpu_name = if (gpu) gpu_info()$name[1L] else NA_character_, cpu_threads = threads, cores = cores)
  devices <- c(if (gpu) "gpu", "cpu")
  cases <- Filter(function(cs) grepl(pattern, cs$name), cmp_cases())
  results <- list()
  for (cs in cases) {
    for (device in devices) {
      res <- cmp_run_case(cs, device, quick, reps)
      results[[length(results) + 1L]] <- res
      # the median time, and the case's whole time (data, warm-up, digest)
      cat(sprintf("  %-22s %-3s %s\n", cs$name, device,
                  if (is.null(res$error)) sprintf("%.3f s (%.1f s in all)", stats::median(res$seconds), res$wall)
                  else paste("ERROR:", res$error)))
    }
  }
  saveRDS(list(info = info, results = results), out, compress = FALSE)
}

# ---- the driver ---------------------------------------------------------------

# Options --name=value into a named list of strings, with defaults.
cmp_options <- function(args) {
  opts <- list(old = "", new = "", rounds = "3", reps = "3", cases = ".", quick = "0", out = "", list = "0")
  for (a in args) {
    m <- regmatches(a, regexec("^--([a-z]+)=(.*)$", a))[[1L]]
    if (length(m) != 3L || !m[2L] %in% names(opts)) stop("unknown argument '", a, "'; see the header of this file")
    opts[[m[2L]]] <- m[3L]
  }
  opts
}

# The worker script: the worker's functions, dumped, and the call of its main.
cmp_write_worker <- function(file) {
  fns <- c("cmp_cases", "cmp_make_data", "cmp_kms_matrix", "cmp_data", "cmp_digest", "cmp_digest_loglik",
           "cmp_digest_factor", "cmp_digest_gbees", "cmp_time_once", "cmp_run_case", "cmp_worker_main")
  dump(fns, file = file, envir = globalenv())
  cat("cmp_data_cache <- new.env()\n", "cmp_worker_main(commandArgs(trailingOnly = TRUE))\n",
      file = file, append = TRUE, sep = "")
}

# One run of the worker for one build, in a fresh Rscript process: its
# output (a line per case) goes to the console as it comes, its messages to
# a log that is shown when it fails. Returns the worker's results.
cmp_run_build <- function(worker, lib, label, round, opts, dir) {
  out <- file.path(dir, sprintf("%s-%d.rds", label, round))
  log <- file.path(dir, sprintf("%s-%d.log", label, round))
  cat(sprintf("round %d, %s build (%s)\n", round, label, lib))
  t0 <- proc.time()[["elapsed"]]
  status <- system2(file.path(R.home("bin"), "Rscript"),
                    shQuote(c(worker, lib, out, opts$quick, opts$cases, opts$reps)), stdout = "", stderr = log)
  if (status != 0L || !file.exists(out)) {
    stop(sprintf("the %s build's worker failed (status %d):\n%s", label, status,
                 paste(utils::tail(readLines(log, warn = FALSE), 30L), collapse = "\n")))
  }
  cat(sprintf("  (%.0f s)\n", proc.time()[["elapsed"]] - t0))
  res <- readRDS(out)
  if (normalizePath(res$info$lib) != normalizePath(lib)) {
    stop(sprintf("the %s build's worker loaded gpustats from %s, not %s", label, res$info$lib, lib))
  }
  res
}

# The relative difference of one part of two digests: "entry", the largest
# relative difference of an entry (for special functions, accurate to a
# relative error everywhere); "norm", the largest difference over the
# largest magnitude in the part (for draws and densities, whose entries near
# 0 carry only the absolute error of the others). 0 where the parts are
# equal; Inf where their lengths differ or an entry is finite in one only.
cmp_part_diff <- function(a, b, compare) {
  if (length(a) != length(b)) return(Inf)
  same <- (a == b) %in% TRUE | (is.na(a) & is.na(b))
  if (all(same)) return(0)
  if (!all(is.finite(a[!same]) & is.finite(b[!same]))) return(Inf)
  scale <- if (compare == "norm") max(abs(c(a, b))[is.finite(c(a, b))]) else pmax(abs(a), abs(b))[!same]
  max(abs(a - b)[!same] / scale)
}

# The largest relative difference over the parts of two digests.
cmp_rel_diff <- function(a, b, compare) {
  if (!identical(names(a), names(b))) return(Inf)
  max(0, mapply(cmp_part_diff, a, b, MoreArgs = list(compare = compare)))
}

# The results of one case and device in every round of one build (NULL for
# a round that lacks it).
cmp_pick <- function(rounds, key) {
  lapply(rounds, function(r) {
    keys <- vapply(r$results, function(x) paste(x$case, x$device), "")
    r$results[[match(key, keys)]]
  })
}

# One row per case and device: median times, ratio, the largest result
# difference between the builds (first rounds) and within each build (over
# its rounds), and the flags.
cmp_summarise <- function(runs, cases) {
  case_names <- vapply(cases, `[[`, "", "name")
  exact <- stats::setNames(vapply(cases, function(cs) isTRUE(cs$exact), FALSE), case_names)
  compare <- stats::setNames(vapply(cases, function(cs) if (is.null(cs$compare)) "entry" else cs$compare, ""),
                             case_names)
  keys <- unique(unlist(lapply(c(runs$old, runs$new), function(r) {
    vapply(r$results, function(x) paste(x$case, x$device), "")
  })))
  rows <- lapply(keys, function(key) {
    old <- cmp_pick(runs$old, key)
    new <- cmp_pick(runs$new, key)
    any_run <- Filter(Negate(is.null), c(old, new))[[1L]]
    row <- data.frame(case = any_run$case, device = any_run$device, n = any_run$n, old_s = NA_real_,
                      new_s = NA_real_, ratio = NA_real_, diff = NA_real_, within = NA_real_, flags = "",
                      stringsAsFactors = FALSE)
    if (any(vapply(c(old, new), is.null, FALSE))) {
      row$flags <- "missing in a build (is the GPU used by one build only?)"
      return(row)
    }
    errors <- unlist(lapply(c(old, new), `[[`, "error"))
    if (length(errors)) {
      row$flags <- paste("ERROR:", errors[1L])
      return(row)
    }
    per_round <- function(rs) stats::median(vapply(rs, function(r) stats::median(r$seconds), 0))
    row$old_s <- per_round(old)
    row$new_s <- per_round(new)
    row$ratio <- row$new_s / row$old_s
    how <- compare[[row$case]]
    row$diff <- cmp_rel_diff(old[[1L]]$digest, new[[1L]]$digest, how)
    row$within <- max(vapply(old, function(r) cmp_rel_diff(old[[1L]]$digest, r$digest, how), 0),
                      vapply(new, function(r) cmp_rel_diff(new[[1L]]$digest, r$digest, how), 0))
    flags <- c(if (row$ratio < 0.97 || row$ratio > 1.03) "time",
               if (exact[[row$case]] && row$diff > 0) "not identical" else if (row$diff > 1e-12) "result",
               if (row$within > 1e-12) "varies between rounds")
    warned <- unique(unlist(lapply(c(old, new), `[[`, "warnings")))
    if (length(warned)) flags <- c(flags, paste("warning:", warned[1L]))
    row$flags <- paste(flags, collapse = ", ")
    row
  })
  do.call(rbind, rows)
}

# The rows as a markdown table.
cmp_markdown <- function(tab) {
  fmt_diff <- function(x) ifelse(is.na(x), "", ifelse(x == 0, "0", sprintf("%.1e", x)))
  fmt_s <- function(x) ifelse(is.na(x), "", sprintf("%.3f", x))
  c("| case | device | size | old s | new s | new/old | max rel. diff | flags |",
    "|---|---|---:|---:|---:|---:|---:|---|",
    sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |", tab$case, tab$device,
            formatC(tab$n, format = "fg", big.mark = ","), fmt_s(tab$old_s), fmt_s(tab$new_s),
            ifelse(is.na(tab$ratio), "", sprintf("%.3f", tab$ratio)),
            fmt_diff(tab$diff), tab$flags))
}

# The GPU's name from nvidia-smi, or "none".
cmp_gpu_name <- function() {
  if (!nzchar(Sys.which("nvidia-smi"))) return("none (no nvidia-smi)")
  name <- tryCatch(system2("nvidia-smi", c("--query-gpu=name", "--format=csv,noheader"), stdout = TRUE, stderr = FALSE),
                   error = function(e) character(0), warning = function(w) character(0))
  if (length(name)) paste(unique(trimws(name)), collapse = ", ") else "none (nvidia-smi found no GPU)"
}

# --list: each case's sizes and call, as it is run (d holds its data).
cmp_list_cases <- function(cases) {
  size <- function(x) formatC(x, format = "fg", big.mark = ",")
  for (cs in cases) {
    cat(sprintf("%s (size: gpu %s, cpu %s; quick %s)%s\n", cs$name, size(cs$n[["gpu"]]), size(cs$n[["cpu"]]),
                size(cs$quick), if (isTRUE(cs$exact)) ", bit-identical expected" else ""))
    cat(paste0("    ", deparse(body(cs$run), width.cutoff = 100L)), sep = "\n")
  }
}

cmp_main <- function(args) {
  opts <- cmp_options(args)
  cases <- Filter(function(cs) grepl(opts$cases, cs$name), cmp_cases())
  if (opts$list == "1") return(invisible(cmp_list_cases(cases)))
  if (!nzchar(opts$old) || !nzchar(opts$new)) stop("give both libraries: --old=LIB --new=LIB")
  for (lib in c(opts$old, opts$new)) {
    if (!file.exists(file.path(lib, "gpustats", "DESCRIPTION"))) stop("no gpustats installed in ", lib)
  }
  if (!length(cases)) stop("no case matches '", opts$cases, "'")
  libs <- c(old = normalizePath(opts$old), new = normalizePath(opts$new))
  dir <- tempfile("compare-builds-")
  dir.create(dir)
  worker <- file.path(dir, "worker.R")
  cmp_write_worker(worker)
  t0 <- proc.time()[["elapsed"]]
  runs <- list(old = list(), new = list())
  for (round in seq_len(as.integer(opts$rounds))) {
    for (label in c("old", "new")) {
      runs[[label]][[round]] <- cmp_run_build(worker, libs[[label]], label, round, opts, dir)
    }
  }
  tab <- cmp_summarise(runs, cases)
  info <- lapply(runs, function(r) r[[1L]]$info)
  report <- c(
    sprintf("compare-builds: %s, %d round(s) of old then new, %s timed repetition(s) after a warm-up%s",
            format(Sys.time(), "%Y-%m-%d %H:%M"), as.integer(opts$rounds), opts$reps,
            if (opts$quick == "1") ", quick sizes" else ""),
    sprintf("GPU: %s; CPU: %d cores (gpustats threads: old %d, new %d); %s", cmp_gpu_name(), parallel::detectCores(),
            info$old$cpu_threads, info$new$cpu_threads, R.version.string),
    sprintf("%s: gpustats %s in %s%s", names(info), vapply(info, `[[`, "", "version"), vapply(info, `[[`, "", "lib"),
            ifelse(vapply(info, `[[`, TRUE, "gpu"), ", GPU used", ", no GPU: CPU only")),
    "",
    cmp_markdown(tab),
    "",
    paste("size: points or draws; locations or rows of the matrix (matern_cov, gp_*, tile_chol); samples of 1,000",
          "(stable_fit); the end time (gbees); Monte Carlo samples (gbees_mc)."),
    "Times: median over rounds of each round's median (seconds). new/old outside [0.97, 1.03]: flag 'time'.",
    paste("max rel. diff: the largest relative difference between the builds' result digests (first rounds),",
          "entry by entry (for gp_simulate and GBEES, relative to the largest magnitude); over 1e-12: flag",
          "'result' ('not identical' where the results must agree bit for bit); a build whose own rounds",
          "differ by more: flag 'varies between rounds'."),
    "Left out:",
    sprintf("- %s: %s", names(cmp_left_out()), cmp_left_out()),
    sprintf("Total time: %.0f s", proc.time()[["elapsed"]] - t0))
  cat("", report, sep = "\n")
  if (nzchar(opts$out)) writeLines(report, opts$out)
  unlink(dir, recursive = TRUE)
  invisible(tab)
}

# run as a script (Rscript), not when sourced
if (sys.nframe() == 0L) cmp_main(commandArgs(trailingOnly = TRUE))
