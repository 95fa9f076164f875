# Predictions of a spatial GLMM through the public call, beside Gaussian
# kriging at the same sizes: predict(fit, newdata, se.fit = TRUE) of a
# Poisson fit (the covariance parameters fixed, so that no search is timed)
# runs the Laplace mode once, then the kriging block loop that Gaussian
# kriging runs, with B's factor; and conditional simulate(). CPU only (the
# Laplace approximation has no GPU path).
#
#   Rscript inst/bench/glmm-predict.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   glp_n     observed locations (default 2000; quick 500)
#   glp_m     new locations (default 4000; quick 500)
#   glp_nsim  conditional draws timed at the same sizes (default 10; 0: none)
#   reps      timed repeats (default 3)

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

bench_glmm_predict <- function(sizes = bench_opt("glp_n", 2000, 500), news = bench_opt("glp_m", 4000, 500),
                               nsim = bench_opt("glp_nsim", 10, 2), reps = bench_opt("reps", 3, 1)) {
  rows <- list()
  add <- function(...) rows[[length(rows) + 1L]] <<- bench_row(...)
  label <- sprintf("cpu (%d threads)", bench_cpu_threads())
  cov <- list(sigma2 = 1, range = 0.1, smoothness = 0.5)
  for (n in sizes) {
    set.seed(3)
    locs <- matrix(runif(2 * n), ncol = 2)
    field <- gp_simulate(locs, cov$sigma2, cov$range, cov$smoothness, device = "cpu")
    df <- data.frame(x1 = locs[, 1], x2 = locs[, 2], y = rpois(n, exp(0.5 + field)))
    df$g <- df$y + rnorm(n, sd = 0.1)
    fits <- list(
      poisson = gp_fit(y ~ 1, df, coords = ~ x1 + x2, family = poisson(), fixed = cov, device = "cpu",
                       control = list(trace = FALSE, hessian = FALSE)),
      gaussian = gp_fit(g ~ 1, df, coords = ~ x1 + x2, fixed = c(cov, nugget = 0.01), device = "cpu",
                        control = list(trace = FALSE, hessian = FALSE)))
    for (m in news) {
      new <- data.frame(x1 = runif(m), x2 = runif(m))
      for (family in names(fits)) {
        fit <- fits[[family]]
        t <- bench_time(function() predict(fit, new, se.fit = TRUE, device = "cpu"), reps = reps, warmup = 0L)
        add(sprintf("%s predict(se.fit = TRUE), %s new locations", family, fmt_n(m)), n, label, t, m / t)
        message(sprintf("%s predict n = %s, m = %s, se.fit = TRUE: %s s", family, fmt_n(n), fmt_n(m), fmt_sec(t)))
        if (nsim > 0) {
          t <- bench_time(function() simulate(fit, nsim, seed = 1, newdata = new, device = "cpu"), reps = reps,
                          warmup = 0L)
          add(sprintf("%s simulate(nsim = %d), %s new locations", family, nsim, fmt_n(m)), n, label, t, m * nsim / t)
          message(sprintf("%s simulate n = %s, m = %s, nsim = %d: %s s", family, fmt_n(n), fmt_n(m), nsim, fmt_sec(t)))
        }
      }
    }
  }
  do.call(rbind, rows)
}

if (sys.nframe() == 0L) print(bench_glmm_predict(), row.names = FALSE)
