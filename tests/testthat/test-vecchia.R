# The Vecchia approximation: ordering and neighbours against brute force,
# the likelihood against the exact one and GpGp, derivatives against
# differences, the GPU against the CPU.

# The exact maxmin ordering by brute force: the point nearest the mean, then
# each time the farthest from those already taken.
maxmin_brute <- function(locs) {
  d2 <- function(j) colSums((t(locs) - locs[j, ])^2)
  first <- which.min(colSums((t(locs) - colMeans(locs))^2))
  ord <- first
  d <- d2(first)
  d[first] <- -Inf
  for (k in seq_len(nrow(locs) - 1L)) {
    j <- which.max(d)
    ord <- c(ord, j)
    d <- pmin(d, d2(j))
    d[ord] <- -Inf
  }
  ord
}

test_that("the maxmin ordering is the brute-force one, and reproducible", {
  set.seed(2)
  locs <- matrix(runif(3 * 200), ncol = 3)
  nb <- vecchia_neighbors(locs, m = 5)
  expect_identical(nb$order, as.integer(maxmin_brute(locs)))
  expect_identical(vecchia_neighbors(locs, m = 5), nb)
  set.seed(3)
  r1 <- vecchia_neighbors(locs, m = 5, ordering = "random")
  set.seed(3)
  expect_identical(vecchia_neighbors(locs, m = 5, ordering = "random"), r1)
  expect_identical(sort(r1$order), 1:200)
  expect_identical(vecchia_neighbors(locs, m = 5, ordering = "none")$order, 1:200)
})

test_that("the neighbours are the nearest earlier points (FNN brute force)", {
  skip_if_not_installed("FNN")
  set.seed(4)
  locs <- matrix(rnorm(2 * 150), ncol = 2) # denser in the middle
  m <- 12
  for (ordering in c("maxmin", "random")) {
    nb <- vecchia_neighbors(locs, m = m, ordering = ordering)
    lo <- locs[nb$order, ]
    nn <- nb$neighbors
    expect_identical(dim(nn), c(150L, as.integer(m) + 1L))
    expect_identical(nn[, 1], 1:150)
    expect_true(all(is.na(nn[1, -1])))
    for (i in 2:150) {
      k <- min(m, i - 1L)
      ref <- FNN::get.knnx(lo[seq_len(i - 1L), , drop = FALSE], lo[i, , drop = FALSE], k = k, algorithm = "brute")
      expect_identical(nn[i, 1 + seq_len(k)], as.integer(ref$nn.index[1, ]), info = paste(ordering, i))
      if (k < m) expect_true(all(is.na(nn[i, (k + 2):(m + 1)])))
    }
  }
})

test_that("bad input gets classed errors", {
  locs <- matrix(runif(20), ncol = 2)
  expect_error(vecchia_neighbors(locs, m = 10), class = "gpustats_error_argument", regexp = "less than")
  expect_error(vecchia_neighbors(locs, m = 2.5), class = "gpustats_error_argument")
  dup <- rbind(locs, locs[3, ])
  for (ordering in c("maxmin", "random", "none")) {
    expect_error(vecchia_neighbors(dup, m = 3, ordering = ordering), class = "gpustats_error_argument",
                 regexp = "duplicated locations \\(rows 3 and 11\\)")
  }
  expect_identical(dim(vecchia_neighbors(dup, m = 0)$neighbors), c(11L, 1L)) # independent: no conditioning
  bad <- locs
  bad[4, 2] <- Inf
  expect_error(vecchia_neighbors(bad, m = 3), class = "gpustats_error_argument", regexp = "infinite")
  bad[4, 2] <- NA
  expect_error(vecchia_loglik(runif(10), bad, 1, 0.1, 0.5, m = 3), class = "gpustats_error_argument", regexp = "missing")
  y <- runif(10)
  y[2] <- NaN
  expect_error(vecchia_loglik(y, locs, 1, 0.1, 0.5, m = 3), class = "gpustats_error_argument")
  expect_error(vecchia_loglik(runif(10), locs, 1, -0.1, 0.5, m = 3), class = "gpustats_error_argument")
  expect_error(vecchia_loglik(runif(10), locs, 1, 0.1, 0.5, m = 3, X = matrix(1, 9, 1)), class = "gpustats_error_argument")
})

