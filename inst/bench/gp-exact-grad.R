# The exact fit's search, three ways on the same data in the same run: the
# search before the stopping rule (gradients by differences, control
# loglik.tol = 0 and par.tol = 0: nlminb's own tests alone), gradients by
# differences with the stopping rule, and the analytic gradient of the
# profiled log-likelihood (gs_gp_derivatives) with the rule. The model of a
# user's call, `gp_fit(z ~ x1, data, coords = ~ x + y, method = "ml",
# nugget = TRUE)`: a trend, a nugget and the smoothness estimated by ML, on
# simulated data.
#
#   Rscript inst/bench/gp-exact-grad.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gpg_n        sizes (default 2000,5000; quick 1000)
#   gpg_device   "cpu" (default), or "gpu" where one is available
#   gpg_hessian  1 (default) to time the fits with their standard errors, as
#                gp_fit() computes them by default; 0 for the search alone

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

# z = 1 + 0.5 x1 + S + e on the unit square: S Matérn (sigma2 1, range 0.1,
# smoothness 0.8), nugget 0.1, x1 a smooth covariate.
gpg_data <- function(n, device, seed = 1) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  x1 <- sin(2 * pi * locs[, 1])
  s <- gp_simulate(locs, sigma2 = 1, range = 0.1, smoothness = 0.8, nugget = 0.1, device = device)
  data.frame(z = 1 + 0.5 * x1 + s, x1 = x1, x = locs[, 1], y = locs[, 2])
}

# The searches compared: their control settings besides trace and hessian.
gpg_searches <- list(
  "differences, no rule" = list(gradient = "differences", loglik.tol = 0, par.tol = 0),
  "differences + rule" = list(gradient = "differences"),
  "analytic + rule" = list(gradient = "analytic")
)

bench_gp_exact_search <- function(sizes = bench_opt("gpg_n", c(2000, 5000), 1000),
                                  device = bench_opt("gpg_device", "cpu"),
                                  hessian = bench_opt("gpg_hessian", 1) == 1) {
  rows <- NULL
  for (n in sizes) {
    data <- gpg_data(n, device)
    fits <- list()
    for (k in names(gpg_searches)) {
      ctrl <- c(list(trace = FALSE, hessian = hessian), gpg_searches[[k]])
      t <- system.time(fit <- gp_fit(z ~ x1, data, coords = ~ x + y, method = "ml", nugget = TRUE, device = device,
                                     control = ctrl))[["elapsed"]]
      fits[[k]] <- fit
      message(sprintf("n = %s on the %s, %s: %s s%s, %d evaluations, %d iterations, loglik %.8f", fmt_n(n), device, k,
                      fmt_sec(t), if (hessian) sprintf(" with standard errors (%s)", fit$vcov_type) else "",
                      fit$evaluations, fit$iterations, fit$loglik))
      rows <- rbind(rows, data.frame(n = n, device = device, search = k, seconds = t, standard_errors = hessian,
                                     evaluations = fit$evaluations, iterations = fit$iterations, loglik = fit$loglik,
                                     loglik_change = fit$loglik - fits[[1L]]$loglik))
    }
    seconds <- rows$seconds[rows$n == n]
    message(sprintf("n = %s, against the search without the rule: %s", fmt_n(n),
                    paste(sprintf("%s %s faster", names(fits)[-1L], vapply(seconds[1L] / seconds[-1L], fmt_ratio, "")),
                          collapse = ", ")))
  }
  rows
}

if (sys.nframe() == 0L) print(bench_gp_exact_search(), row.names = FALSE)
