# Kriging in native code (gs_gp_krige): every backend against the dense
# formulas, the predictions alone (one backward solve) against those with
# standard errors, blocks and interrupts; on a GPU, the CPU's results.

# A fit of r replicates with a linear trend, its parameters fixed, and the
# dense kriging of its data at m new locations.
krige_case <- function(n, m, r = 1L, seed = 1) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  X <- cbind(1, locs[, 1])
  Y <- drop(X %*% c(1, -2)) + as.matrix(gp_simulate(locs, 1, 0.15, 1.2, nugget = 0.05, nsim = r, device = "cpu"))
  new <- matrix(runif(2 * m), ncol = 2)
  X0 <- cbind(1, new[, 1])
  fixed <- list(sigma2 = 1, range = 0.15, smoothness = 1.2, nugget = 0.05)
  fit <- gp_fit(if (r == 1L) drop(Y) else Y, locs, X = X, fixed = fixed, device = "cpu", control = list(trace = FALSE))
  list(locs = locs, X = X, Y = Y, new = new, X0 = X0, fit = fit)
}

dense_kriging <- function(case) {
  K <- matern_cov(case$locs, sigma2 = 1, range = 0.15, smoothness = 1.2, nugget = 0.05, device = "cpu")
  C0 <- matern_cov(case$new, case$locs, sigma2 = 1, range = 0.15, smoothness = 1.2, device = "cpu")
  Ki <- solve(K)
  r <- ncol(case$Y)
  info <- r * crossprod(case$X, Ki %*% case$X)
  beta <- solve(info, crossprod(case$X, Ki %*% rowSums(case$Y)))
  D <- t(case$X0) - crossprod(case$X, Ki %*% t(C0))
  list(fit = drop(case$X0 %*% beta) + C0 %*% Ki %*% (case$Y - drop(case$X %*% beta)),
       se = sqrt(1 - rowSums((C0 %*% Ki) * C0) + colSums(D * solve(info, D))))
}

test_that("kriging on the dense and tiled CPU factors is the dense formula, with or without standard errors", {
  case <- krige_case(400, 150, r = 3L)
  ref <- dense_kriging(case)
  for (tiles in c(FALSE, TRUE)) {
    withr::local_options(gpustats.gp_tiles = tiles)
    k <- predict(case$fit, case$new, X = case$X0, se.fit = TRUE, device = "cpu")
    expect_lte(max(abs(k$fit - ref$fit)), 1e-10)
    expect_lte(max(abs(k$se.fit - ref$se)), 1e-10)
    # alone, the predictions come from one backward solve: the same to rounding
    expect_lte(max(abs(predict(case$fit, case$new, X = case$X0, device = "cpu") - k$fit)), 1e-11)
  }
  # in mixed precision (the locations in Z-order inside) within its accuracy
  mixed <- gp_fit(case$Y, case$locs, X = case$X, fixed = list(sigma2 = 1, range = 0.15, smoothness = 1.2, nugget = 0.05),
                  precision = "mixed", accuracy = 1e-10, device = "cpu", control = list(trace = FALSE))
  k <- predict(mixed, case$new, X = case$X0, se.fit = TRUE, device = "cpu")
  expect_lte(max(abs(k$fit - ref$fit)), 1e-6)
  expect_lte(max(abs(k$se.fit - ref$se)), 1e-6)
})

test_that("kriging many new locations in blocks gives each block what it gives alone, and can be interrupted", {
  case <- krige_case(1000, 8000, seed = 2)
  fit <- case$fit
  all <- predict(fit, case$new, X = case$X0, se.fit = TRUE, device = "cpu")
  # every row, in pieces of one block each: the blocks of the whole call
  # change size with their time, and each row must be done once
  pieces <- lapply(split(seq_len(8000), rep(1:8, each = 1000)), function(rows) {
    predict(fit, case$new[rows, ], X = case$X0[rows, ], se.fit = TRUE, device = "cpu")
  })
  expect_equal(all, list(fit = unlist(lapply(pieces, `[[`, "fit"), use.names = FALSE),
                         se.fit = unlist(lapply(pieces, `[[`, "se.fit"), use.names = FALSE)), tolerance = 1e-12)
  # the native call stops between blocks once a third is done, frees its work, and the object works after
  gp <- gpustats:::gp_open(case$locs, "euclidean", "cpu", environment())
  on.exit(gpustats:::gp_close(gp))
  params <- c(sigma2 = 1, range = 0.15, smoothness = 1.2, nugget = 0.05)
  model <- gpustats:::cov_model(params, "euclidean")
  gpustats:::gp_factor(gp, params, case$locs, environment())
  W <- gpustats:::gp_apply(gp, "forward", case$X, environment())
  R <- gpustats:::gp_apply(gp, "forward", case$Y - drop(case$X %*% fit$beta), environment())
  krige <- function(rows, progress) {
    gpustats:::gs_call(.Call(gpustats:::gs_r_gp_krige, gp$ptr, model, case$new[rows, , drop = FALSE],
                             case$X0[rows, , drop = FALSE], W, R, matrix(fit$beta), solve(crossprod(W)), TRUE, progress),
                       environment())
  }
  skip_if_signals_late()
  interrupt_at_third <- function(done) if (done > 0.3) tools::pskill(Sys.getpid(), tools::SIGINT)
  expect_identical(interrupt_outcome(krige(seq_len(8000), interrupt_at_third)), "interrupt")
  k <- krige(1:50, NULL)
  expect_equal(drop(k$fit), all$fit[1:50], tolerance = 1e-12)
  expect_equal(k$se, all$se.fit[1:50], tolerance = 1e-12)
})

test_that("kriging and conditional draws on the GPU equal the CPU's, the factor whole or in resident tiles", {
  skip_without_gpu()
  case <- krige_case(3000, 500, r = 2L, seed = 3)
  for (tiles in c(FALSE, TRUE)) {
    withr::local_options(gpustats.gp_tiles = tiles)
    for (se in c(TRUE, FALSE)) {
      expect_equal(predict(case$fit, case$new, X = case$X0, se.fit = se, device = "gpu"),
                   predict(case$fit, case$new, X = case$X0, se.fit = se, device = "cpu"), tolerance = 1e-9,
                   info = paste("tiles", tiles, "se", se))
    }
    expect_equal(simulate(case$fit, 2, seed = 1, newdata = case$new, X = case$X0, device = "gpu"),
                 simulate(case$fit, 2, seed = 1, newdata = case$new, X = case$X0, device = "cpu"), tolerance = 1e-8)
  }
  # a resident factor in mixed precision (its low-precision tiles read in FP64 by the solves)
  weak <- mixed_loglik_case(3000, seed = 23)
  new <- matrix(runif(400), ncol = 2)
  fixed <- list(sigma2 = 1, range = 0.03, smoothness = 0.5, nugget = 0)
  ref <- gp_fit(weak$y, weak$locs, X = matrix(0, 3000, 0), fixed = fixed, device = "cpu", control = list(trace = FALSE))
  mixed <- gp_fit(weak$y, weak$locs, X = matrix(0, 3000, 0), fixed = fixed, precision = "mixed", accuracy = 1e-10,
                  device = "gpu", control = list(trace = FALSE))
  g <- predict(mixed, new, X = matrix(0, 200, 0), se.fit = TRUE, device = "gpu")
  c <- predict(ref, new, X = matrix(0, 200, 0), se.fit = TRUE, device = "cpu")
  expect_lte(max(abs(g$fit - c$fit)), 1e-5)
  expect_lte(max(abs(g$se.fit - c$se.fit)), 1e-5)
})
