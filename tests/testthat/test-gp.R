# Gaussian-process likelihood, simulation, fitting and kriging on the CPU path.

# The zero-mean ML fit without a nugget that gp_loglik's likelihood is
# compared with.
gp_fit0 <- function(y, locs, nugget = FALSE, ...) {
  gp_fit(y, locs, X = matrix(0, length(y), 0), method = "ml", nugget = nugget, ...)
}

dense_loglik <- function(y, locs, sigma2, range, smoothness, nugget) {
  S <- matern_cov(locs, sigma2 = sigma2, range = range, smoothness = smoothness, nugget = nugget, device = "cpu")
  R <- chol(S)
  -length(y) / 2 * log(2 * pi) - sum(log(diag(R))) - 0.5 * sum(backsolve(R, y, transpose = TRUE)^2)
}

test_that("gp_loglik equals a dense base-R computation to 1e-10 at n = 2000", {
  set.seed(1)
  locs <- matrix(runif(4000), ncol = 2)
  y <- rnorm(2000)
  for (p in list(c(1, 0.1, 0.5, 0), c(2.5, 0.05, 1.7, 0.1))) {
    ll <- gp_loglik(y, locs, p[1], p[2], p[3], p[4], device = "cpu")
    expect_equal(as.numeric(ll), dense_loglik(y, locs, p[1], p[2], p[3], p[4]), tolerance = 1e-10)
    S <- matern_cov(locs, sigma2 = p[1], range = p[2], smoothness = p[3], nugget = p[4], device = "cpu")
    expect_equal(attr(ll, "logdet"), as.numeric(determinant(S)$modulus), tolerance = 1e-10)
    expect_equal(attr(ll, "quadform"), sum(y * solve(S, y)), tolerance = 1e-8)
  }
  Y <- cbind(y, -y, 2 * y)
  expect_length(gp_loglik(Y, locs, 1, 0.1, 0.5, device = "cpu"), 3)
})

test_that("gp_simulate is reproducible and has the right covariance", {
  locs <- matrix(runif(60), ncol = 2)
  set.seed(3)
  a <- gp_simulate(locs, 2, 0.3, 1.5, nsim = 3, device = "cpu")
  set.seed(3)
  b <- gp_simulate(locs, 2, 0.3, 1.5, nsim = 3, device = "cpu")
  expect_identical(a, b)
  expect_identical(dim(a), c(30L, 3L))
  set.seed(3)
  z <- matrix(rnorm(90), 30)
  L <- t(chol(matern_cov(locs, sigma2 = 2, range = 0.3, smoothness = 1.5, device = "cpu")))
  expect_equal(a, L %*% z, tolerance = 1e-12, ignore_attr = TRUE)
  expect_length(gp_simulate(locs, 1, 0.3, 1.5, device = "cpu"), 30)
})

test_that("the tile Cholesky path gives the dense likelihood, draws, fits and kriging", {
  set.seed(4)
  locs <- matrix(runif(3000), ncol = 2)
  y <- rnorm(1500)
  dense <- gp_loglik(y, locs, 1.5, 0.08, 1.2, 0.05, device = "cpu")
  old <- options(gpustats.gp_tiles = TRUE)
  on.exit(options(old))
  tiled <- gp_loglik(y, locs, 1.5, 0.08, 1.2, 0.05, device = "cpu")
  expect_equal(as.numeric(tiled), as.numeric(dense), tolerance = 1e-10)
  expect_equal(attributes(tiled), attributes(dense), tolerance = 1e-10)
  set.seed(5)
  a <- gp_simulate(locs, 2, 0.3, 1.5, nsim = 2, device = "cpu")
  set.seed(5)
  z <- matrix(rnorm(3000), 1500)
  L <- t(chol(matern_cov(locs, sigma2 = 2, range = 0.3, smoothness = 1.5, device = "cpu")))
  expect_equal(a, L %*% z, tolerance = 1e-11, ignore_attr = TRUE)
  fit <- gp_fit0(y[1:400], locs[1:400, ], fixed = list(smoothness = 0.5), control = list(trace = FALSE),
                device = "cpu")
  expect_match(fit$backend, "tile Cholesky")
  expect_output(print(fit), "cpu, tile Cholesky")
  options(old)
  ref <- gp_fit0(y[1:400], locs[1:400, ], fixed = list(smoothness = 0.5), control = list(trace = FALSE),
                device = "cpu")
  expect_identical(ref$backend, "cpu")
  expect_equal(coef(fit), coef(ref), tolerance = 1e-6)
  new <- matrix(runif(40), ncol = 2)
  kriged <- predict(ref, new, se.fit = TRUE, device = "cpu")
  options(gpustats.gp_tiles = TRUE)
  expect_equal(predict(ref, new, se.fit = TRUE, device = "cpu"), kriged, tolerance = 1e-9)
})

