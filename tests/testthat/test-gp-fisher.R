# The exact likelihood's derivatives (gs_gp_derivatives): the traces,
# quadratic forms and information against dense matrix computations, the
# profiled gradient against finite differences of the package's own
# log-likelihood, and the standard errors and search built on them.

ns <- asNamespace("gpustats")

# The four derivative matrices of Sigma = sigma2 M(d / range) + nugget I:
# dM/dz = -c z^nu K_{nu-1}(z) in closed form for the range, the smoothness
# by a fourth-order central difference of matern_cov() in nu.
dense_dsigma <- function(locs, pr) {
  D <- as.matrix(dist(locs))
  z <- D / pr[["range"]]
  nu <- pr[["smoothness"]]
  c0 <- 2^(1 - nu) / gamma(nu)
  drange <- ifelse(z > 0, pr[["sigma2"]] * c0 * z^(nu + 1) * besselK(z, abs(nu - 1)) / pr[["range"]], 0)
  at <- function(v) matern_cov(locs, sigma2 = pr[["sigma2"]], range = pr[["range"]], smoothness = v, device = "cpu")
  h <- 1e-3
  dnu <- (8 * (at(nu + h) - at(nu - h)) - (at(nu + 2 * h) - at(nu - 2 * h))) / (12 * h)
  list(sigma2 = at(nu) / pr[["sigma2"]], range = drange, smoothness = dnu, nugget = diag(nrow(locs)))
}

fisher_case <- function(n = 40, seed = 5) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  pr <- c(sigma2 = 1.3, range = 0.25, smoothness = 0.8, nugget = 0.1)
  S <- matern_cov(locs, sigma2 = pr[["sigma2"]], range = pr[["range"]], smoothness = pr[["smoothness"]],
                  device = "cpu") + diag(pr[["nugget"]], n)
  list(locs = locs, pr = pr, S = S, X = cbind(1, locs[, 1]), U = cbind(rnorm(n), rnorm(n)), dS = dense_dsigma(locs, pr))
}

native_derivatives <- function(case, X, info = TRUE, device = "cpu", deriv = names(case$pr)) {
  gp <- ns$gp_open(case$locs, "euclidean", device, environment())
  on.exit(ns$gp_close(gp))
  ns$gp_factor(gp, case$pr, case$locs, environment())
  ns$gp_derivatives(gp, case$pr, deriv, X, case$U, info, environment())
}

test_that("the traces, quadratic forms and information match dense matrices (ML and REML)", {
  case <- fisher_case()
  Si <- solve(case$S)
  for (X in list(matrix(0, 40, 0), case$X)) {
    P <- if (ncol(X)) Si - Si %*% X %*% solve(crossprod(X, Si %*% X), t(X) %*% Si) else Si
    r <- native_derivatives(case, X)
    trace <- vapply(case$dS, function(D) sum(P * D), 0)
    quad <- vapply(case$dS, function(D) sum(case$U * (D %*% case$U)), 0)
    info <- outer(1:4, 1:4, Vectorize(function(i, j) sum((P %*% case$dS[[i]]) * t(P %*% case$dS[[j]]))))
    expect_lt(max(abs(r$trace - trace) / abs(trace)), 1e-10)
    expect_lt(max(abs(r$quad - quad) / abs(quad)), 1e-10)
    expect_lt(max(abs(r$info - info) / abs(info)), 1e-10)
    expect_identical(dimnames(r$info), list(names(case$pr), names(case$pr)))
  }
  # a subset of the parameters gives the same numbers for those
  sub <- native_derivatives(case, case$X, deriv = c("smoothness", "nugget"))
  full <- native_derivatives(case, case$X)
  expect_equal(sub$info, full$info[c("smoothness", "nugget"), c("smoothness", "nugget")], tolerance = 1e-14)
  expect_equal(sub$trace, full$trace[c("smoothness", "nugget")], tolerance = 1e-14)
})