test_that("with m = n - 1 the Vecchia likelihood is the exact one", {
  case <- vecchia_case(120)
  p <- case$params
  for (nugget in c(0.1, 0)) {
    exact <- gp_loglik(case$y, case$locs, p[1], p[2], p[3], nugget, device = "cpu")
    v <- vecchia_loglik(case$y, case$locs, p[1], p[2], p[3], nugget, m = 119, device = "cpu")
    expect_lt(abs(v - exact), 1e-10 * abs(exact))
    expect_lt(abs(attr(v, "logdet") - attr(exact, "logdet")), 1e-10 * abs(attr(exact, "logdet")))
  }
  # with covariates: the profile likelihood by dense GLS
  S <- matern_cov(case$locs, sigma2 = p[1], range = p[2], smoothness = p[3], nugget = p[4], device = "cpu")
  R <- chol(S)
  wy <- backsolve(R, case$y, transpose = TRUE)
  wx <- backsolve(R, case$X, transpose = TRUE)
  beta <- qr.coef(qr(wx), wy)
  exact <- -0.5 * (120 * log(2 * pi) + 2 * sum(log(diag(R))) + sum((wy - wx %*% beta)^2))
  v <- vecchia_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], m = 119, X = case$X, device = "cpu")
  expect_lt(abs(v - exact), 1e-10 * abs(exact))
  expect_lt(max(abs(attr(v, "beta") - beta)), 1e-10)
})

# The Kullback-Leibler divergence of the Vecchia law from the exact one,
# 1/2 (tr(W S W') - n - log |S| + log |S_V|), by the dense factor of S.
vecchia_kl <- function(locs, p, m) {
  vc <- gpustats:::vecchia_open(locs, m, device = "cpu", label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  logdet_v <- gpustats:::vecchia_factor(vc, p, label = "factor")
  S <- matern_cov(locs, sigma2 = p[1], range = p[2], smoothness = p[3], nugget = p[4], device = "cpu")
  L <- t(chol(S))
  0.5 * (sum(gpustats:::vecchia_apply(vc, L)^2) - nrow(locs) - 2 * sum(log(diag(L))) + logdet_v)
}

test_that("the Vecchia law tends to the exact one as m grows", {
  case <- vecchia_case(500, seed = 5)
  p <- case$params
  # nearest-neighbour sets are nested in m, so the divergence decreases
  kl <- sapply(c(1, 3, 10, 30), function(m) vecchia_kl(case$locs, p, m))
  expect_true(all(diff(kl) < 0))
  expect_lt(kl[4], 0.05)
  expect_lt(abs(vecchia_kl(case$locs[1:100, ], p, 99)), 1e-9)
  exact <- gp_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], device = "cpu")
  err <- sapply(c(1, 40), function(m) {
    abs(vecchia_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], m = m, device = "cpu") - exact)
  })
  expect_lt(err[2], err[1] / 100)
})

test_that("W whitens: W'W is the inverse of the covariance at m = n - 1, W y gives the quadratic form", {
  case <- vecchia_case(80, seed = 6)
  p <- case$params
  vc <- gpustats:::vecchia_open(case$locs, 79, device = "cpu", label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  logdet <- gpustats:::vecchia_factor(vc, p)
  W <- gpustats:::vecchia_apply(vc, diag(80))
  S <- matern_cov(case$locs, sigma2 = p[1], range = p[2], smoothness = p[3], nugget = p[4], device = "cpu")
  expect_lt(max(abs(crossprod(W) %*% S - diag(80))), 1e-9)
  expect_equal(logdet, as.numeric(determinant(S)$modulus), tolerance = 1e-12)
  # W^-1 z is a draw of the law: W^-1 W^-T = S
  Wi <- gpustats:::vecchia_apply(vc, diag(80), what = "inverse")
  expect_lt(max(abs(tcrossprod(Wi) - S)), 1e-10)
  z <- rnorm(80)
  expect_equal(gpustats:::vecchia_apply(vc, gpustats:::vecchia_apply(vc, z, what = "inverse")), z, tolerance = 1e-12)
  vc10 <- gpustats:::vecchia_open(case$locs, 10, device = "cpu", label = "test")
  on.exit(gpustats:::vecchia_close(vc10), add = TRUE)
  ld10 <- gpustats:::vecchia_factor(vc10, p)
  v <- vecchia_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], m = 10, device = "cpu", group = FALSE)
  wy <- gpustats:::vecchia_apply(vc10, cbind(case$y, 2 * case$y))
  expect_equal(colSums(wy^2), c(1, 4) * attr(v, "quadform"), tolerance = 1e-12)
  expect_equal(ld10, attr(v, "logdet"), tolerance = 1e-12)
  # rows of W are supported on the conditioning sets
  W10 <- gpustats:::vecchia_apply(vc10, diag(80)[, vc10$order])
  expect_true(all(W10[upper.tri(W10)] == 0))
})