test_that("mixed-precision likelihoods stay within their first-order bound and keep the caller's order", {
  case <- mixed_loglik_case(1500, seed = 6)
  locs <- case$locs
  y <- case$y
  exact <- case$exact
  n <- nrow(locs)
  for (acc in c(1e-4, 1e-7)) {
    mixed <- case$mixed(acc, "cpu")
    expect_lte(abs(mixed - exact), case$bound(acc))
    expect_false(mixed == exact) # low-precision tiles were used
  }
  # all tiles FP64: the likelihood of the Z-ordered covariance, the same to rounding
  full <- gp_loglik(y, locs, 1, 0.03, 0.5, precision = "mixed", accuracy = 1e-15, device = "cpu")
  expect_equal(as.numeric(full), as.numeric(exact), tolerance = 1e-10)
  expect_equal(attributes(full), attributes(exact), tolerance = 1e-10)
  # draws: L z for the Z-ordered covariance, returned in the order of locs
  set.seed(7)
  a <- gp_simulate(locs, 1, 0.03, 0.5, nsim = 2, precision = "mixed", accuracy = 1e-15, device = "cpu")
  set.seed(7)
  z <- matrix(rnorm(2 * n), n)
  o <- morton_order(locs)
  S <- matern_cov(locs[o, ], range = 0.03, smoothness = 0.5, device = "cpu")
  expected <- matrix(0, n, 2)
  expected[o, ] <- t(chol(S)) %*% z[o, ] # the rows of z go in permuted like any input
  expect_equal(a, expected, tolerance = 1e-11, ignore_attr = TRUE)
  # an ill-conditioned covariance (long range, smooth): the accuracy rule alone
  # leaves tiles in FP32 whose rounding is near the smallest eigenvalue (the
  # likelihood was off by 0.01 to 0.1 at 1e-5); the pivot test promotes them
  near <- locs[1:800, ]
  yn <- y[1:800]
  smooth <- gp_loglik(yn, near, 1, 0.14, 1, precision = "mixed", accuracy = 1e-5, device = "cpu")
  expect_lte(abs(smooth - gp_loglik(yn, near, 1, 0.14, 1, device = "cpu")), 1e-6)
  # the promotions carry over to the next factorization of the same object,
  # as in a fit: the first needs two runs, the next ones, nearby, one
  gp <- gpustats:::gp_open(near, "euclidean", "cpu", NULL, accuracy = 1e-5)
  on.exit(gpustats:::gp_close(gp), add = TRUE)
  attempts <- function() .Call(gpustats:::gs_r_gp_attempts, gp$ptr)
  gpustats:::gp_factor(gp, c(sigma2 = 1, range = 0.14, smoothness = 1, nugget = 0), near, NULL)
  expect_identical(attempts(), 2L)
  for (range in c(0.14, 0.15, 0.13)) {
    logdet <- gpustats:::gp_factor(gp, c(sigma2 = 1, range = range, smoothness = 1, nugget = 0), near, NULL)
    expect_identical(attempts(), 1L)
    exact <- 2 * sum(log(diag(chol(matern_cov(near, range = range, smoothness = 1, device = "cpu")))))
    expect_lte(abs(logdet - exact), 1e-6)
  }
  # bad precision arguments
  expect_error(gp_loglik(y, locs, 1, 0.03, 0.5, precision = "mixed", accuracy = 0), class = "gpustats_error_argument")
  expect_error(gp_loglik(y, locs, 1, 0.03, 0.5, precision = "mixed", accuracy = 0.5), class = "gpustats_error_argument")
  expect_error(gp_simulate(locs, 1, 0.03, 0.5, precision = "single"), "must be one of", class = "gpustats_error_argument")
})

test_that("gp_fit in mixed precision recovers the FP64 fit, and predicts and simulates in its precision", {
  set.seed(8)
  locs <- matrix(runif(1200), ncol = 2)
  y <- gp_simulate(locs, 1, 0.05, 0.5, device = "cpu")
  quiet <- list(trace = FALSE)
  ref <- gp_fit0(y, locs, fixed = list(smoothness = 0.5), device = "cpu", control = quiet)
  fit <- gp_fit0(y, locs, fixed = list(smoothness = 0.5), precision = "mixed", accuracy = 1e-5, device = "cpu",
                control = quiet)
  expect_match(fit$backend, "tile Cholesky in mixed precision \\(accuracy 1e-05\\)")
  expect_identical(fit$precision, "mixed")
  se <- sqrt(diag(vcov(ref)))
  expect_lte(max(abs(coef(fit)[names(se)] - coef(ref)[names(se)]) / se), 0.05)
  new <- matrix(runif(20), ncol = 2)
  expect_equal(predict(fit, new, se.fit = TRUE, device = "cpu"), predict(ref, new, se.fit = TRUE, device = "cpu"),
               tolerance = 1e-3)
  expect_identical(dim(simulate(fit, nsim = 2, seed = 1)), c(600L, 2L))
  expect_error(gp_fit(y, locs, precision = "single"), "must be one of", class = "gpustats_error_argument")
  expect_error(gp_fit(y, locs, precision = "mixed", accuracy = 2), class = "gpustats_error_argument")
})

