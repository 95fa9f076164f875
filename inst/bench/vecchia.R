# The Vecchia approximation: accuracy against the exact likelihood as m grows,
# and the speed of one likelihood with gradient and Fisher information on the
# GPU, on the package's CPU path and with GpGp (same ordering, conditioning
# sets and model), ratios in the same run.
#
#   Rscript inst/bench/vecchia.R [--option=value ...]      (from the package source root)
#
# The grouping pass alone, on 1 and 16 threads:
#   Rscript inst/bench/vecchia.R --vecchia_accuracy_n=0 --vecchia_n=0 --vecchia_group_n=0 \
#     --vecchia_order_n=0 --vecchia_group_threads=1,16
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   vecchia_n           sizes of the timed likelihoods (default 1e5,1e6)
#   vecchia_m           conditioning-set size (default 30)
#   vecchia_accuracy_n  size of the accuracy study against the exact
#                       likelihood (default 20000; needs the dense n x n
#                       factor: about a minute on a GPU, long on a few cores;
#                       0: none)
#   vecchia_accuracy_m  its m (default 5,10,30,60)
#   vecchia_gpgp        1 to time GpGp where it is installed (default 1)
#   vecchia_group_n     sizes of the grouped-against-ungrouped study (default
#                       20000; up to 50,000 with the error against the exact
#                       likelihood, larger sizes timed only; 0: none)
#   vecchia_group_m     its m (default 10,30)
#   vecchia_group_pass_n  sizes of the timed grouping pass alone (group_obs's
#                       rule on the neighbours of m = vecchia_m; default
#                       1e5,1e6; 0: none)
#   vecchia_group_threads  its thread counts (default 1 and every core: on a
#                       16-core host --vecchia_group_threads=1,16); the
#                       blocks are checked identical across them
#   vecchia_order_n     sizes of the exact and approximate maxmin orderings
#                       (default 1e6,1e7; one thread each; 0: none)
#   vecchia_order_exact_max  largest size given the exact ordering (default 1e6)
#   vecchia_nu          smoothness of the timed likelihoods (default 0.5,1.3; GpGp's
#                       Matérn at 1.3 takes minutes at n = 1e6)
#   reps                timed repeats (default 3)
#
# The timed data are standard normal at uniform locations in the unit square
# (the time does not depend on the values); sigma2 = 1, range = 0.1, nugget
# 0.1, smoothness 0.5 (the exponential: closed form) or 1.3 (the Bessel
# function, and the smoothness derivative by its integral).

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

vecchia_bench_locs <- function(n, seed = 1) {
  set.seed(seed)
  matrix(runif(2 * n), ncol = 2)
}

# Log-likelihood error and KL divergence of the Vecchia law from the exact
# one, KL = (log |S_V| - log |S|) / 2 (the trace term is n: each row of W
# whitens its own conditioning set).
bench_vecchia_accuracy <- function(n = bench_opt("vecchia_accuracy_n", 2e4, 2000),
                                   ms = bench_opt("vecchia_accuracy_m", c(5, 10, 30, 60), c(5, 10, 30))) {
  if (n < 1) return(NULL)
  locs <- vecchia_bench_locs(n, 2)
  dev <- if (gpu_available()) "gpu" else "cpu"
  p <- c(sigma2 = 1, range = 0.1, smoothness = 1.3, nugget = 0.1)
  y <- gp_simulate(locs, p[1], p[2], p[3], p[4], device = dev)
  exact <- gp_loglik(y, locs, p[1], p[2], p[3], p[4], device = dev)
  rows <- lapply(ms, function(m) {
    v <- vecchia_loglik(y, locs, p[1], p[2], p[3], p[4], m = m, device = dev)
    data.frame(n = n, m = m, loglik_error = as.numeric(v - exact),
               relative = as.numeric(v / exact - 1),
               kl = 0.5 * (attr(v, "logdet") - attr(exact, "logdet")))
  })
  do.call(rbind, rows)
}

