# The Vecchia-Laplace approximation of spatial GLMMs: exact where nothing
# is approximated (m = n - 1), closer to the exact Laplace approximation as
# m grows, and fits that agree with the exact ones.

vl_sim <- function(n, cov, seed) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  K <- matern_cov(locs, sigma2 = cov[["sigma2"]], range = cov[["range"]], smoothness = cov[["smoothness"]])
  list(locs = locs, x = rnorm(n), field = drop(t(chol(K + 1e-10 * diag(n))) %*% rnorm(n)))
}

vl_loglik <- function(y, s, X, beta, cov, family, m = NULL, ...) {
  gpustats:::glmm_loglik(y, s$locs, X, beta, cov, family, m = m, ...)
}

test_that("with m = n - 1 the Vecchia-Laplace log-likelihood is the exact Laplace one, every family", {
  cov <- c(sigma2 = 0.8, range = 0.2, smoothness = 1.1, nugget = 0.05)
  s <- vl_sim(120, cov, 1)
  n <- 120
  X <- cbind(1, s$x)
  beta <- c(0.3, 0.4)
  eta <- drop(X %*% beta) + s$field
  offset <- log(runif(n, 0.5, 2))
  w <- runif(n, 0.5, 2)
  trials <- sample(1:6, n, replace = TRUE)
  cases <- list(
    list(y = rpois(n, exp(eta + offset)), family = poisson(), args = list(offset = offset, weights = w)),
    list(y = rbinom(n, 1, plogis(eta)), family = binomial(), args = list()),
    list(y = rbinom(n, trials, plogis(eta)), family = binomial(), args = list(trials = trials)),
    list(y = rgamma(n, shape = 2, rate = 2 / exp(eta)), family = Gamma(link = "log"), args = list(param = 2, weights = w))
  )
  if (requireNamespace("MASS", quietly = TRUE)) {
    cases[[5]] <- list(y = MASS::rnegbin(n, exp(eta), 1.5), family = MASS::negative.binomial(1.5), args = list())
  }
  for (cs in cases) {
    exact <- do.call(vl_loglik, c(list(cs$y, s, X, beta, cov, cs$family), cs$args))
    full <- do.call(vl_loglik, c(list(cs$y, s, X, beta, cov, cs$family, m = n - 1), cs$args))
    expect_true(full$converged)
    expect_equal(full$loglik, exact$loglik, tolerance = 1e-8 / abs(exact$loglik))
    expect_equal(full$f, exact$f, tolerance = 1e-7)
    expect_equal(full$logdet, exact$logdet, tolerance = 1e-8)
  }
})

test_that("the Vecchia-Laplace log-likelihood approaches the exact one as m grows", {
  cov <- c(sigma2 = 1, range = 0.1, smoothness = 0.5, nugget = 0)
  s <- vl_sim(600, cov, 2)
  X <- cbind(1, s$x)
  eta <- 0.5 + s$field
  for (family in c("poisson", "binomial")) {
    y <- if (family == "poisson") rpois(600, exp(eta)) else rbinom(600, 1, plogis(eta))
    exact <- vl_loglik(y, s, X, c(0.5, 0), cov, family)$loglik
    err <- vapply(c(3, 10, 40, 150), function(m) abs(vl_loglik(y, s, X, c(0.5, 0), cov, family, m = m)$loglik - exact), 0)
    expect_true(all(diff(err) < 0))
    expect_lt(err[4], 1e-3)
    expect_lt(err[3], 0.1) # at m = 40, within a tenth of a unit of the exact log-likelihood
  }
})

test_that("the Vecchia-Laplace log-likelihood does not depend on the number of threads", {
  cov <- c(sigma2 = 1, range = 0.1, smoothness = 0.5, nugget = 0)
  s <- vl_sim(5000, c(sigma2 = 1, range = 0.1, smoothness = 0.5), 6)
  y <- rpois(5000, exp(s$field))
  at <- function(threads) {
    withr::local_options(gpustats.threads = threads)
    vl_loglik(y, s, matrix(1, 5000), 0, cov, poisson(), m = 10)
  }
  one <- at(1)
  two <- at(2)
  expect_identical(two$loglik, one$loglik)
  expect_identical(two$f, one$f)
})