test_that("gp_fit finds the maximum and recovers simulated parameters", {
  set.seed(10)
  locs <- matrix(runif(1000), ncol = 2)
  y <- gp_simulate(locs, sigma2 = 1, range = 0.1, smoothness = 1, device = "cpu")
  fit <- gp_fit0(y, locs, device = "cpu", control = list(trace = FALSE))
  expect_s3_class(fit, "gp_fit")
  expect_identical(fit$convergence, 0L)
  cf <- coef(fit)
  se <- sqrt(diag(vcov(fit)))
  expect_true(all(abs(cf[c("sigma2", "range", "smoothness")] - c(1, 0.1, 1)) < 4 * se))
  # at least as high as L-BFGS-B on the full likelihood from the same start
  opt <- stats::optim(log(c(var(y), 0.1, 1)), function(t) {
    tryCatch(-gp_loglik(y, locs, exp(t[1]), exp(t[2]), exp(t[3]), device = "cpu"),
             gpustats_error_not_pd = function(e) 1e10)
  }, method = "L-BFGS-B", lower = log(c(1e-3, 1e-3, 0.05)), upper = log(c(100, 10, 5)))
  expect_gte(fit$loglik, -opt$value - 1e-6)
  expect_equal(fit$loglik, as.numeric(gp_loglik(y, locs, cf[["sigma2"]], cf[["range"]], cf[["smoothness"]], device = "cpu")),
               tolerance = 1e-10)
  expect_s3_class(logLik(fit), "logLik")
  expect_equal(AIC(fit), -2 * fit$loglik + 6)
  expect_identical(nobs(fit), 500L)
  expect_output(print(fit), "log-likelihood")
  expect_output(print(summary(fit)), "Std. Error")
  # fixed parameters and a nugget
  fit2 <- gp_fit0(y, locs, fixed = list(smoothness = 1), nugget = TRUE, device = "cpu", control = list(trace = FALSE))
  expect_identical(coef(fit2)[["smoothness"]], 1)
  expect_setequal(fit2$estimated, c("sigma2", "range", "nugget"))
  expect_gte(coef(fit2)[["nugget"]], 0)
  sims <- simulate(fit, nsim = 2, seed = 1)
  expect_identical(dim(sims), c(500L, 2L))
})

test_that("predict is simple kriging, to 1e-10", {
  set.seed(4)
  locs <- matrix(runif(600), ncol = 2)
  y <- gp_simulate(locs, 1, 0.2, 0.9, nugget = 0.05, device = "cpu")
  fit <- gp_fit0(y, locs, nugget = TRUE, device = "cpu", control = list(trace = FALSE, hessian = FALSE))
  new <- matrix(runif(40), ncol = 2)
  p <- coef(fit)
  S <- matern_cov(locs, sigma2 = p[["sigma2"]], range = p[["range"]], smoothness = p[["smoothness"]],
                  nugget = p[["nugget"]], device = "cpu")
  C <- matern_cov(new, locs, sigma2 = p[["sigma2"]], range = p[["range"]], smoothness = p[["smoothness"]], device = "cpu")
  mean_dense <- drop(C %*% solve(S, y))
  se_dense <- sqrt(p[["sigma2"]] - rowSums(C * t(solve(S, t(C)))))
  pr <- predict(fit, new, se.fit = TRUE, device = "cpu")
  expect_equal(pr$fit, mean_dense, tolerance = 1e-10)
  expect_equal(pr$se.fit, se_dense, tolerance = 1e-8)
  expect_equal(predict(fit, new, device = "cpu"), pr$fit)
  # at an observed location without nugget the prediction interpolates
  fit0 <- gp_fit0(y, locs, device = "cpu", control = list(trace = FALSE, hessian = FALSE))
  expect_equal(predict(fit0, locs[1:3, ], device = "cpu"), y[1:3], tolerance = 1e-6)
})