# Seconds of one likelihood with gradient and information, per device, and
# of GpGp's vecchia_profbeta_loglik_grad_info on the same problem.
bench_vecchia_speed <- function(ns = bench_opt("vecchia_n", c(1e5, 1e6), 2000), m = bench_opt("vecchia_m", 30),
                                reps = bench_opt("reps", 3, 1), gpgp = bench_opt("vecchia_gpgp", 1),
                                nus = bench_opt("vecchia_nu", c(0.5, 1.3))) {
  rows <- list()
  add <- function(...) rows[[length(rows) + 1L]] <<- data.frame(..., stringsAsFactors = FALSE)
  has_gpgp <- gpgp == 1 && requireNamespace("GpGp", quietly = TRUE)
  for (n in ns[ns >= 1]) {
    locs <- vecchia_bench_locs(n)
    y <- rnorm(n)
    X <- matrix(1, n, 1)
    t_nb <- system.time(nb <- vecchia_neighbors(locs, m = m))[["elapsed"]]
    add(case = "maxmin ordering + neighbours", n = n, device = "cpu", seconds = t_nb)
    message(sprintf("n = %s: ordering and neighbours %s s", fmt_n(n), fmt_sec(t_nb)))
    for (nu in nus) {
      p <- c(sigma2 = 1, range = 0.1, smoothness = nu, nugget = 0.1)
      deriv <- if (nu == 0.5) c("sigma2", "range", "nugget") else names(gpustats:::gs_table("cov_param"))
      label <- sprintf("loglik + gradient + information, smoothness %s (%d parameters)",
                       if (nu == 0.5) "0.5 fixed" else "1.3 free", length(deriv))
      for (dev in c("cpu", if (gpu_available()) "gpu")) {
        vc <- gpustats:::vecchia_open(locs, m, device = dev, neighbors = nb, label = "bench")
        t <- bench_time(function() gpustats:::vecchia_loglik_grad_info(vc, p, y, X, deriv = deriv, label = "bench"), reps)
        gpustats:::vecchia_close(vc)
        add(case = label, n = n, device = if (dev == "cpu") sprintf("cpu (%d threads)", bench_cpu_threads()) else "gpu",
            seconds = t)
        message(sprintf("n = %s, nu = %s, %s: %s s", fmt_n(n), nu, dev, fmt_sec(t)))
      }
      if (has_gpgp) {
        # the same model in GpGp: its exponential (3 parameters) at 0.5, its
        # Matérn (4, the smoothness derivative by a difference) at 1.3
        lo <- locs[nb$order, ]
        yo <- y[nb$order]
        covfun <- if (nu == 0.5) "exponential_isotropic" else "matern_isotropic"
        cp <- if (nu == 0.5) c(1, 0.1, 0.1) else c(1, 0.1, nu, 0.1)
        # no warm-up run: GpGp's Matérn takes minutes at n = 1e6
        t <- bench_time(function() GpGp::vecchia_profbeta_loglik_grad_info(cp, covfun, yo, X, lo, nb$neighbors), reps,
                        warmup = 0)
        add(case = label, n = n, device = sprintf("GpGp (%d cores)", bench_cores()), seconds = t)
        message(sprintf("n = %s, nu = %s, GpGp: %s s", fmt_n(n), nu, fmt_sec(t)))
      }
    }
  }
  do.call(rbind, rows)
}

# Grouped (Guinness 2021) against ungrouped at the same m, ordering and
# neighbours: the log-likelihood error and KL divergence from the exact law,
# and the seconds of one likelihood with gradient and information (all four
# Matérn parameters, constant mean) per device and with GpGp's
# vecchia_profbeta_loglik_grad_info / vecchia_grouped_profbeta_loglik_grad_info
# on the same blocks (group_obs gives the blocks of vecchia_neighbors).
bench_vecchia_group <- function(ns = bench_opt("vecchia_group_n", 2e4, 2000), ms = bench_opt("vecchia_group_m", c(10, 30)),
                                reps = bench_opt("reps", 3, 1), gpgp = bench_opt("vecchia_gpgp", 1)) {
  rows <- lapply(ns[ns >= 1], bench_vecchia_group_n, ms, reps, gpgp)
  if (length(rows)) do.call(rbind, rows)
}

