# Convergence and time of stable_fit("mle") over a grid of laws: for each
# alpha, beta and seed, one sample of n points (S0, gamma = 1, delta = 0)
# fitted alone, with its time, iterations, whether it converged, whether its
# information was usable, and the estimates against the truth in standard
# errors.
#
#   Rscript inst/bench/stable-fit.R [OUTFILE] [--stable_fit_n=2000] [--stable_fit_seeds=3]
#     [--stable_fit_alpha=0.3,0.5,...] [--stable_fit_beta=-1,...] [--stable_fit_device=cpu]
#
# Prints one line per fit as it goes and a summary per law; OUTFILE (csv)
# keeps the rows.

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

stable_fit_grid <- function(n = bench_opt("stable_fit_n", 2000, 500),
                            seeds = bench_opt("stable_fit_seeds", 3, 1),
                            alpha = bench_opt("stable_fit_alpha", c(0.3, 0.5, 0.8, 1, 1.2, 1.5, 1.9, 1.99)),
                            beta = bench_opt("stable_fit_beta", c(-1, -0.9, 0, 0.5, 0.9, 1)),
                            device = bench_opt("stable_fit_device", "cpu")) {
  grid <- expand.grid(seed = seq_len(seeds), beta = beta, alpha = alpha)
  rows <- lapply(seq_len(nrow(grid)), function(i) {
    g <- grid[i, ]
    set.seed(1000 * g$seed + 17)
    y <- rstable(n, g$alpha, g$beta)
    warned <- character()
    t <- system.time(fit <- withCallingHandlers(stable_fit(y, device = device),
      warning = function(w) {
        warned <<- c(warned, class(w)[1])
        invokeRestart("muffleWarning")
      }))[["elapsed"]]
    cf <- coef(fit)
    se <- sqrt(pmax(diag(fit$vcov), 0))
    truth <- c(g$alpha, g$beta, 1, 0)
    row <- data.frame(alpha = g$alpha, beta = g$beta, seed = g$seed, n = n,
                      seconds = t, iterations = fit$iterations, converged = fit$converged,
                      information_ok = isTRUE(fit$information_ok),
                      boundary = paste(fit$boundary %||% character(), collapse = "+"),
                      warnings = paste(unique(warned), collapse = "+"),
                      alpha_hat = cf[["alpha"]], beta_hat = cf[["beta"]],
                      gamma_hat = cf[["gamma"]], delta_hat = cf[["delta"]],
                      max_z = max(abs(cf - truth) / se, na.rm = TRUE))
    message(sprintf("alpha %.2f beta %5.2f seed %d: %6.2f s, %3d it, conv %s, info %s, %s est (%.3f, %.3f, %.3f, %.3f), max |z| %.1f",
                    g$alpha, g$beta, g$seed, t, row$iterations, row$converged, row$information_ok,
                    row$boundary, cf[1], cf[2], cf[3], cf[4], row$max_z))
    row
  })
  do.call(rbind, rows)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

if (sys.nframe() == 0L) {
  out <- commandArgs(trailingOnly = TRUE)
  out <- out[!startsWith(out, "--")]
  res <- stable_fit_grid()
  if (length(out)) utils::write.csv(res, out[1], row.names = FALSE)
  cat(sprintf("\n%d fits: %d converged, %d with usable information; seconds median %.2f, max %.2f; iterations median %d, max %d\n",
              nrow(res), sum(res$converged), sum(res$information_ok), stats::median(res$seconds),
              max(res$seconds), as.integer(stats::median(res$iterations)), max(res$iterations)))
  print(stats::aggregate(cbind(seconds, iterations, converged) ~ alpha, res,
                         function(v) round(c(mean = mean(v), max = max(v)), 2)))
}