test_that("bad input gets clear errors", {
  locs <- matrix(runif(20), ncol = 2)
  y <- rnorm(10)
  expect_error(gp_loglik(y[-1], locs, 1, 0.1, 1), class = "gpustats_error_argument")
  expect_error(gp_loglik(replace(y, 2, NA), locs, 1, 0.1, 1), class = "gpustats_error_argument")
  expect_error(gp_loglik(y, replace(locs, 2, NA), 1, 0.1, 1), class = "gpustats_error_argument")
  expect_error(gp_loglik(y, locs, -1, 0.1, 1), class = "gpustats_error_argument")
  expect_error(gp_loglik(y, locs, 1, 0.1, 0), class = "gpustats_error_argument")
  expect_error(gp_loglik("a", locs, 1, 0.1, 1), class = "gpustats_error_argument")
  dup <- rbind(locs, locs[1, ])
  expect_error(gp_loglik(c(y, 0), dup, 1, 0.1, 1, device = "cpu"), "duplicated", class = "gpustats_error_not_pd")
  expect_true(is.finite(gp_loglik(c(y, 0), dup, 1, 0.1, 1, nugget = 0.1, device = "cpu")))
  expect_error(gp_simulate(locs, 1, 0.1, 1, nsim = 0), class = "gpustats_error_argument")
  expect_error(gp_fit(y, locs, fixed = list(range = -1)), class = "gpustats_error_argument")
  expect_error(gp_fit(y, locs, start = list(rnage = 1)), class = "gpustats_error_argument")
  expect_error(gp_fit(y, locs, lower = list(range = 2), upper = list(range = 1)), class = "gpustats_error_argument")
  big <- matrix(runif(6e6), ncol = 2) # n = 3,000,000: 36 TB in tiles
  expect_error(gp_loglik(rnorm(3e6), big, 1, 0.1, 1, device = "cpu"), "need [0-9.]+ GB",
               class = "gpustats_error_memory")
})

test_that("choices match regardless of case, and by a prefix of one choice only", {
  choose <- function(x, choices) gpustats:::match_choice(x, choices, "arg", environment())
  expect_identical(choose("REML", c("reml", "ml")), "reml")
  expect_identical(choose("Ml", c("reml", "ml")), "ml")
  expect_identical(choose("Great", c("euclidean", "great_circle")), "great_circle")
  expect_identical(choose(c("reml", "ml"), c("reml", "ml")), "reml") # the default vector
  # a choice equal to the value wins over the longer ones it begins
  expect_identical(choose("MAXMIN", gpustats:::vecchia_orderings), "maxmin")
  expect_error(choose("Maxmin_", gpustats:::vecchia_orderings), "\"Maxmin_\" begins \"maxmin_exact\" and \"maxmin_approx\"",
               class = "gpustats_error_argument")
  for (bad in list("remlx", "", NA_character_, c("reml", "ml", "x"), 1)) {
    expect_error(choose(bad, c("reml", "ml")), "must be one of", class = "gpustats_error_argument")
  }
  # through gp_fit, as a user writes them
  set.seed(3)
  locs <- matrix(runif(60), ncol = 2)
  y <- rnorm(30)
  fit <- function(...) {
    gp_fit(y, locs, fixed = list(range = 0.2, smoothness = 0.5), control = list(trace = FALSE), device = "cpu", ...)
  }
  expect_identical(fit(method = "REML")$method, "reml")
  ml <- fit(method = "ML", precision = "Double", distance = "Euclidean")
  expect_identical(ml$loglik, fit(method = "ml")$loglik)
})

test_that("fixed parameters, great-circle distances and method arguments behave", {
  set.seed(12)
  locs <- matrix(runif(400), ncol = 2)
  y <- gp_simulate(locs, 2, 0.15, 0.7, device = "cpu")
  f <- gp_fit0(y, locs, fixed = list(sigma2 = 2, smoothness = 0.7), device = "cpu", control = list(trace = FALSE))
  expect_identical(f$estimated, "range")
  expect_identical(coef(f)[["sigma2"]], 2)
  expect_identical(dim(vcov(f)), c(1L, 1L))
  # the profile never beats the full likelihood at its own estimate
  expect_equal(f$loglik, as.numeric(gp_loglik(y, locs, 2, coef(f)[["range"]], 0.7, device = "cpu")), tolerance = 1e-10)
  expect_error(predict(f, matrix(runif(9), ncol = 3)), class = "gpustats_error_argument")
  expect_identical(simulate(f, nsim = 2, seed = 5), simulate(f, nsim = 2, seed = 5))
  # great-circle distances in km
  ll <- cbind(runif(150, -10, 10), runif(150, 40, 50))
  z <- gp_simulate(ll, 1, 300, 0.5, distance = "great_circle", device = "cpu")
  lg <- gp_loglik(z, ll, 1, 300, 0.5, distance = "great_circle", device = "cpu")
  S <- matern_cov(ll, range = 300, smoothness = 0.5, distance = "great_circle", device = "cpu")
  R <- chol(S)
  expect_equal(as.numeric(lg), -75 * log(2 * pi) - sum(log(diag(R))) - 0.5 * sum(backsolve(R, z, transpose = TRUE)^2),
               tolerance = 1e-10)
  fg <- gp_fit0(z, ll, fixed = list(smoothness = 0.5), distance = "great_circle", device = "cpu",
               control = list(trace = FALSE, hessian = FALSE))
  expect_gt(coef(fg)[["range"]], 10)
})

# ---- hardening: singular covariances, fits that stop early, degenerate input ----