# A fit's likelihood on its open object, as exact_fit() builds it.
fisher_likelihood <- function(y, locs, X, cov = "matern", method = "reml", nugget = TRUE, fixed = list()) {
  call <- environment()
  d <- ns$gp_data_matrix(y, locs, X, "euclidean", call)
  d$locs <- ns$as_locations(d$locs, "locs", "euclidean", call)
  model <- ns$gp_cov_model(cov, 2, "euclidean", call)
  spec <- ns$fit_spec(d, model, NULL, NULL, NULL, fixed, nugget, call)
  lik <- ns$gp_likelihood(d, model, method, "cpu", 0, call)
  list(lik = lik, spec = spec, model = model, gp = lik$gp)
}

test_that("the profiled gradient matches central differences of the log-likelihood", {
  set.seed(2)
  n <- 80
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- 1 + locs[, 1] + gp_simulate(locs, 1, 0.2, 1.2, 0.05, device = "cpu")
  cases <- list(list(method = "reml"), list(method = "ml"), list(method = "ml", X = matrix(0, n, 0)),
                list(method = "reml", X = cbind(1, locs[, 1]), cov = "exponential"),
                list(method = "ml", X = cbind(1, locs[, 1])), list(method = "reml", nugget = FALSE),
                list(method = "ml", fixed = list(sigma2 = 2)), list(method = "ml", replicates = TRUE))
  for (cs in cases) {
    yy <- if (isTRUE(cs$replicates)) cbind(y, rev(y)) else y
    s <- fisher_likelihood(yy, locs, cs$X, if (is.null(cs$cov)) "matern" else cs$cov, cs$method, !isFALSE(cs$nugget),
                           if (is.null(cs$fixed)) list() else cs$fixed)
    theta <- s$spec$theta0 + 0.1
    f <- function(t) s$lik$profile(s$spec$unpack(t), s$spec$fixed$sigma2)
    g <- ns$lik_gradient(s$lik, s$spec, theta, environment())
    h <- 1e-4
    fd <- vapply(seq_along(theta), function(i) {
      e <- theta
      e[i] <- theta[i] + h
      up <- f(e)
      e[i] <- theta[i] - h
      (up - f(e)) / (2 * h)
    }, 0)
    expect_named(g, s$spec$free)
    expect_lt(max(abs(g - fd) / abs(fd)), 1e-6)
    ns$gp_close(s$gp)
  }
})

test_that("the Fisher information of the fit's parameters matches a dense computation", {
  case <- fisher_case(60, 9)
  y <- drop(case$X %*% c(1, 2)) + drop(t(chol(case$S)) %*% rnorm(60))
  s <- fisher_likelihood(y, case$locs, case$X)
  cv <- c(sigma2 = 1.3, range = 0.25, smoothness = 0.8, nugget = 0.13)
  I <- ns$lik_information(s$lik, cv, c("sigma2", "range", "smoothness", "nugget"), environment())
  pr <- c(sigma2 = 1.3, range = 0.25, smoothness = 0.8, nugget = 0.13)
  S <- matern_cov(case$locs, sigma2 = 1.3, range = 0.25, smoothness = 0.8, device = "cpu") + diag(0.13, 60)
  dS <- dense_dsigma(case$locs, pr)
  Si <- solve(S)
  P <- Si - Si %*% case$X %*% solve(crossprod(case$X, Si %*% case$X), t(case$X) %*% Si)
  # the scale of fit_vcov: log sigma2, log range, log smoothness, nugget / sigma2
  dphi <- list(S, 0.25 * dS$range, 0.8 * dS$smoothness, 1.3 * diag(60))
  ref <- outer(1:4, 1:4, Vectorize(function(i, j) 0.5 * sum((P %*% dphi[[i]]) * t(P %*% dphi[[j]]))))
  expect_lt(max(abs(I - ref) / abs(ref)), 1e-9)
  ns$gp_close(s$gp)
})

