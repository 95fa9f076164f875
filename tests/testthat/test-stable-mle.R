# Maximum likelihood where the log-likelihood is hard: small alpha with a
# steep side, a bound on beta, the Gaussian edge alpha = 2. Samples of 500
# keep the file fast and still have points on the steep side.

stable_mle_z <- function(fit, truth) (coef(fit) - truth) / sqrt(diag(vcov(fit)))

test_that("the MLE converges at alpha = 0.3, beta = 0.9 with a positive-definite information", {
  # in S0 the points next to the steep side make a narrow curved ridge:
  # the fit stopped after 100 iterations with no standard errors
  set.seed(1)
  x <- rstable(500, 0.3, 0.9)
  fit <- expect_silent(stable_fit(x, device = "cpu"))
  expect_true(fit$converged)
  expect_lte(fit$iterations, 30)
  expect_true(fit$information_ok)
  expect_length(fit$boundary, 0)
  z <- stable_mle_z(fit, c(0.3, 0.9, 1, 0))
  expect_true(all(is.finite(z)))
  expect_lt(max(abs(z)), 4)
  # a maximum: no probe around it is higher
  ll <- function(p) sum(dstable(x, p[1], p[2], p[3], p[4], log = TRUE, device = "cpu"))
  se <- sqrt(diag(vcov(fit)))
  for (i in 1:4) {
    for (s in c(-1, 1)) {
      p <- coef(fit)
      p[i] <- p[i] + s * 0.01 * se[i]
      expect_lte(ll(p), fit$loglik + 1e-7)
    }
  }
})

test_that("the MLE converges at alpha = 1.9, beta = -0.5 within a few standard errors", {
  set.seed(3)
  fit <- stable_fit(rstable(500, 1.9, -0.5), device = "cpu")
  expect_true(fit$converged)
  expect_true(fit$information_ok)
  expect_lt(max(abs(stable_mle_z(fit, c(1.9, -0.5, 1, 0)))), 4)
})

test_that("an estimate of beta at its bound is reported once, with no standard error", {
  set.seed(4)
  x <- rstable(500, 0.8, 1)
  expect_message(fit <- stable_fit(x, device = "cpu"), class = "gpustats_message_boundary")
  expect_true(fit$converged)
  expect_equal(fit$boundary, "beta")
  expect_equal(coef(fit)[["beta"]], 1)
  vc <- vcov(fit)
  expect_true(all(is.na(vc["beta", ])))
  expect_true(all(diag(vc[-2, -2]) > 0))
  z <- stable_mle_z(fit, c(0.8, 1, 1, 0))[-2]
  expect_lt(max(abs(z)), 4)
  expect_output(print(fit), "On the boundary \\(no standard error\\): beta")
  # a batch names the samples in one message
  msgs <- 0L
  withCallingHandlers(stable_fit(list(a = x, b = -x), device = "cpu", control = list(progress = FALSE)),
                      gpustats_message_boundary = function(m) {
                        msgs <<- msgs + 1L
                        expect_match(conditionMessage(m), "samples a, b")
                        invokeRestart("muffleMessage")
                      })
  expect_equal(msgs, 1L)
})

test_that("Gaussian data give alpha = 2, with beta unidentified and no standard errors for either", {
  set.seed(5)
  x <- rnorm(400, 3, 2)
  expect_message(fit <- stable_fit(x, device = "cpu"), class = "gpustats_message_boundary")
  expect_true(fit$converged)
  expect_equal(coef(fit)[["alpha"]], 2)
  expect_setequal(fit$boundary, c("alpha", "beta"))
  vc <- vcov(fit)
  expect_true(all(is.na(diag(vc)[1:2])))
  # at alpha = 2 the law is N(delta, 2 gamma^2): the Gaussian MLE, and the
  # Gaussian information (n / (2 gamma^2) for delta, 2 n / gamma^2 for gamma)
  g <- sqrt(mean((x - mean(x))^2) / 2)
  expect_equal(unname(coef(fit)[3:4]), c(g, mean(x)), tolerance = 1e-6)
  expect_equal(unname(diag(vc)[3:4]), c(g^2 / (2 * 400), 2 * g^2 / 400), tolerance = 1e-3)
})

test_that("the information in the S1 chart is carried back to S0 by the chart's Jacobian", {
  theta <- c(0.3, 0.7, 1.3, 0.2)
  jac <- gpustats:::stable_chart_jacobian(theta, TRUE)
  # dtheta/dphi: delta0 = delta1 + beta gamma tan(pi alpha / 2)
  t <- tan(pi * 0.3 / 2)
  expect_equal(jac[4, ], c(0.7 * 1.3 * pi / 2 / cos(pi * 0.3 / 2)^2, 1.3 * t, 0.7 * t, 1))
  phi <- gpustats:::stable_to_chart(rbind(theta), TRUE)
  expect_equal(phi[4], 0.2 - 0.7 * 1.3 * t)
  expect_equal(gpustats:::stable_from_chart(phi, TRUE)[1, ], theta)
  # a Hessian in the chart; the S0 Hessian is J^-T H J^-1, whose inverse
  # is the S0 covariance
  a <- matrix(c(4, 1, 0.5, 0.2, 1, 3, 0.1, 0.3, 0.5, 0.1, 2, 0.4, 0.2, 0.3, 0.4, 5), 4)
  v <- gpustats:::stable_mle_vcov(-a, rep(TRUE, 4), rep(FALSE, 4), jac)
  ji <- solve(jac)
  expect_equal(unname(v$vcov), solve(t(ji) %*% a %*% ji), tolerance = 1e-12)
  # held beta: the others conditional on it
  v2 <- gpustats:::stable_mle_vcov(-a, rep(TRUE, 4), c(FALSE, TRUE, FALSE, FALSE), jac)
  j3 <- jac[-2, -2]
  expect_equal(unname(v2$vcov[-2, -2]), j3 %*% solve(a[-2, -2]) %*% t(j3), tolerance = 1e-12)
  expect_true(all(is.na(v2$vcov[2, ])))
})