test_that("a numerically singular covariance is an error in both precisions, naming a minor", {
  # 30 points, range 10, smoothness 3: the smallest pivot is 7e-15 times the
  # largest, and the log-likelihood was -6.9e14 in FP64 and -6.5e14 in mixed
  # precision, rounding noise either way
  set.seed(1)
  locs <- matrix(runif(60), ncol = 2)
  y <- rnorm(30)
  for (precision in c("double", "mixed")) {
    expect_error(gp_loglik(y, locs, 1, 10, 3, precision = precision, device = "cpu"),
                 "numerically\\s+singular.*leading\\s+minor\\s+of\\s+order\\s+[0-9]+", class = "gpustats_error_not_pd")
    expect_error(gp_simulate(locs, 1, 10, 3, precision = precision, device = "cpu"), class = "gpustats_error_not_pd")
    # a nugget makes it positive definite
    expect_true(is.finite(gp_loglik(y, locs, 1, 10, 3, nugget = 1e-6, precision = precision, device = "cpu")))
  }
  # a covariance that is not positive definite at all: the same class and wording in both
  dup <- rbind(locs, locs[3, ])
  for (precision in c("double", "mixed")) {
    expect_error(gp_loglik(c(y, 1), dup, 1, 0.1, 1, precision = precision, device = "cpu"),
                 "leading\\s+minor\\s+of\\s+order\\s+[0-9]+\\s+is\\s+not\\s+positive|numerically\\s+singular", class = "gpustats_error_not_pd")
  }
  expect_error(gp_loglik(c(y, 1), dup, 1, 0.1, 1, device = "cpu"), "duplicated\\s+rows.*nugget\\s+=\\s+TRUE")
  # and the tiled FP64 path applies the same rule
  withr::local_options(gpustats.gp_tiles = TRUE)
  expect_error(gp_loglik(y, locs, 1, 10, 3, device = "cpu"), "numerically\\s+singular", class = "gpustats_error_not_pd")
})

test_that("gp_fit warns when the search does not converge and says so in print and summary", {
  set.seed(1)
  locs <- matrix(runif(60), ncol = 2)
  # constant data: the search ran into the singular region (it failed with
  # "covariance parameters must be finite", or stopped without a word)
  expect_error(gp_fit(rep(2, 30), locs, control = list(trace = FALSE)), "constant", class = "gpustats_error_argument")
  # one iteration is not enough either
  y <- gp_simulate(locs, 1, 0.2, 1, device = "cpu")
  expect_warning(fit1 <- gp_fit(y, locs, control = list(trace = FALSE, iter.max = 1, hessian = FALSE)),
                 class = "gpustats_warning_not_converged")
  expect_false(fit1$converged)
  expect_output(print(fit1), "did not converge")
  expect_output(print(summary(fit1)), "did not converge")
  fit2 <- expect_no_warning(gp_fit(y, locs, fixed = list(smoothness = 1), control = list(trace = FALSE)))
  expect_true(fit2$converged)
  expect_no_match(capture.output(print(fit2), print(summary(fit2))), "did not converge")
})

test_that("gp_fit refuses data it cannot learn from and checks its control, bounds and starts", {
  set.seed(2)
  locs <- matrix(runif(40), ncol = 2)
  y <- rnorm(20)
  quiet <- list(trace = FALSE)
  for (n in 1:3) {
    expect_error(gp_fit0(y[1:n], locs[1:n, , drop = FALSE], control = quiet), "at\\s+least\\s+4,\\s+not",
                 class = "gpustats_error_argument")
  }
  expect_error(gp_fit0(y[1:4], locs[1:4, ], nugget = TRUE, control = quiet), "at\\s+least\\s+5",
               class = "gpustats_error_argument")
  # the trend's coefficients count too: a constant mean and a nugget make 5
  expect_error(gp_fit(y[1:5], locs[1:5, ], control = quiet), "at\\s+least\\s+6", class = "gpustats_error_argument")
  # duplicated locations without a nugget (it blamed "covariance parameters must be finite")
  dup <- rbind(locs, locs[1:2, ])
  expect_error(gp_fit(c(y, 0, 1), dup, nugget = FALSE, control = quiet), "duplicated.*nugget\\s+=\\s+TRUE",
               class = "gpustats_error_argument")
  for (bad in list(list(iter.max = NA), list(iter.max = 0), list(iter.max = -5), list(iter.max = 2.5),
                   list(iter.max = "10"), list(rel.tol = 0), list(rel.tol = NaN), list(rel.tol = 2),
                   list(trace = NA), list(hessian = "yes"), list(itermax = 10), list(1), "trace")) {
    expect_error(gp_fit(y, locs, control = bad), class = "gpustats_error_argument")
  }
  expect_error(gp_fit(y, locs, control = list(itermax = 10)), "unknown\\s+element.*itermax")
  # bounds and starts outside the parameter space (lower range -1 gave
  # "missing value where TRUE/FALSE needed")
  expect_error(gp_fit(y, locs, lower = list(range = -1), control = quiet), "lower\\$range",
               class = "gpustats_error_argument")
  for (bad in list(list(lower = list(smoothness = 0)), list(upper = list(range = Inf)),
                   list(upper = list(nugget = -1)), list(lower = list(range = NaN)), list(lower = list(sigma2 = 1)),
                   list(start = list(range = 0)), list(start = list(smoothness = -Inf)),
                   list(upper = list(smoothness = NA)), list(start = list(range = "a")))) {
    expect_error(do.call(gp_fit, c(list(y, locs, control = quiet), bad)), class = "gpustats_error_argument")
  }
})