test_that("Fisher standard errors are near the Hessian's, and vcov() gives either", {
  set.seed(4)
  n <- 300
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- 2 + gp_simulate(locs, 1, 0.1, 1.5, 0.1, device = "cpu")
  fit <- gp_fit(y, locs, cov = "matern32", device = "cpu", control = list(trace = FALSE))
  expect_identical(fit$vcov_type, "fisher")
  fisher <- sqrt(diag(vcov(fit)))
  hessian <- sqrt(diag(vcov(fit, type = "hessian")))
  expect_identical(names(fisher), names(hessian))
  expect_true(all(is.finite(fisher)))
  expect_true(all(fisher / hessian > 0.6 & fisher / hessian < 1.6))
  expect_identical(vcov(fit, type = "fisher"), vcov(fit))
  expect_match(capture.output(print(summary(fit))), "expected \\(Fisher\\) information", all = FALSE)
  expect_match(capture.output(print(summary(fit, type = "hessian"))), "observed information", all = FALSE)
  old <- gp_fit(y, locs, cov = "matern32", device = "cpu", control = list(trace = FALSE, vcov = "hessian"))
  expect_identical(old$vcov_type, "hessian")
  expect_equal(sqrt(diag(vcov(old))), hessian, tolerance = 1e-6)
  expect_error(vcov(fit, type = "observed"), class = "gpustats_error_argument")
  expect_error(gp_fit(y, locs, control = list(vcov = "sandwich")), class = "gpustats_error_argument")
  expect_error(gp_fit(y, locs, control = list(gradient = "exact")), class = "gpustats_error_argument")
})

test_that("models the derivatives do not cover keep the Hessian", {
  set.seed(6)
  n <- 120
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- gp_simulate(locs, 1, 0.2, 0.5, 0.1, device = "cpu")
  aniso <- gp_fit(y, locs, cov = "exponential_aniso", device = "cpu", control = list(trace = FALSE))
  expect_identical(aniso$vcov_type, "hessian")
  expect_message(vcov(aniso, type = "fisher"), "Hessian instead")
  old <- options(gpustats.gp_tiles = TRUE)
  on.exit(options(old))
  tiled <- gp_fit(y, locs, cov = "exponential", device = "cpu", control = list(trace = FALSE))
  expect_identical(tiled$vcov_type, "hessian")
  options(old)
  Y <- cbind(y, gp_simulate(locs, 1, 0.2, 0.5, 0.1, device = "cpu"))
  reml <- gp_fit(Y, locs, cov = "exponential", device = "cpu", control = list(trace = FALSE))
  expect_identical(reml$vcov_type, "hessian")
  ml <- gp_fit(Y, locs, cov = "exponential", method = "ml", device = "cpu", control = list(trace = FALSE))
  expect_identical(ml$vcov_type, "fisher")
  ratio <- sqrt(diag(vcov(ml))) / sqrt(diag(vcov(ml, type = "hessian")))
  expect_true(all(ratio > 0.6 & ratio < 1.6))
  v <- suppressMessages(gp_fit(y, locs, cov = "exponential", approx = "vecchia", m = 10, device = "cpu",
                               control = list(trace = FALSE)))
  expect_error(vcov(v, type = "hessian"), class = "gpustats_error_argument")
})

test_that("the search with the analytic gradient reaches the same maximum", {
  set.seed(8)
  n <- 200
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- 1 + gp_simulate(locs, 1, 0.15, 0.9, 0.1, device = "cpu")
  ctrl <- list(trace = FALSE, hessian = FALSE)
  a <- gp_fit(y, locs, device = "cpu", control = c(ctrl, gradient = "analytic"))
  b <- gp_fit(y, locs, device = "cpu", control = c(ctrl, gradient = "differences"))
  expect_true(a$converged)
  expect_lt(abs(a$loglik - b$loglik), 1e-6)
  expect_equal(a$covariance, b$covariance, tolerance = 1e-3)
})

test_that("GPU derivatives equal the CPU's", {
  skip_without_gpu()
  case <- fisher_case(500, 11)
  case$U <- matrix(rnorm(1000), 500)
  case$X <- cbind(1, case$locs)
  for (X in list(matrix(0, 500, 0), case$X)) {
    g <- native_derivatives(case, X, device = "gpu")
    c <- native_derivatives(case, X, device = "cpu")
    expect_equal(g$trace, c$trace, tolerance = 1e-10)
    expect_equal(g$quad, c$quad, tolerance = 1e-10)
    expect_equal(g$info, c$info, tolerance = 1e-10)
  }
})
