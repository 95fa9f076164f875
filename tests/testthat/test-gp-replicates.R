# Independent replicates of one process at the same locations (y a matrix in
# gp_fit): against dense R computations of the stacked model, whose
# covariance is kron(diag(r), Sigma).

replicate_case <- function(n = 40, r = 9, seed = 7, sigma2 = 1.3, range = 0.25, smoothness = 0.9, nugget = 0.1,
                           beta = c(2, -1)) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  X <- cbind(`(Intercept)` = 1, x1 = locs[, 1])
  S <- gp_simulate(locs, sigma2, range, smoothness, nugget, nsim = r, device = "cpu")
  list(locs = locs, X = X, Y = drop(X %*% beta) + S)
}

# The log-likelihood of the replicates stacked (n r values, design
# 1_r (x) X, covariance I_r (x) Sigma) by a Cholesky factor of the stacked
# covariance, with the GLS coefficients; REML in Harville's form. With r = 9
# replicates the CPU whitens them with the packed kernels (8 columns and
# more), with 3 or fewer (below) with BLAS.
dense_stacked_loglik <- function(Y, locs, X, sigma2, range, smoothness, nugget, method) {
  Y <- as.matrix(Y)
  r <- ncol(Y)
  K <- matern_cov(locs, sigma2 = sigma2, range = range, smoothness = smoothness, device = "cpu") + diag(nugget, nrow(Y))
  U <- chol(kronecker(diag(r), K))
  Ki <- chol2inv(U)
  y <- as.vector(Y)
  Xs <- kronecker(matrix(1, r, 1), X)
  p <- ncol(X)
  A <- crossprod(Xs, Ki %*% Xs)
  res <- if (p) y - Xs %*% solve(A, crossprod(Xs, Ki %*% y)) else y
  N <- length(y) - if (method == "reml") p else 0
  ll <- -0.5 * (N * log(2 * pi) + 2 * sum(log(diag(U))) + sum(res * (Ki %*% res)))
  if (method == "reml" && p) ll <- ll - 0.5 * as.numeric(determinant(A)$modulus)
  ll
}

fixed_fit <- function(Y, locs, X, method, ...) {
  gp_fit(Y, locs, X = X, method = method, fixed = list(sigma2 = 1.1, range = 0.2, smoothness = 0.8, nugget = 0.05),
         device = "cpu", control = list(trace = FALSE), ...)
}

test_that("the replicate log-likelihood is the stacked model's (ML and REML, with and without a trend)", {
  for (r in c(3L, 9L)) {
    d <- replicate_case(r = r)
    for (method in c("ml", "reml")) for (X in list(d$X, d$X[, 1, drop = FALSE], matrix(0, nrow(d$locs), 0))) {
      fit <- suppressWarnings(fixed_fit(d$Y, d$locs, X, method))
      ref <- dense_stacked_loglik(d$Y, d$locs, X, 1.1, 0.2, 0.8, 0.05, method)
      expect_lte(abs(fit$loglik / ref - 1), 1e-10)
      expect_identical(fit$replicates, r)
    }
  }
})

test_that("the tile Cholesky and mixed precision whiten the replicates in one multi-column solve too", {
  d <- replicate_case()
  dense <- fixed_fit(d$Y, d$locs, d$X, "reml")
  withr_tiles <- function(expr) {
    old <- options(gpustats.gp_tiles = TRUE)
    on.exit(options(old))
    expr
  }
  tiled <- withr_tiles(fixed_fit(d$Y, d$locs, d$X, "reml"))
  expect_lte(abs(tiled$loglik / dense$loglik - 1), 1e-12)
  mixed <- fixed_fit(d$Y, d$locs, d$X, "reml", precision = "mixed", accuracy = 1e-15)
  expect_lte(abs(mixed$loglik / dense$loglik - 1), 1e-10)
})

test_that("a one-column matrix is the vector fit exactly", {
  d <- replicate_case(r = 1)
  a <- gp_fit(d$Y, d$locs, X = d$X, device = "cpu", control = list(trace = FALSE), fixed = list(smoothness = 1))
  b <- gp_fit(matrix(d$Y), d$locs, X = d$X, device = "cpu", control = list(trace = FALSE), fixed = list(smoothness = 1))
  expect_identical(coef(b), coef(a))
  expect_identical(b$loglik, a$loglik)
  expect_identical(b$vcov, a$vcov)
  expect_identical(b$replicates, 1L)
  expect_identical(predict(b, d$locs[1:3, ] + 0.01, X = d$X[1:3, ]), predict(a, d$locs[1:3, ] + 0.01, X = d$X[1:3, ]))
})