test_that("predict at no locations returns empty results; huge simulations are refused with their size", {
  set.seed(3)
  locs <- matrix(runif(40), ncol = 2)
  y <- gp_simulate(locs, 1, 0.2, 1, device = "cpu")
  fit <- gp_fit(y, locs, fixed = list(smoothness = 1), control = list(trace = FALSE, hessian = FALSE))
  none <- matrix(numeric(0), 0, 2)
  expect_identical(predict(fit, none), numeric(0))
  expect_identical(predict(fit, none, se.fit = TRUE), list(fit = numeric(0), se.fit = numeric(0)))
  expect_error(predict(fit, matrix(numeric(0), 0, 3)), class = "gpustats_error_argument")
  expect_error(gp_simulate(locs, 1, 0.2, 1, nsim = .Machine$integer.max), "need\\s+[0-9.]+\\s+[GT]B",
               class = "gpustats_error_memory")
})

test_that("the dense CPU factorization polls the interrupt callback between blocks and stops cleanly", {
  set.seed(4)
  locs <- matrix(runif(1200), ncol = 2) # n = 600: three blocks of columns
  gp <- gpustats:::gp_open(locs, "euclidean", "cpu", NULL)
  on.exit(gpustats:::gp_close(gp))
  expect_false(gp$tiled)
  params <- c(sigma2 = 1, range = 0.05, smoothness = 0.8, nugget = 0)
  model <- gpustats:::cov_model(params, "euclidean")
  seen <- numeric(0)
  logdet <- .Call(gpustats:::gs_r_gp_factor, gp$ptr, model, function(done) seen <<- c(seen, done))
  expect_gte(length(seen), 4L) # after the matrix is built and after each block
  expect_identical(seen[1], 0)
  expect_identical(seen[length(seen)], 1)
  expect_true(all(diff(seen) > 0))
  # a real user interrupt once a third is done stops it, and the object works after
  skip_if_signals_late()
  interrupt_at_third <- function(done) if (done > 0.3) tools::pskill(Sys.getpid(), tools::SIGINT)
  expect_identical(interrupt_outcome(gpustats:::gs_call(.Call(gpustats:::gs_r_gp_factor, gp$ptr, model,
                                                              interrupt_at_third), environment())), "interrupt")
  expect_error(gpustats:::gp_apply(gp, "forward", rnorm(600), NULL), "not\\s+been\\s+factored")
  expect_identical(gpustats:::gp_factor(gp, params, locs, NULL), logdet)
  S <- matern_cov(locs, range = 0.05, smoothness = 0.8, device = "cpu")
  expect_equal(logdet, 2 * sum(log(diag(chol(S)))), tolerance = 1e-12)
})

test_that("gp_loglik, gp_simulate and the standard errors of gp_fit report progress", {
  labels <- new.env()
  labels$seen <- character(0)
  trace("gs_progress_bar", where = asNamespace("gpustats"), print = FALSE,
        exit = bquote(if (!is.null(returnValue())) assign("seen", c(get("seen", .(labels)), label), envir = .(labels))))
  on.exit(untrace("gs_progress_bar", where = asNamespace("gpustats")))
  set.seed(5)
  locs <- matrix(runif(2000), ncol = 2) # n = 1000: a bar, shown if it lasts two seconds
  y <- rnorm(1000)
  gp_loglik(y, locs, 1, 0.05, 0.8, device = "cpu")
  gp_simulate(locs, 1, 0.05, 0.8, device = "cpu")
  suppressWarnings(gp_fit(y, locs, fixed = list(smoothness = 0.5, range = 0.05),
                          control = list(trace = TRUE, iter.max = 1)))
  expect_setequal(labels$seen, c("gp_loglik: likelihood", "gp_simulate: drawing", "gp_fit: standard errors"))
  labels$seen <- character(0)
  gp_loglik(y[1:50], locs[1:50, ], 1, 0.05, 0.8, device = "cpu") # too small for one
  expect_length(labels$seen, 0L)
})

