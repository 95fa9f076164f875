# The exact fit's search with the analytic gradient of the profiled
# log-likelihood (gs_gp_derivatives) against finite-difference gradients, and
# the standard errors from the Fisher information against the
# central-difference Hessian, in the same run: a constant mean, a nugget and
# the smoothness estimated by REML (gp_fit's defaults), on simulated data.
#
#   Rscript inst/bench/gp-exact-grad.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gpg_n       sizes (default 2000,5000; quick 1000)
#   gpg_device  "cpu" (default), or "gpu" where one is available

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

gpg_data <- function(n, seed = 1, device = "cpu") {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  list(locs = locs, y = 1 + gp_simulate(locs, sigma2 = 1, range = 0.1, smoothness = 0.8, nugget = 0.1, device = device))
}

# One fit: the search with the given gradient, then the standard errors of
# the given type, each timed.
gpg_fit <- function(d, device, gradient, vcov) {
  t0 <- proc.time()[["elapsed"]]
  fit <- gp_fit(d$y, d$locs, device = device, control = list(trace = FALSE, hessian = FALSE, gradient = gradient))
  search <- proc.time()[["elapsed"]] - t0
  t0 <- proc.time()[["elapsed"]]
  V <- vcov(fit, type = vcov)
  se <- proc.time()[["elapsed"]] - t0
  list(fit = fit, search = search, se_seconds = se, se = sqrt(diag(V))[fit$estimated])
}

bench_gp_exact_grad <- function(sizes = bench_opt("gpg_n", c(2000, 5000), 1000), device = bench_opt("gpg_device", "cpu")) {
  rows <- NULL
  for (n in sizes) {
    d <- gpg_data(n, device = device)
    runs <- list(differences = gpg_fit(d, device, "differences", "hessian"),
                 analytic = gpg_fit(d, device, "analytic", "fisher"))
    for (k in names(runs)) {
      r <- runs[[k]]
      message(sprintf("n = %s on the %s, %s gradient: search %s s, %d evaluations, loglik %.8f; SEs (%s) %s s: %s",
                      fmt_n(n), device, k, fmt_sec(r$search), r$fit$evaluations, r$fit$loglik,
                      if (k == "analytic") "Fisher" else "Hessian", fmt_sec(r$se_seconds),
                      paste(names(r$se), signif(r$se, 3), collapse = " ")))
      rows <- rbind(rows, data.frame(n = n, device = device, gradient = k, search_seconds = r$search,
                                     evaluations = r$fit$evaluations, iterations = r$fit$iterations,
                                     loglik = r$fit$loglik, se = if (k == "analytic") "fisher" else "hessian",
                                     se_seconds = r$se_seconds))
    }
    message(sprintf("n = %s: search %s faster with the analytic gradient, log-likelihoods differ by %.2g; SEs %s faster from the Fisher information",
                    fmt_n(n), fmt_ratio(runs$differences$search / runs$analytic$search),
                    runs$analytic$fit$loglik - runs$differences$fit$loglik,
                    fmt_ratio(runs$differences$se_seconds / runs$analytic$se_seconds)))
  }
  rows
}

if (sys.nframe() == 0L) print(bench_gp_exact_grad(), row.names = FALSE)
