# Vecchia-Laplace fits of spatial GLMMs through the public call, the
# issue's speed figures: gp_fit(y ~ x, family = poisson(), approx =
# "vecchia", m = 30) end to end (ordering, conditioning sets, the search
# and the standard errors) on Poisson counts at uniform locations on the
# unit square (a covariate, an exponential field of variance 1 and range
# 0.05), the smoothness held at 0.5 and free; and, as a diagnostic, one
# evaluation of the Vecchia-Laplace log-likelihood at the true parameters
# (the mode from zero, through the internal glmm_loglik()).
#
#   Rscript inst/bench/glmm-vecchia.R [--glv_n=1e5,1e6] [--glv_devices=gpu,cpu] [--glv_free=0,1]

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

bench_glmm_vecchia <- function(sizes = bench_opt("glv_n", c(1e5, 1e6), 5000),
                               devices = bench_opt("glv_devices", if (bench_gpu_ok()) "gpu,cpu" else "cpu"),
                               free = bench_opt("glv_free", c(0, 1), 0)) {
  rows <- list()
  for (n in sizes) {
    set.seed(1)
    locs <- matrix(runif(2 * n), ncol = 2)
    field <- drop(gp_simulate(locs, 1, 0.05, 0.5, approx = "vecchia", device = if (bench_gpu_ok()) "gpu" else "cpu"))
    df <- data.frame(lon = locs[, 1], lat = locs[, 2], x = rnorm(n))
    df$y <- rpois(n, exp(0.3 + 0.5 * df$x + field))
    for (dev in strsplit(devices, ",", fixed = TRUE)[[1]]) {
      label <- if (dev == "cpu") sprintf("cpu (%d threads)", bench_cpu_threads()) else "gpu"
      t <- system.time(r <- gpustats:::glmm_loglik(df$y, locs, cbind(1, df$x), c(0.3, 0.5),
                                                   c(sigma2 = 1, range = 0.05, smoothness = 0.5, nugget = 0), "poisson",
                                                   m = 30, device = dev))[["elapsed"]]
      message(sprintf("Vecchia-Laplace log-likelihood (internal, a mode from zero), n = %s, %s: %.2f s, %d Newton steps",
                      fmt_n(n), label, t, r$iterations))
      rows[[length(rows) + 1L]] <- bench_row("glmm_loglik Vecchia-Laplace m = 30 (diagnostic)", n, label, t, n / t)
      for (f in free) {
        fixed <- if (f) list() else list(smoothness = 0.5)
        t <- system.time(fit <- gp_fit(y ~ x, df, coords = ~ lon + lat, family = poisson(), approx = "vecchia", m = 30,
                                       fixed = fixed, device = dev, control = list(trace = FALSE)))[["elapsed"]]
        what <- sprintf("gp_fit Poisson Vecchia-Laplace m = 30, smoothness %s", if (f) "free" else "held")
        message(sprintf("%s, n = %s, %s: %.1f s, %d evaluations; range %.4f (true 0.05)", what, fmt_n(n), label, t,
                        fit$evaluations, fit$covariance[["range"]]))
        rows[[length(rows) + 1L]] <- bench_row(what, n, label, t, n / t)
      }
    }
  }
  do.call(rbind, rows)
}

if (sys.nframe() == 0L) print(bench_glmm_vecchia())