test_that("the progress bars of fits, profiles and predictions name what the user asked for", {
  labels <- new.env()
  trace("gs_progress_bar", where = asNamespace("gpustats"), print = FALSE,
        exit = bquote(if (!is.null(returnValue())) assign("seen", c(get("seen", .(labels)), label), envir = .(labels))))
  on.exit(untrace("gs_progress_bar", where = asNamespace("gpustats")))
  seen <- function(expr) {
    labels$seen <- character(0)
    expr
    unique(labels$seen)
  }
  set.seed(7)
  locs <- matrix(runif(2200), ncol = 2) # n = 1100: bars for the Vecchia steps at m = 30
  y <- 1 + gp_simulate(locs, 1, 0.1, 0.5, nugget = 0.1, device = "cpu")
  expect_setequal(seen(gp_fit(y, locs, cov = "exponential", device = "cpu")),
                  c("gp_fit: starting values", "gp_fit: standard errors"))
  expect_setequal(seen(v <- gp_fit(y, locs, cov = "exponential", approx = "vecchia", control = list(trace = FALSE),
                                   device = "cpu")),
                  c("gp_fit: conditioning sets", "gp_fit: likelihood"))
  # the profiles' refits show no bars of their own: confint() shows one for all
  expect_length(seen(confint(v, "range")), 0L)
  expect_setequal(seen(predict(v, locs + 0.001, device = "cpu")), c("predict: conditioning sets", "predict: kriging"))
  expect_setequal(seen(fitted(v)), c("fitted: conditioning sets", "fitted: kriging"))
  expect_setequal(seen(simulate(v, 1, newdata = locs + 0.001, device = "cpu")),
                  c("simulate: conditioning sets", "simulate: drawing"))
  expect_identical(seen(simulate(v, 1, device = "cpu")), "simulate: drawing")
  # the exact fit's predictions and draws: none of the internal steps' names
  # (gp_simulate's, matern_cov's) show through
  f <- gp_fit(y, locs, cov = "exponential", fixed = list(sigma2 = 1, range = 0.1, nugget = 0.1),
              control = list(trace = FALSE, hessian = FALSE), device = "cpu")
  expect_setequal(seen(predict(f, locs + 0.001, device = "cpu")), c("predict: factoring the covariance", "predict: kriging"))
  expect_setequal(seen(fitted(f)), c("fitted: factoring the covariance", "fitted: kriging"))
  expect_setequal(seen(simulate(f, 1, newdata = locs + 0.001, device = "cpu")),
                  c("simulate: drawing", "simulate: factoring the covariance", "simulate: kriging"))
  expect_identical(seen(simulate(f, 1, device = "cpu")), "simulate: drawing")
  # the Vecchia likelihood and draws, by the function called, with a structure kept or not
  expect_setequal(seen(gp_loglik(y, locs, 1, 0.1, 0.5, 0.1, approx = "vecchia", device = "cpu")),
                  c("gp_loglik: conditioning sets", "gp_loglik: likelihood"))
  expect_setequal(seen(nb <- vecchia_neighbors(locs, group = TRUE)), "vecchia_neighbors: conditioning sets")
  expect_identical(seen(vecchia_loglik(y, nb, 1, 0.1, 0.5, 0.1, device = "cpu")), "vecchia_loglik: likelihood")
  expect_setequal(seen(vecchia_loglik(y, locs, 1, 0.1, 0.5, 0.1, group = TRUE, device = "cpu")),
                  c("vecchia_loglik: conditioning sets", "vecchia_loglik: likelihood"))
  expect_identical(seen(gp_simulate(locs, 1, 0.1, 0.5, approx = "vecchia", device = "cpu")), "gp_simulate: drawing")
})

test_that("mixed-precision results do not depend on the number of threads", {
  # the default tile size came from the thread count: 1 and 2 threads gave
  # log-likelihoods 4.9e-8 apart
  set.seed(1)
  locs <- matrix(runif(1200), ncol = 2)
  y <- rnorm(600)
  run <- function(threads) {
    withr::local_options(gpustats.threads = threads)
    list(gp_loglik(y, locs, 1, 0.05, 0.8, precision = "mixed", accuracy = 1e-6, device = "cpu"),
         tile_chol(matern_spec(locs, range = 0.05, smoothness = 0.8), device = "cpu")$logdet)
  }
  expect_identical(run(1L), run(2L))
})