test_that("gp_fit of replicates is the maximum of the dense stacked likelihood and beats one replicate", {
  d <- replicate_case(n = 30, r = 8, seed = 3, sigma2 = 1, range = 0.2, smoothness = 1, nugget = 0, beta = c(1, 0))
  X <- d$X[, 1, drop = FALSE]
  fit <- gp_fit(d$Y, d$locs, X = X, nugget = FALSE, fixed = list(smoothness = 1), device = "cpu",
                control = list(trace = FALSE))
  objective <- function(t) -dense_stacked_loglik(d$Y, d$locs, X, exp(t[1]), exp(t[2]), 1, 0, "reml")
  opt <- stats::optim(log(c(1, 0.2)), objective, method = "BFGS", control = list(reltol = 1e-14, maxit = 500))
  expect_lte(max(abs(coef(fit)[c("sigma2", "range")] / exp(opt$par) - 1)), 1e-4)
  expect_lte(abs(fit$loglik + opt$value), 1e-6)
  one <- gp_fit(d$Y[, 1], d$locs, X = X, nugget = FALSE, fixed = list(smoothness = 1), device = "cpu",
                control = list(trace = FALSE))
  error <- function(f) sum(abs(log(coef(f)[c("sigma2", "range")] / c(1, 0.2))))
  expect_lt(error(fit), error(one))
  relative_variance <- function(f) f$vcov["range", "range"] / coef(f)[["range"]]^2 # of log(range)
  expect_lt(relative_variance(fit), relative_variance(one) / 4) # about 1 / r
})

test_that("predictions krige each replicate with the pooled trend; se shared", {
  d <- replicate_case()
  fit <- fixed_fit(d$Y, d$locs, d$X, "reml")
  new <- rbind(c(0.3, 0.6), c(0.8, 0.1), c(0.5, 0.5))
  X0 <- cbind(1, new[, 1])
  k <- predict(fit, new, X = X0, se.fit = TRUE)
  K <- matern_cov(d$locs, sigma2 = 1.1, range = 0.2, smoothness = 0.8, device = "cpu") + diag(0.05, nrow(d$locs))
  C0 <- matern_cov(new, d$locs, sigma2 = 1.1, range = 0.2, smoothness = 0.8, device = "cpu")
  Ki <- solve(K)
  beta <- solve(9 * crossprod(d$X, Ki %*% d$X), crossprod(d$X, Ki %*% rowSums(d$Y)))
  expect_lte(max(abs(fit$beta - beta)), 1e-10)
  mean <- drop(X0 %*% beta) + C0 %*% Ki %*% (d$Y - drop(d$X %*% beta))
  D <- t(X0) - crossprod(d$X, Ki %*% t(C0))
  se <- sqrt(1.1 - rowSums((C0 %*% Ki) * C0) + colSums(D * solve(9 * crossprod(d$X, Ki %*% d$X), D)))
  expect_equal(dim(k$fit), c(3L, 9L))
  expect_lte(max(abs(k$fit - mean)), 1e-10)
  expect_lte(max(abs(k$se.fit - se)), 1e-10)
  ci <- predict(fit, new, X = X0, interval = "prediction")
  expect_equal(dim(ci), c(3L, 9L, 3L))
  expect_equal(ci[, , "upr"] - ci[, , "fit"], matrix(qnorm(0.975) * sqrt(se^2 + 0.05), 3, 9), tolerance = 1e-10)
  # fitted values and residuals: n x r, each replicate's own kriging
  f <- fitted(fit)
  expect_equal(dim(f), dim(d$Y))
  Kf <- K - diag(0.05, nrow(d$locs))
  expect_lte(max(abs(f - (drop(d$X %*% beta) + Kf %*% Ki %*% (d$Y - drop(d$X %*% beta))))), 1e-10)
  expect_equal(residuals(fit), d$Y - f)
  expect_equal(residuals(fit, type = "trend"), d$Y - drop(d$X %*% beta))
})

