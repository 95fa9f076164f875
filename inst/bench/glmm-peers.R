# Spatial GLMMs beside the packages a user would otherwise fit them with, on
# the same data and machine in one run: a Poisson and a Bernoulli data set
# of n locations on the unit square (a covariate, an exponential field of
# variance 1 and range 0.1), fitted by gpustats (the exact Laplace
# approximation, and Vecchia-Laplace with m = 30), glmmTMB (the same model
# and Laplace approximation: exp(pos + 0 | g), an exponential covariance of
# free variance and range) and mgcv (gam() with a Gaussian-process smooth
# of the same exponential correlation at the true range, bs = "gp",
# m = c(2, 0.1), k = 200, REML; its smoothing parameter stands for the
# variance). glmmTMB predicts at new locations fitted along with weight 0
# (allow.new.levels gives them the population level). Reported: each fit's time, trend, variance and range, and at
# n0 new locations the predicted linear predictor's RMSE against the true
# one and its correlation with gpustats' exact predictions.
#
#   Rscript inst/bench/glmm-peers.R [--glpeer_n=2000] [--glpeer_new=500] [--glpeer_families=poisson,binomial]
#
# CPU only (the peers have no GPU path); glmmTMB and mgcv where installed.

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

glmm_peers_data <- function(n, n0, family, seed = 1) {
  set.seed(seed)
  locs <- matrix(runif(2 * (n + n0)), ncol = 2)
  field <- drop(gp_simulate(locs, 1, 0.1, 0.5, device = "cpu"))
  x <- rnorm(n + n0)
  eta <- -0.2 + 0.5 * x + field
  y <- if (family == "poisson") rpois(n + n0, exp(eta)) else rbinom(n + n0, 1, plogis(eta))
  d <- data.frame(lon = locs[, 1], lat = locs[, 2], x = x, y = y, eta = eta, g = factor(1))
  list(fit = d[seq_len(n), ], new = d[n + seq_len(n0), ])
}

glmm_peers_row <- function(package, what, family, n, seconds, coefs, pred, d, reference) {
  data.frame(package = package, method = what, family = family, n = n, seconds = seconds,
             intercept = coefs[["intercept"]], x = coefs[["x"]], sigma2 = coefs[["sigma2"]], range = coefs[["range"]],
             rmse_eta = sqrt(mean((pred - d$new$eta)^2)),
             cor_with_exact = if (is.null(reference)) 1 else stats::cor(pred, reference))
}

bench_glmm_peers <- function(n = bench_opt("glpeer_n", 2000, 500), n0 = bench_opt("glpeer_new", 500, 200),
                             families = bench_opt("glpeer_families", "poisson,binomial")) {
  rows <- list()
  for (family in strsplit(families, ",", fixed = TRUE)[[1]]) {
    d <- glmm_peers_data(n, n0, family)
    fam <- if (family == "poisson") stats::poisson() else stats::binomial()
    ours <- function(approx) {
      t <- system.time(fit <- gp_fit(y ~ x, d$fit, coords = ~ lon + lat, family = fam, cov = "exponential",
                                     approx = approx, m = 30, device = "cpu", control = list(trace = FALSE)))[["elapsed"]]
      pred <- predict(fit, d$new)
      list(t = t, pred = unname(pred), coefs = c(intercept = coef(fit)[[1]], x = coef(fit)[[2]],
                                                 sigma2 = fit$covariance[["sigma2"]], range = fit$covariance[["range"]]))
    }
    exact <- ours("exact")
    rows[[length(rows) + 1L]] <- glmm_peers_row("gpustats", "exact Laplace", family, n, exact$t, exact$coefs, exact$pred, d, NULL)
    vl <- ours("vecchia")
    rows[[length(rows) + 1L]] <- glmm_peers_row("gpustats", "Vecchia-Laplace m = 30", family, n, vl$t, vl$coefs, vl$pred, d,
                                                exact$pred)
    if (requireNamespace("glmmTMB", quietly = TRUE)) {
      # the new locations ride along with weight 0 (no term in the
      # likelihood): their random effects' modes are the kriged field
      both <- rbind(d$fit, transform(d$new, y = 0))
      both$pos <- glmmTMB::numFactor(both$lon, both$lat)
      w <- rep(c(1, 0), c(n, n0))
      t <- system.time(tmb <- glmmTMB::glmmTMB(y ~ x + exp(pos + 0 | g), data = both, family = fam, weights = w))[["elapsed"]]
      pred <- unname(stats::predict(tmb, type = "link"))[n + seq_len(n0)]
      th <- tmb$fit$par[names(tmb$fit$par) == "theta"]
      rows[[length(rows) + 1L]] <- glmm_peers_row("glmmTMB", "Laplace, exp()", family, n, t,
                                                  c(intercept = glmmTMB::fixef(tmb)$cond[[1]], x = glmmTMB::fixef(tmb)$cond[[2]],
                                                    sigma2 = exp(2 * th[[1]]), range = exp(th[[2]])), pred, d, exact$pred)
    }
    if (requireNamespace("mgcv", quietly = TRUE)) {
      t <- system.time(gam <- mgcv::gam(y ~ x + s(lon, lat, bs = "gp", m = c(2, 0.1), k = 200), data = d$fit, family = fam,
                                        method = "REML"))[["elapsed"]]
      pred <- unname(stats::predict(gam, d$new, type = "link"))
      rows[[length(rows) + 1L]] <- glmm_peers_row("mgcv", "gam, s(bs = \"gp\"), range held", family, n, t,
                                                  c(intercept = stats::coef(gam)[[1]], x = stats::coef(gam)[[2]], sigma2 = NA,
                                                    range = 0.1), pred, d, exact$pred)
    }
    # each family's rows as soon as they are in, so that a run cut short keeps them
    print(format(do.call(rbind, rows[vapply(rows, function(r) r$family == family, TRUE)]), digits = 3), row.names = FALSE)
  }
  do.call(rbind, rows)
}

if (sys.nframe() == 0L) invisible(bench_glmm_peers())