test_that("bad input to the Gaussian-process functions gets clear errors", {
  set.seed(6)
  locs <- matrix(runif(20), ncol = 2)
  y <- rnorm(10)
  fit <- gp_fit(gp_simulate(locs, 1, 0.3, 1, device = "cpu"), locs, fixed = list(smoothness = 1),
                control = list(trace = FALSE, hessian = FALSE))
  values <- list(NA, NaN, Inf, -Inf, "a", NULL, numeric(0), c(1, 2), list(1), factor("a"), 1i, TRUE)
  params <- c("sigma2", "range", "smoothness", "nugget")
  for (i in seq_along(values)) { # each bad value for one parameter of each function, in turn
    args <- list(y, locs, sigma2 = 1, range = 0.2, smoothness = 1, nugget = 0)
    args[params[i %% 4 + 1]] <- values[i]
    expect_error(do.call(gp_loglik, args), class = "gpustats_error_argument")
    args <- list(locs, sigma2 = 1, range = 0.2, smoothness = 1, nugget = 0)
    args[params[(i + 2) %% 4 + 1]] <- values[i]
    expect_error(do.call(gp_simulate, args), class = "gpustats_error_argument")
    expect_error(gp_simulate(locs, 1, 0.2, 1, nsim = values[[i]]), class = "gpustats_error_argument")
  }
  bad_y <- list(replace(y, 1, NA), replace(y, 1, NaN), replace(y, 1, Inf), replace(y, 1, -Inf), as.character(y),
                NULL, numeric(0), y[-1], list(1), factor(y), y + 0i, data.frame(y = y))
  for (v in bad_y) {
    expect_error(gp_loglik(v, locs, 1, 0.2, 1), class = "gpustats_error_argument")
    # gp_fit drops a missing response with a message
    if (length(v) == 10L && is.numeric(v) && is.na(v[1])) next
    expect_error(gp_fit(v, locs, control = list(trace = FALSE)), class = "gpustats_error_argument")
  }
  bad_locs <- list(replace(locs, 1, NA), replace(locs, 1, NaN), replace(locs, 1, Inf), replace(locs, 1, -Inf),
                   matrix("a", 10, 2), NULL, matrix(numeric(0), 0, 2), locs[-1, ], list(1), locs + 0i)
  for (v in bad_locs) {
    expect_error(gp_loglik(y, v, 1, 0.2, 1), class = "gpustats_error_argument")
    expect_error(gp_fit(y, v, control = list(trace = FALSE)), class = "gpustats_error_argument")
    if (identical(v, locs[-1, ])) next # valid alone
    expect_error(gp_simulate(v, 1, 0.2, 1), class = "gpustats_error_argument")
    if (!identical(dim(v), c(0L, 2L))) expect_error(predict(fit, v), class = "gpustats_error_argument")
  }
  expect_error(predict(fit, locs, se.fit = NA), class = "gpustats_error_argument")
  expect_error(gp_loglik(y, locs, 1, 0.2, 1, device = "tpu"), class = "gpustats_error_argument")
  expect_error(gp_fit(cbind(y, y)[, 0], locs, control = list(trace = FALSE)), "no columns",
               class = "gpustats_error_argument") # a column per replicate (test-gp-replicates.R)
  expect_error(gp_fit(y, locs, nugget = NA, control = list(trace = FALSE)), class = "gpustats_error_argument")
  # constant data: a likelihood, and simulations of a process with no variance are refused
  expect_true(is.finite(gp_loglik(rep(1, 10), locs, 1, 0.2, 1, device = "cpu")))
  expect_error(gp_simulate(locs, 0, 0.2, 1), "sigma2 and the nugget are both 0", class = "gpustats_error_not_pd")
  expect_error(gp_simulate(locs, -1, 0.2, 1), class = "gpustats_error_argument")
  expect_length(gp_simulate(locs, 0, 0.2, 1, nugget = 1), nrow(locs)) # white noise
})

test_that("the packed dense Cholesky of the CPU path equals LAPACK's factor, at any thread count", {
  # orders below, at and between the recursion's blocks and the left-looking
  # column blocks (256 columns), not multiples of the micro-kernel's 8 x 6
  for (n in c(29L, 150L, 601L)) {
    set.seed(n)
    locs <- matrix(runif(2 * n), ncol = 2)
    params <- c(sigma2 = 1.3, range = 0.2, smoothness = 0.8, nugget = 0.05)
    S <- matern_cov(locs, sigma2 = params[["sigma2"]], range = params[["range"]], smoothness = params[["smoothness"]],
                    nugget = params[["nugget"]], device = "cpu")
    L <- t(chol(S))
    b <- matrix(rnorm(2 * n), n)
    out <- lapply(1:2, function(threads) {
      withr::local_options(gpustats.threads = threads)
      gp <- gpustats:::gp_open(locs, "euclidean", "cpu", NULL)
      on.exit(gpustats:::gp_close(gp))
      logdet <- gpustats:::gp_factor(gp, params, locs, NULL)
      list(logdet = logdet, Lb = gpustats:::gp_apply(gp, "multiply", b, NULL),
           z = gpustats:::gp_apply(gp, "forward", b, NULL))
    })
    expect_equal(out[[1]]$logdet, 2 * sum(log(diag(L))), tolerance = 1e-12)
    expect_equal(out[[1]]$Lb, L %*% b, tolerance = 1e-12)
    expect_equal(out[[1]]$z, forwardsolve(L, b), tolerance = 1e-10)
    expect_identical(out[[2]], out[[1]])
  }
  # a location repeated at row 101 makes the leading minor of order 101 singular
  set.seed(5)
  locs <- matrix(runif(300), ncol = 2)
  locs[101, ] <- locs[17, ]
  expect_error(gp_loglik(rnorm(150), locs, 1, 0.1, 0.5, device = "cpu"), "order\\s+101\\b",
               class = "gpustats_error_not_pd")
})
