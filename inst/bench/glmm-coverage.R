# Parameter recovery of the spatial GLMM fit (exact Laplace): `reps` data
# sets per family drawn from the model, each fitted with the smoothness
# held at its true value, and the share of the 95 % intervals of confint()
# that contain the true value, per parameter: Wald for the trend (observed
# information), and for sigma2 and range Wald on the log scale or, with
# --glc_method=profile, profiles of the Laplace likelihood. Model:
# n locations uniform in the unit square, eta = 0.5 + 0.4 x + f, x standard
# normal, f a Matern field (sigma2 0.5, range 0.15, smoothness 0.5);
# Poisson counts with mean exp(eta) and Bernoulli presences with
# probability plogis(eta).
#
#   Rscript inst/bench/glmm-coverage.R [--glc_reps=100] [--glc_n=300] [--glc_families=poisson,binomial]
#     [--glc_method=wald] [--glc_out=FILE.rds]

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

glc_truth <- c("(Intercept)" = 0.5, x = 0.4, sigma2 = 0.5, range = 0.15)

glc_data <- function(n, family, seed) {
  set.seed(seed)
  locs <- matrix(stats::runif(2 * n), ncol = 2)
  x <- stats::rnorm(n)
  f <- as.vector(gp_simulate(locs, glc_truth[["sigma2"]], glc_truth[["range"]], 0.5, device = "cpu"))
  eta <- glc_truth[["(Intercept)"]] + glc_truth[["x"]] * x + f
  y <- if (family == "poisson") stats::rpois(n, exp(eta)) else stats::rbinom(n, 1, stats::plogis(eta))
  data.frame(lon = locs[, 1], lat = locs[, 2], x = x, y = y)
}

# One replicate: whether each parameter's interval covers the truth, the
# estimates and the fit's seconds (NA where the fit failed or gave no
# interval: a Hessian that is not negative definite has no standard errors).
glc_replicate <- function(n, family, seed, method) {
  d <- glc_data(n, family, seed)
  t0 <- proc.time()[["elapsed"]]
  fit <- tryCatch(suppressWarnings(gp_fit(y ~ x, d, coords = ~ lon + lat, family = get(family, mode = "function")(),
                                          fixed = list(smoothness = 0.5), device = "cpu",
                                          control = list(trace = FALSE))),
                  error = function(e) NULL)
  seconds <- proc.time()[["elapsed"]] - t0
  if (is.null(fit)) return(c(stats::setNames(rep(NA, 8), c(paste0("cover.", names(glc_truth)), names(glc_truth))), seconds = seconds))
  ci <- rbind(confint(fit, c("(Intercept)", "x"), method = "wald"),
              suppressWarnings(confint(fit, c("sigma2", "range"), method = method)))
  cover <- ci[, 1] <= glc_truth & glc_truth <= ci[, 2]
  c(stats::setNames(as.numeric(cover), paste0("cover.", names(glc_truth))), stats::coef(fit)[names(glc_truth)], seconds = seconds)
}

glmm_coverage <- function(reps = bench_opt("glc_reps", 100, 5), n = bench_opt("glc_n", 300, 100),
                          families = bench_opt("glc_families", c("poisson", "binomial")),
                          method = bench_opt("glc_method", "wald")) {
  rows <- NULL
  for (family in families) {
    r <- t(vapply(seq_len(reps), function(k) glc_replicate(n, family, 1000 + k, method), numeric(9)))
    ok <- stats::complete.cases(r)
    for (p in names(glc_truth)) {
      est <- r[ok, p]
      rows <- rbind(rows, data.frame(family = family, parameter = p, interval = if (p %in% c("sigma2", "range")) method else "wald",
                                     truth = glc_truth[[p]], n = n, replicates = sum(ok),
                                     without_interval = sum(!ok), coverage_95 = mean(r[ok, paste0("cover.", p)]),
                                     mean_estimate = mean(est), median_estimate = stats::median(est),
                                     seconds_per_fit = stats::median(r[, "seconds"])))
    }
    message(sprintf("%s (%s): %d fits of n = %d, median %.2f s each; coverage %s", family, method, reps, n,
                    stats::median(r[, "seconds"]),
                    paste(sprintf("%s %.2f", names(glc_truth), colMeans(r[ok, paste0("cover.", names(glc_truth)), drop = FALSE])),
                          collapse = ", ")))
  }
  rownames(rows) <- NULL
  rows
}

if (sys.nframe() == 0L) {
  suppressMessages(library(gpustats))
  options(gpustats.threads = 1, cli.progress_show_after = Inf)
  out <- glmm_coverage()
  print(out)
  file <- bench_opt("glc_out", "")
  if (nzchar(file)) saveRDS(out, file)
}
