# Replicate study of gp_fit() with the settings of ExaGeoStat's evaluation:
# n locations uniform in the unit square, sigma2 = 1; range 0.03, 0.1, 0.3 at
# smoothness 1/2 and 0.025, 0.075, 0.2 at smoothness 1; `reps` data sets per
# setting and size; all three parameters estimated.
#
#   Rscript inst/bench/gp-replicates.R OUTFILE [--gp_rep_n=1600,10000] [--gp_reps=10]
#
# Writes one row per fit (setting, n, replicate, estimates, standard errors,
# log-likelihood, seconds) to OUTFILE (csv); the vignette plots the copy in
# inst/extdata/gp_replicates.csv.

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

gp_replicates <- function(sizes = bench_opt("gp_rep_n", c(1600, 10000), 400),
                          reps = bench_opt("gp_reps", 10, 2), seed = 20261121) {
  settings <- data.frame(range = c(0.03, 0.1, 0.3, 0.025, 0.075, 0.2), smoothness = rep(c(0.5, 1), each = 3))
  set.seed(seed)
  rows <- list()
  for (n in sizes) for (k in seq_len(nrow(settings))) for (r in seq_len(reps)) {
    s <- settings[k, ]
    locs <- matrix(runif(2 * n), ncol = 2)
    y <- gp_simulate(locs, 1, s$range, s$smoothness)
    t <- system.time(fit <- gp_fit_zero_mean(y, locs, control = list(trace = FALSE)))[["elapsed"]]
    se <- sqrt(pmax(diag(vcov(fit)), 0))
    rows[[length(rows) + 1L]] <- data.frame(
      n = n, true_range = s$range, true_smoothness = s$smoothness, replicate = r,
      sigma2 = coef(fit)[["sigma2"]], range = coef(fit)[["range"]], smoothness = coef(fit)[["smoothness"]],
      se_sigma2 = se[["sigma2"]], se_range = se[["range"]], se_smoothness = se[["smoothness"]],
      loglik = fit$loglik, evaluations = fit$evaluations, seconds = t, device = fit$device)
    message(sprintf("n = %d, range %.3g, smoothness %.2g, replicate %d: %.4g %.4g %.4g (%.2f s)", n, s$range,
                    s$smoothness, r, coef(fit)[[1]], coef(fit)[[2]], coef(fit)[[3]], t))
  }
  do.call(rbind, rows)
}

if (sys.nframe() == 0L) {
  out <- commandArgs(trailingOnly = TRUE)
  out <- out[!startsWith(out, "--")]
  res <- gp_replicates()
  if (length(out)) utils::write.csv(res, out[1], row.names = FALSE)
  print(aggregate(cbind(sigma2, range, smoothness, seconds) ~ n + true_range + true_smoothness, res, median))
}