test_that("the analytic gradient matches central differences, for ML and REML", {
  case <- vecchia_case(150, seed = 7)
  vc <- gpustats:::vecchia_open(case$locs, 12, device = "cpu", label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  # the Bessel function at 0.9; the closed forms at 0.5 and 2.5
  for (nu in c(0.9, 0.5, 2.5)) for (method in c("ml", "reml")) {
    p <- replace(case$params, 3, nu)
    ll <- function(q) gpustats:::vecchia_loglik_grad_info(vc, q, case$y, case$X, deriv = character(), method = method, label = "test")$loglik
    r <- gpustats:::vecchia_loglik_grad_info(vc, p, case$y, case$X, method = method, label = "test")
    num <- sapply(1:4, function(j) {
      h <- 1e-5 * p[j]
      e <- replace(numeric(4), j, h)
      (ll(p + e) - ll(p - e)) / (2 * h)
    })
    expect_lt(max(abs(r$grad - num) / pmax(abs(num), 1)), 1e-6, label = paste(method, nu))
    expect_equal(r$loglik, ll(p), tolerance = 1e-14)
  }
  # a subset of the parameters gives the same entries
  sub <- gpustats:::vecchia_loglik_grad_info(vc, p, case$y, case$X, deriv = c("range", "nugget"), method = "reml", label = "test")
  expect_equal(sub$grad, r$grad[c("range", "nugget")], tolerance = 1e-12)
  expect_equal(sub$info, r$info[c("range", "nugget"), c("range", "nugget")], tolerance = 1e-12)
})

test_that("the Fisher information is symmetric positive definite and exact at m = n - 1", {
  case <- vecchia_case(60, seed = 8)
  p <- case$params
  vc <- gpustats:::vecchia_open(case$locs, 59, device = "cpu", label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  info <- gpustats:::vecchia_loglik_grad_info(vc, p, case$y, label = "test")$info
  expect_equal(info, t(info), tolerance = 1e-12)
  expect_gt(min(eigen(info, symmetric = TRUE)$values), 0)
  # exact: 1/2 tr(S^-1 dS_j S^-1 dS_k), dS by central differences of matern_cov
  cov <- function(q) matern_cov(case$locs, sigma2 = q[1], range = q[2], smoothness = q[3], nugget = q[4], device = "cpu")
  Si <- solve(cov(p))
  dS <- lapply(1:4, function(j) {
    h <- 1e-5 * p[j]
    e <- replace(numeric(4), j, h)
    Si %*% (cov(p + e) - cov(p - e)) / (2 * h)
  })
  exact <- outer(1:4, 1:4, Vectorize(function(j, k) 0.5 * sum(dS[[j]] * t(dS[[k]]))))
  expect_lt(max(abs(info - exact) / abs(exact)), 1e-7)
})

test_that("a covariance that is not positive definite is reported, or returns not_pd", {
  set.seed(12)
  locs <- matrix(runif(40), ncol = 2)
  vc <- gpustats:::vecchia_open(locs, 10, device = "cpu", label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  # very smooth and long-range without a nugget: singular conditioning sets
  p <- c(sigma2 = 1, range = 50, smoothness = 30, nugget = 0)
  expect_error(gpustats:::vecchia_factor(vc, p), class = "gpustats_error_not_pd", regexp = "conditioning set of point")
  expect_identical(gpustats:::vecchia_loglik_grad_info(vc, p, rnorm(20), not_pd = -Inf, label = "test"), -Inf)
  expect_identical(gpustats:::vecchia_factor(vc, p, not_pd = NA), NA)
})

test_that("a numerically singular conditioning set is reported, not a likelihood of rounding noise", {
  set.seed(1)
  y <- rnorm(20)
  locs <- matrix(runif(40), 20)
  # the exact path's rule per set: gp_loglik refuses the same covariance
  expect_error(gp_loglik(y, locs, 1, 50, 2.5, device = "cpu"), "numerically singular", class = "gpustats_error_not_pd")
  for (group in c(FALSE, TRUE)) {
    expect_error(vecchia_loglik(y, locs, 1, 50, 2.5, m = 19, device = "cpu", group = group), "numerically singular",
                 class = "gpustats_error_not_pd")
  }
  # a nugget makes the sets positive definite again
  expect_true(is.finite(vecchia_loglik(y, locs, 1, 50, 2.5, 1e-6, m = 19, device = "cpu")))
  vc <- gpustats:::vecchia_open(locs, 19, device = "cpu", label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  expect_error(gpustats:::vecchia_factor(vc, c(sigma2 = 1, range = 50, smoothness = 2.5, nugget = 0)),
               "numerically singular", class = "gpustats_error_not_pd")
  if (gpu_available()) {
    expect_error(vecchia_loglik(y, locs, 1, 50, 2.5, m = 19, device = "gpu"), "numerically singular",
                 class = "gpustats_error_not_pd")
  }
})

test_that("the progress of a likelihood evaluation reaches 100 %", {
  case <- vecchia_case(3000, seed = 3)
  for (group in c(FALSE, TRUE)) {
    vc <- gpustats:::vecchia_open(case$locs, 10, device = "cpu", group = group, label = "test")
    done <- numeric()
    bar <- function(fraction) done <<- c(done, fraction)
    .Call(gpustats:::gs_r_vecchia_grad_info, vc$ptr, gpustats:::cov_model(case$params, "euclidean"), 0L,
          as.double(case$y), matrix(0, 3000, 0), vc$order, bar)
    gpustats:::vecchia_close(vc)
    expect_identical(done[length(done)], 1, label = paste("group =", group))
  }
})

test_that("great-circle distances: m = n - 1 is the exact likelihood", {
  set.seed(9)
  locs <- cbind(runif(70, -20, 20), runif(70, 30, 60))
  y <- rnorm(70)
  exact <- gp_loglik(y, locs, 1, 800, 0.5, 0.2, distance = "great_circle", device = "cpu")
  v <- vecchia_loglik(y, locs, 1, 800, 0.5, 0.2, m = 69, distance = "great_circle", device = "cpu")
  expect_lt(abs(v - exact), 1e-10 * abs(exact))
})

test_that("it equals GpGp with the same ordering and conditioning sets", {
  skip_if_not_installed("GpGp")
  case <- vecchia_case(400, seed = 10)
  p <- case$params
  vc <- gpustats:::vecchia_open(case$locs, 15, device = "cpu", label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  lo <- case$locs[vc$order, ]
  yo <- case$y[vc$order]
  # GpGp's matern_isotropic: c(sigma2, range, smoothness, nugget / sigma2)
  gp <- c(p[1:3], p[4] / p[1])
  ref <- GpGp::vecchia_meanzero_loglik(gp, "matern_isotropic", yo, lo, vc$neighbors)$loglik
  ours <- gpustats:::vecchia_loglik_grad_info(vc, p, case$y, deriv = character(), label = "test")$loglik
  expect_lt(abs(ours / ref - 1), 1e-8)
  ref <- GpGp::vecchia_profbeta_loglik_grad_info(gp, "matern_isotropic", yo, case$X[vc$order, ], lo, vc$neighbors)
  r <- gpustats:::vecchia_loglik_grad_info(vc, p, case$y, case$X, label = "test")
  expect_lt(abs(r$loglik / ref$loglik - 1), 1e-8)
  expect_lt(max(abs(r$beta / ref$betahat - 1)), 1e-8)
  # the chain rule to GpGp's parameters: nugget = sigma2 * ratio
  J <- diag(4)
  J[4, 1] <- gp[4]
  J[4, 4] <- p[1]
  grad <- drop(crossprod(J, r$grad))
  info <- crossprod(J, r$info %*% J)
  # GpGp differences the smoothness forward with step 1e-8, so its
  # smoothness derivative carries an error of about 1e-8 * |d2/dnu2|
  expect_lt(max(abs(grad[-3] / ref$grad[-3] - 1)), 1e-6)
  expect_lt(abs(grad[3] / ref$grad[3] - 1), 1e-5)
  expect_lt(max(abs(info - ref$info) / abs(ref$info)), 1e-6)
})

test_that("the GPU gives the CPU's Vecchia likelihood, gradient, information and factor", {
  skip_without_gpu()
  set.seed(11)
  n <- 20000
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- rnorm(n)
  X <- cbind(1, locs)
  p <- c(sigma2 = 1.1, range = 0.05, smoothness = 1.3, nugget = 0.2)
  nb <- vecchia_neighbors(locs, m = 30)
  open <- function(device) gpustats:::vecchia_open(locs, 30, device = device, neighbors = nb, label = "test")
  cpu <- open("cpu")
  gpu <- open("gpu")
  on.exit({
    gpustats:::vecchia_close(cpu)
    gpustats:::vecchia_close(gpu)
  })
  rc <- gpustats:::vecchia_loglik_grad_info(cpu, p, y, X, label = "test")
  rg <- gpustats:::vecchia_loglik_grad_info(gpu, p, y, X, label = "test")
  expect_lt(abs(rg$loglik / rc$loglik - 1), 1e-12)
  expect_lt(max(abs(rg$grad - rc$grad) / abs(rc$grad)), 1e-10)
  expect_lt(max(abs(rg$info - rc$info) / abs(rc$info)), 1e-10)
  expect_equal(gpustats:::vecchia_factor(gpu, p), gpustats:::vecchia_factor(cpu, p), tolerance = 1e-12)
  b <- cbind(y, rnorm(n))
  expect_equal(gpustats:::vecchia_apply(gpu, b), gpustats:::vecchia_apply(cpu, b), tolerance = 1e-12)
  expect_equal(gpustats:::vecchia_apply(gpu, b, what = "inverse"), gpustats:::vecchia_apply(cpu, b, what = "inverse"),
               tolerance = 1e-12)
  # exponential closed form, no nugget, a smaller m
  p0 <- c(sigma2 = 1, range = 0.1, smoothness = 0.5, nugget = 0)
  expect_equal(vecchia_loglik(y, locs, 1, 0.1, 0.5, m = 7, device = "gpu"),
               vecchia_loglik(y, locs, 1, 0.1, 0.5, m = 7, device = "cpu"), tolerance = 1e-12)
  expect_true(is.finite(gpustats:::vecchia_loglik_grad_info(gpu, p0, y, label = "test")$loglik))
  # prediction: latent points, the nearest-point search, W b and W^-1 b
  newlocs <- matrix(runif(2000), ncol = 2)
  kc <- gpustats:::vecchia_krige(locs, y, newlocs, p, 40, X = X, X0 = cbind(1, newlocs), device = "cpu")
  kg <- gpustats:::vecchia_krige(locs, y, newlocs, p, 40, X = X, X0 = cbind(1, newlocs), device = "gpu")
  expect_equal(kg, kc, tolerance = 1e-10)
  z <- matrix(rnorm(2000), 1000, 2)
  expect_equal(gpustats:::vecchia_conditional_draws(locs, y, newlocs, p, 30, z = z, device = "gpu"),
               gpustats:::vecchia_conditional_draws(locs, y, newlocs, p, 30, z = z, device = "cpu"), tolerance = 1e-9)
})

test_that("conditioning sets too large for the GPU's shared memory run from global memory, as on the CPU", {
  skip_without_gpu()
  case <- vecchia_case(600, seed = 21)
  nb <- vecchia_neighbors(case$locs, m = 180)
  open <- function(device) gpustats:::vecchia_open(case$locs, 180, device = device, neighbors = nb, label = "test")
  cpu <- open("cpu")
  gpu <- open("gpu")
  on.exit({
    gpustats:::vecchia_close(cpu)
    gpustats:::vecchia_close(gpu)
  })
  # with derivatives a set of 181 needs about 530 KB; shared memory holds at most 227 KB (H100)
  rc <- gpustats:::vecchia_loglik_grad_info(cpu, case$params, case$y, case$X, label = "test")
  rg <- gpustats:::vecchia_loglik_grad_info(gpu, case$params, case$y, case$X, label = "test")
  expect_lt(abs(rg$loglik / rc$loglik - 1), 1e-12)
  expect_lt(max(abs(rg$grad - rc$grad) / abs(rc$grad)), 1e-10)
  expect_lt(max(abs(rg$info - rc$info) / abs(rc$info)), 1e-10)
})

test_that("Vecchia kriging from the m_pred nearest observations is dense kriging on those", {
  skip_if_not_installed("FNN")
  case <- vecchia_case(200, seed = 13)
  p <- case$params
  set.seed(14)
  newlocs <- rbind(matrix(runif(2 * 30), ncol = 2), case$locs[5, ]) # one at an observed location
  X0 <- cbind(1, newlocs[, 1], sin(3 * newlocs[, 2]))
  r <- case$y - 0.3
  krige <- function(idx, x0, s) {
    S <- matern_cov(case$locs[idx, , drop = FALSE], sigma2 = p[1], range = p[2], smoothness = p[3], nugget = p[4], device = "cpu")
    c0 <- matern_cov(case$locs[idx, , drop = FALSE], s, sigma2 = p[1], range = p[2], smoothness = p[3], device = "cpu")
    lam <- solve(S, c0)
    c(sum(lam * r[idx]), p[1] - sum(lam * c0), x0 - drop(crossprod(lam, case$X[idx, , drop = FALSE])))
  }
  for (m_pred in c(200, 25)) {
    k <- gpustats:::vecchia_krige(case$locs, r, newlocs, p, m_pred, X = case$X, X0 = X0)
    idx <- if (m_pred == 200) matrix(1:200, 31, 200, byrow = TRUE) else FNN::get.knnx(case$locs, newlocs, k = m_pred, algorithm = "brute")$nn.index
    if (m_pred < 200) expect_identical(k$neighbors, idx)
    ref <- t(sapply(1:31, function(j) krige(idx[j, ], X0[j, ], newlocs[j, , drop = FALSE])))
    expect_equal(k$mean, ref[, 1], tolerance = 1e-10)
    expect_equal(k$var, ref[, 2], tolerance = 1e-9)
    expect_equal(k$xres, ref[, 3:5], tolerance = 1e-10, ignore_attr = TRUE)
  }
})

test_that("conditional draws conditioned on every earlier point follow the exact conditional law", {
  case <- vecchia_case(60, seed = 15)
  p <- case$params
  set.seed(16)
  newlocs <- matrix(runif(2 * 12), ncol = 2)
  r <- case$y
  draws <- function(z) gpustats:::vecchia_conditional_draws(case$locs, r, newlocs, p, m_pred = 71, z = z, device = "cpu")
  mean <- drop(draws(matrix(0, 12, 1)))
  A <- draws(diag(12)) - mean
  S <- matern_cov(case$locs, sigma2 = p[1], range = p[2], smoothness = p[3], nugget = p[4], device = "cpu")
  C <- matern_cov(case$locs, newlocs, sigma2 = p[1], range = p[2], smoothness = p[3], device = "cpu")
  K <- matern_cov(newlocs, sigma2 = p[1], range = p[2], smoothness = p[3], device = "cpu")
  expect_equal(mean, drop(crossprod(C, solve(S, r))), tolerance = 1e-9)
  expect_equal(tcrossprod(A), K - crossprod(C, solve(S, C)), tolerance = 1e-8)
  set.seed(3)
  d1 <- gpustats:::vecchia_conditional_draws(case$locs, r, newlocs, p, m_pred = 10, nsim = 2, device = "cpu")
  set.seed(3)
  expect_identical(gpustats:::vecchia_conditional_draws(case$locs, r, newlocs, p, m_pred = 10, nsim = 2, device = "cpu"), d1)
})