test_that("Vecchia-Laplace fits agree with exact ones and say what they are", {
  cov <- c(sigma2 = 1, range = 0.15, smoothness = 0.5, nugget = 0)
  s <- vl_sim(300, cov, 3)
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], x = s$x)
  df$y <- rpois(300, exp(0.5 + 0.3 * df$x + s$field))
  fit <- function(approx, ...) {
    gp_fit(y ~ x, df, coords = ~ lon + lat, family = poisson(), cov = "exponential", approx = approx,
           control = list(trace = FALSE), ...)
  }
  exact <- fit("exact")
  vl <- fit("vecchia", m = 40)
  expect_match(vl$backend, "Vecchia-Laplace \\(m = 40\\)")
  expect_equal(vl$approx, "vecchia")
  expect_true(vl$converged)
  se <- sqrt(diag(vcov(exact)))
  expect_true(all(abs(coef(vl)[names(se)] - coef(exact)[names(se)]) < 0.5 * se))
  expect_equal(unname(vl$loglik), unname(exact$loglik), tolerance = 1 / abs(exact$loglik))
  expect_equal(length(fitted(vl)), 300L)
  expect_true(all(is.finite(sqrt(diag(vcov(vl))))))
  draws <- simulate(vl, nsim = 4000, newdata = df[1:3, ], seed = 1)
  p_link <- predict(vl, newdata = df[1:3, ], se.fit = TRUE)
  # conditional draws: their mean the prediction, their spread its standard
  # error less the trend's part (the draws hold the trend at its estimate)
  expect_equal(rowMeans(draws), unname(p_link$fit), tolerance = 0.05)
  spread <- apply(draws, 1, sd)
  expect_true(all(spread <= p_link$se.fit * 1.05 & spread >= p_link$se.fit * 0.5))
  responses <- simulate(vl, nsim = 2, seed = 2)
  expect_equal(dim(responses), c(300L, 2L))
  expect_true(all(responses >= 0 & responses == round(responses)))
  p <- predict(vl, newdata = df[1:3, ], type = "response", interval = "confidence")
  expect_true(all(p[, "lwr"] < p[, "fit"] & p[, "fit"] < p[, "upr"]))
})

test_that("predictions of a Vecchia-Laplace fit with nothing approximated are the exact fit's", {
  cov <- c(sigma2 = 0.8, range = 0.2, smoothness = 0.5, nugget = 0)
  s <- vl_sim(150, cov, 5)
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], x = s$x)
  df$y <- rpois(150, exp(0.3 + 0.4 * df$x + s$field))
  new <- data.frame(lon = c(0.5, 0.1, 0.93), lat = c(0.5, 0.8, 0.02), x = c(0, 1, -1))
  fit <- function(...) gp_fit(y ~ x, df, coords = ~ lon + lat, family = poisson(), cov = "exponential", control = list(trace = FALSE), ...)
  exact <- fit()
  vl <- fit(approx = "vecchia", m = 149)
  expect_equal(coef(vl), coef(exact), tolerance = 1e-4)
  pe <- predict(exact, new, se.fit = TRUE)
  pv <- predict(vl, new, se.fit = TRUE, m_pred = 150)
  expect_equal(pv$fit, pe$fit, tolerance = 1e-4)
  # the trend's part from the Laplace Hessian's covariance of the
  # coefficients, not the GLS one: equal to its difference
  expect_equal(pv$se.fit, pe$se.fit, tolerance = 1e-2)
})

test_that("the native Vecchia-Laplace mode refuses a bad call and reports a linear predictor that is not finite", {
  set.seed(7)
  n <- 30
  ns <- asNamespace("gpustats")
  vc <- ns$vecchia_open(matrix(runif(2 * n), ncol = 2), 10, device = "cpu", call = environment(), label = "test")
  on.exit(ns$vecchia_close(vc))
  model <- ns$cov_model(c(sigma2 = 1, range = 0.3, nugget = 0, smoothness = 1.5), "euclidean")
  mode <- function(family, y, eta0 = numeric(n)) {
    ns$gs_call(.Call(ns$gs_r_laplace_vecchia_mode, vc$ptr, model, family, as.double(y), NULL, NULL, 1, eta0,
                     numeric(n), 10L, 1e-8), environment())
  }
  expect_error(mode(99L, 1:n), "bad Laplace mode call")
  bad <- mode(0L, 1:n, rep(NaN, n)) # no mode: said so, and -Inf for a search to step back from
  expect_false(bad$converged)
  expect_equal(bad$loglik, -Inf)
  expect_true(mode(0L, 1:n)$converged)
})

test_that("the Vecchia-Laplace approximation on a GPU equals the CPU's", {
  skip_without_gpu()
  cov <- c(sigma2 = 0.9, range = 0.12, smoothness = 0.8, nugget = 0.02)
  s <- vl_sim(400, cov, 4)
  X <- cbind(1, s$x)
  y <- rpois(400, exp(0.2 + s$field))
  for (m in c(20, 399)) {
    cpu <- vl_loglik(y, s, X, c(0.2, 0), cov, poisson(), m = m)
    gpu <- vl_loglik(y, s, X, c(0.2, 0), cov, poisson(), m = m, device = "gpu")
    expect_true(gpu$converged)
    expect_equal(gpu$loglik, cpu$loglik, tolerance = 1e-9)
    expect_equal(gpu$f, cpu$f, tolerance = 1e-8)
  }
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], y = rbinom(400, 1, plogis(s$field)))
  fit <- function(device) {
    gp_fit(y ~ 1, df, coords = ~ lon + lat, family = binomial(), cov = "exponential", approx = "vecchia", m = 20,
           device = device, control = list(trace = FALSE))
  }
  on_gpu <- fit("gpu")
  expect_match(on_gpu$backend, "^gpu, Vecchia-Laplace")
  expect_equal(coef(on_gpu), coef(fit("cpu")), tolerance = 1e-5)
})