bench_vecchia_group_n <- function(n, ms, reps, gpgp) {
  locs <- vecchia_bench_locs(n, 2)
  dev <- if (gpu_available()) "gpu" else "cpu"
  p <- c(sigma2 = 1, range = 0.1, smoothness = 1.3, nugget = 0.1)
  y <- gp_simulate(locs, p[1], p[2], p[3], p[4], device = dev)
  X <- matrix(1, n, 1)
  exact <- if (n <= 5e4) gp_loglik(y, locs, p[1], p[2], p[3], p[4], device = dev) else structure(NA, logdet = NA) # zero mean
  has_gpgp <- gpgp == 1 && requireNamespace("GpGp", quietly = TRUE)
  rows <- list()
  for (m in ms) {
    nb <- vecchia_neighbors(locs, m = m, group = TRUE)
    lo <- locs[nb$order, ]
    yo <- y[nb$order]
    for (group in c(FALSE, TRUE)) {
      for (d in c("cpu", if (gpu_available()) "gpu")) {
        vc <- gpustats:::vecchia_open(locs, m, device = d, neighbors = nb, group = group, label = "bench")
        r <- gpustats:::vecchia_loglik_grad_info(vc, p, y, deriv = character(), label = "bench")
        t <- bench_time(function() gpustats:::vecchia_loglik_grad_info(vc, p, y, X, label = "bench"), reps)
        gpustats:::vecchia_close(vc)
        rows[[length(rows) + 1L]] <- data.frame(
          n = n, m = m, group = group, device = if (d == "cpu") sprintf("cpu (%d threads)", bench_cpu_threads()) else "gpu",
          seconds = t, loglik_error = r$loglik - as.numeric(exact),
          kl = 0.5 * (r$logdet - attr(exact, "logdet")), stringsAsFactors = FALSE)
        message(sprintf("n = %s, m = %d, group = %s, %s: %s s, error %.4g", fmt_n(n), m, group, d, fmt_sec(t),
                        r$loglik - as.numeric(exact)))
      }
      if (has_gpgp) {
        cp <- c(p[1:3], p[4] / p[1])
        f <- if (group) {
          blocks <- GpGp::group_obs(nb$neighbors)
          function() GpGp::vecchia_grouped_profbeta_loglik_grad_info(cp, "matern_isotropic", yo, X, lo, blocks)
        } else {
          function() GpGp::vecchia_profbeta_loglik_grad_info(cp, "matern_isotropic", yo, X, lo, nb$neighbors)
        }
        t <- bench_time(f, reps, warmup = 0)
        rows[[length(rows) + 1L]] <- data.frame(n = n, m = m, group = group, device = sprintf("GpGp (%d cores)", bench_cores()),
                                                seconds = t, loglik_error = NA, kl = NA, stringsAsFactors = FALSE)
        message(sprintf("n = %s, m = %d, group = %s, GpGp: %s s", fmt_n(n), m, group, fmt_sec(t)))
      }
    }
  }
  do.call(rbind, rows)
}

# Seconds of the grouping pass (vecchia_group.c) alone per thread count,
# median of `reps`, with the blocks compared with those of the first count.
bench_vecchia_group_pass <- function(ns = bench_opt("vecchia_group_pass_n", c(1e5, 1e6), 2000), m = bench_opt("vecchia_m", 30),
                                     threads = bench_opt("vecchia_group_threads", unique(c(1, bench_cores()))),
                                     reps = bench_opt("reps", 3, 1)) {
  rows <- NULL
  for (n in ns[ns >= 1]) {
    nn <- vecchia_neighbors(vecchia_bench_locs(n), m = m)$neighbors
    first <- NULL
    for (t in threads) {
      old <- options(gpustats.threads = t)
      blocks <- NULL
      s <- bench_time(function() blocks <<- gpustats:::vecchia_group(nn, environment()), reps, warmup = 0)
      options(old)
      if (is.null(first)) first <- blocks
      rows <- rbind(rows, data.frame(n = n, m = m, threads = t, seconds = s, blocks = max(blocks),
                                     same_blocks = identical(blocks, first)))
      message(sprintf("grouping pass, n = %s, m = %d, %d threads: %s s, %d blocks, same as %d threads: %s", fmt_n(n), m, t,
                      fmt_sec(s), max(blocks), threads[1], identical(blocks, first)))
    }
  }
  rows
}