test_that("methods of a replicate fit: sizes, print, variogram, simulation, confint", {
  d <- replicate_case(n = 30, r = 3)
  fit <- gp_fit(d$Y, d$locs, X = d$X, fixed = list(smoothness = 0.9), device = "cpu", control = list(trace = FALSE))
  expect_identical(nobs(fit), 90L)
  expect_identical(attr(logLik(fit), "df"), 5L) # two coefficients, sigma2, range, nugget
  expect_output(print(fit), "30 locations x 3 replicates")
  expect_output(print(summary(fit)), "30 locations x 3 replicates")
  # the pooled variogram averages the replicates' over the same pairs
  v <- gp_variogram(d$Y, d$locs, bins = 5)
  each <- lapply(1:3, function(j) gp_variogram(d$Y[, j], d$locs, bins = 5))
  expect_equal(v$gamma, rowMeans(sapply(each, `[[`, "gamma")), tolerance = 1e-14)
  expect_identical(v$np, 3L * each[[1]]$np)
  expect_equal(gp_variogram(fit, bins = 5)$gamma, gp_variogram(residuals(fit, type = "trend"), d$locs, bins = 5)$gamma)
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fit))
  # without a nugget, conditional draws at observed locations are each replicate's data
  exact <- gp_fit(d$Y, d$locs, X = d$X, nugget = FALSE, device = "cpu", control = list(trace = FALSE, hessian = FALSE),
                  fixed = list(smoothness = 0.9, range = 0.2, sigma2 = 1))
  s <- simulate(exact, nsim = 2, seed = 1, newdata = d$locs[1:4, ], X = d$X[1:4, ])
  expect_identical(names(s), c("sim_1.rep_1", "sim_1.rep_2", "sim_1.rep_3", "sim_2.rep_1", "sim_2.rep_2", "sim_2.rep_3"))
  expect_lte(max(abs(as.matrix(s) - d$Y[1:4, c(1:3, 1:3)])), 1e-6)
  expect_equal(dim(simulate(fit, nsim = 2, seed = 1)), c(30L, 2L))
  ci <- confint(fit, "range", method = "wald")
  expect_true(ci[1] < coef(fit)[["range"]] && coef(fit)[["range"]] < ci[2])
  expect_error(gp_map(fit, n = 10), "3 replicates", class = "gpustats_error_argument")
})

test_that("replicates from a formula, NA rows and bad input", {
  d <- replicate_case(n = 30, r = 2)
  df <- data.frame(a = d$Y[, 1], b = d$Y[, 2], x = d$locs[, 1], y = d$locs[, 2])
  f1 <- gp_fit(cbind(a, b) ~ x, df, coords = ~ x + y, fixed = list(smoothness = 0.9), device = "cpu",
               control = list(trace = FALSE))
  f2 <- gp_fit(d$Y, d$locs, X = d$X, fixed = list(smoothness = 0.9), device = "cpu", control = list(trace = FALSE))
  expect_equal(f1$loglik, f2$loglik, tolerance = 1e-10)
  expect_identical(colnames(fitted(f1)), c("a", "b"))
  Y <- d$Y
  Y[5, 2] <- NA # the other replicate keeps location 5 (see test-gp-replicates-missing.R)
  f3 <- expect_silent(fixed_fit(Y, d$locs, d$X, "ml"))
  expect_identical(f3$n, 30L)
  expect_identical(nobs(f3), 59L)
  bad <- function(y, ...) gp_fit(y, d$locs, device = "cpu", control = list(trace = FALSE), ...)
  expect_error(bad(d$Y[-1, ]), "rows", class = "gpustats_error_argument")
  expect_error(bad(d$Y[, 0]), "no columns", class = "gpustats_error_argument")
  expect_error(bad(matrix(as.character(d$Y), 30)), "numeric", class = "gpustats_error_argument")
  expect_error(bad(d$Y, approx = "vecchia"), "approx = \"exact\"", class = "gpustats_error_argument")
  expect_identical(fixed_fit(d$Y, d$locs, d$X, "ml", approx = "auto")$approx, "exact")
  expect_error(gp_variogram(d$Y[, 0], d$locs), class = "gpustats_error_argument")
})

test_that("the GPU fits replicates as the CPU does", {
  skip_without_gpu()
  d <- replicate_case(n = 300, r = 20)
  for (method in c("ml", "reml")) {
    g <- gp_fit(d$Y, d$locs, X = d$X, method = method, fixed = list(smoothness = 0.9), device = "gpu",
                control = list(trace = FALSE))
    c <- gp_fit(d$Y, d$locs, X = d$X, method = method, fixed = list(smoothness = 0.9), device = "cpu",
                control = list(trace = FALSE))
    expect_lte(abs(g$loglik / c$loglik - 1), 1e-9)
    expect_lte(max(abs(coef(g) / coef(c) - 1)), 1e-4)
  }
  new <- matrix(runif(20), ncol = 2)
  fixed <- list(sigma2 = 1.1, range = 0.2, smoothness = 0.8, nugget = 0.05)
  g <- gp_fit(d$Y, d$locs, X = d$X, fixed = fixed, device = "gpu", control = list(trace = FALSE))
  c <- gp_fit(d$Y, d$locs, X = d$X, fixed = fixed, device = "cpu", control = list(trace = FALSE))
  expect_lte(abs(g$loglik / c$loglik - 1), 1e-12)
  pg <- predict(g, new, X = cbind(1, new[, 1]), se.fit = TRUE, device = "gpu")
  pc <- predict(c, new, X = cbind(1, new[, 1]), se.fit = TRUE, device = "cpu")
  expect_lte(max(abs(pg$fit - pc$fit)), 1e-9)
  expect_lte(max(abs(pg$se.fit - pc$se.fit)), 1e-9)
})