vecchia_group_table <- function(g) {
  if (is.null(g)) return(character())
  t <- data.frame(n = fmt_n(g$n), m = g$m, grouped = ifelse(g$group, "yes", "no"), device = g$device,
                  seconds = fmt_sec(g$seconds), `loglik error` = fmt_g(g$loglik_error), KL = fmt_g(g$kl), check.names = FALSE)
  c("## Vecchia approximation: grouped (Guinness 2021) against ungrouped, one likelihood with gradient and information",
    "", md_table(t, "rrllrrr"), "", "Same maxmin ordering, neighbours and blocks (GpGp's group_obs) for every row.", "")
}

# The exact and approximate maxmin orderings (one thread each: both are
# sequential), with the peak resident memory of the process after each.
bench_vecchia_ordering <- function(ns = bench_opt("vecchia_order_n", c(1e6, 1e7), 2000),
                                   exact_max = bench_opt("vecchia_order_exact_max", 1e6)) {
  peak_gb <- function() {
    line <- grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)
    as.numeric(sub("VmHWM:[[:space:]]+([0-9]+) kB", "\\1", line)) / 2^20
  }
  order_of <- function(locs, kind) gpustats:::vecchia_maxmin_order(locs, kind, NULL, environment())
  rows <- NULL
  for (n in ns[ns >= 1]) {
    locs <- vecchia_bench_locs(n)
    for (kind in c(if (n <= exact_max) "maxmin_exact", "maxmin_approx")) {
      t <- system.time(order_of(locs, kind))[["elapsed"]]
      message(sprintf("%s ordering of %s locations: %s s", kind, fmt_n(n), fmt_sec(t)))
      rows <- rbind(rows, data.frame(n = n, ordering = kind, seconds = t, peak_gb = peak_gb()))
    }
  }
  rows
}

vecchia_tables <- function(acc, speed) {
  if (!is.null(acc)) a <- data.frame(n = fmt_n(acc$n), m = acc$m, `loglik error` = fmt_g(acc$loglik_error),
                  relative = fmt_g(acc$relative), KL = fmt_g(acc$kl), check.names = FALSE)
  ratio <- function(case, n, pattern) {
    base <- speed$seconds[speed$case == case & speed$n == n & grepl(pattern, speed$device)]
    if (length(base)) base[1] else NA
  }
  speed$vs_cpu <- mapply(function(cs, n, s) ratio(cs, n, "^cpu") / s, speed$case, speed$n, speed$seconds)
  speed$vs_gpgp <- mapply(function(cs, n, s) ratio(cs, n, "^GpGp") / s, speed$case, speed$n, speed$seconds)
  s <- data.frame(case = speed$case, n = fmt_n(speed$n), device = speed$device, seconds = fmt_sec(speed$seconds),
                  `x CPU path` = fmt_ratio(speed$vs_cpu), `x GpGp` = fmt_ratio(speed$vs_gpgp), check.names = FALSE)
  paste(c(if (!is.null(acc)) c("## Vecchia approximation: accuracy (sigma2 = 1, range 0.1, smoothness 1.3, nugget 0.1)", "",
                               md_table(a, "rrrrr"), ""),
          "## Vecchia approximation: one likelihood with gradient and Fisher information (m = 30, constant mean)", "",
          md_table(s, "lrlrrr"), "",
          "Same maxmin ordering and conditioning sets for every row; times from R, median of the repeats.", ""),
        collapse = "\n")
}

if (sys.nframe() == 0L) {
  acc <- bench_vecchia_accuracy()
  print(acc)
  speed <- bench_vecchia_speed()
  print(speed)
  grouped <- bench_vecchia_group()
  print(grouped)
  print(bench_vecchia_ordering())
  print(bench_vecchia_group_pass())
  if (!is.null(speed)) cat(vecchia_tables(acc, speed), "\n")
  cat(paste(vecchia_group_table(grouped), collapse = "\n"), "\n")
}
