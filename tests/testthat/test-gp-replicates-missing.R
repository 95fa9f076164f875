# Replicates with missing values (y a matrix with NA in gp_fit): every
# observed value kept, against plain R computations replicate by replicate
# on the submatrix of the covariance at each replicate's observed locations.

missing_case <- function(n = 40, r = 7, seed = 11, sigma2 = 1.3, range = 0.25, smoothness = 0.9, nugget = 0.1) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  X <- cbind(`(Intercept)` = 1, x1 = locs[, 1])
  Y <- drop(X %*% c(2, -1)) + gp_simulate(locs, sigma2, range, smoothness, nugget, nsim = r, device = "cpu")
  Y[sample(length(Y), round(0.2 * length(Y)))] <- NA # scattered missing values
  Y[, 2] <- Y[, 1] # two replicates of one pattern...
  Y[is.na(Y[, 1]), 2] <- NA
  Y[, 2] <- Y[, 2] + 0.3
  Y[-7, 3] <- NA # a replicate observed once
  Y[7, 3] <- 1.7
  Y[, r] <- rnorm(n) # ...and one complete replicate
  Y[5, -c(4, r)] <- NA # a location few replicates observe
  list(locs = locs, X = X, Y = Y)
}

# Plain R: per replicate, the Gaussian log-density of its observed values
# with the pooled GLS coefficients; REML in Harville's form over all of them.
plain_missing <- function(Y, locs, X, sigma2, range, smoothness, nugget, method) {
  K <- matern_cov(locs, sigma2 = sigma2, range = range, smoothness = smoothness, device = "cpu") + diag(nugget, nrow(locs))
  plain_missing_cov(Y, X, K, method)
}

# The same with the data's covariance matrix K (the nugget's included).
plain_missing_cov <- function(Y, X, K, method) {
  p <- ncol(X)
  A <- matrix(0, p, p)
  b <- numeric(p)
  logdet <- 0
  N <- 0
  for (j in seq_len(ncol(Y))) {
    o <- !is.na(Y[, j])
    if (!any(o)) next
    Ki <- solve(K[o, o, drop = FALSE])
    Xo <- X[o, , drop = FALSE]
    A <- A + crossprod(Xo, Ki %*% Xo)
    b <- b + crossprod(Xo, Ki %*% Y[o, j])
    logdet <- logdet + as.numeric(determinant(K[o, o, drop = FALSE])$modulus)
    N <- N + sum(o)
  }
  beta <- if (p) drop(solve(A, b)) else numeric(0)
  q <- 0
  for (j in seq_len(ncol(Y))) {
    o <- !is.na(Y[, j])
    if (!any(o)) next
    res <- Y[o, j] - drop(X[o, , drop = FALSE] %*% beta)
    q <- q + sum(res * solve(K[o, o, drop = FALSE], res))
  }
  ll <- -0.5 * ((N - if (method == "reml") p else 0) * log(2 * pi) + logdet + q)
  if (method == "reml" && p) ll <- ll - 0.5 * as.numeric(determinant(A)$modulus)
  list(loglik = ll, beta = beta, vcov_beta = if (p) solve(A), K = K)
}

fit_at <- function(Y, locs, X, par, method = "reml", ...) {
  gp_fit(Y, locs, X = X, method = method, fixed = as.list(par), device = "cpu", control = list(trace = FALSE), ...)
}

test_that("the log-likelihood is the sum over replicates of their observed values' (random parameters, ML and REML)", {
  d <- missing_case()
  set.seed(3)
  for (i in 1:3) {
    par <- c(sigma2 = runif(1, 0.5, 2), range = runif(1, 0.05, 0.4), smoothness = runif(1, 0.3, 2),
             nugget = runif(1, 0.01, 0.3))
    for (method in c("ml", "reml")) for (X in list(d$X, d$X[, 1, drop = FALSE], matrix(0, nrow(d$locs), 0))) {
      fit <- suppressWarnings(fit_at(d$Y, d$locs, X, par, method))
      ref <- plain_missing(d$Y, d$locs, X, par[["sigma2"]], par[["range"]], par[["smoothness"]], par[["nugget"]], method)
      expect_lte(abs(fit$loglik / ref$loglik - 1), 1e-10)
      if (ncol(X)) {
        expect_lte(max(abs(fit$beta - ref$beta)), 1e-10)
        expect_lte(max(abs(fit$vcov_beta - ref$vcov_beta)), 1e-10)
      }
    }
  }
  fit <- fit_at(d$Y, d$locs, d$X, c(sigma2 = 1, range = 0.2, smoothness = 0.8, nugget = 0.05))
  expect_identical(fit$n, 40L) # every location kept
  expect_identical(fit$replicates, 7L)
  expect_identical(nobs(fit), sum(!is.na(d$Y)))
  expect_identical(fit$y, d$Y)
  expect_output(print(fit), sprintf("40 locations x 7 replicates \\(%d observed\\)", sum(!is.na(d$Y))))
})

test_that("covariance families other than the Matern fit and krige each pattern with their own covariance", {
  d <- missing_case()
  new <- rbind(c(0.3, 0.6), c(0.8, 0.1))
  X0 <- cbind(1, new[, 1])
  for (case in list(list(cov = "spherical", shape = list()), list(cov = "powexp", shape = list(power = 1.4)),
                    list(cov = "wendland", shape = list(kappa = 1, mu = 3.5)))) {
    cov_of <- function(a, b = NULL, nugget = 0) {
      do.call(gp_cov_matrix, c(list(a, b, cov = case$cov, sigma2 = 1.2, range = 0.3, nugget = nugget), case$shape))
    }
    fixed <- c(list(sigma2 = 1.2, range = 0.3, nugget = 0.08), case$shape)
    for (method in c("ml", "reml")) {
      fit <- fit_at(d$Y, d$locs, d$X, fixed, method, cov = case$cov)
      ref <- plain_missing_cov(d$Y, d$X, cov_of(d$locs, nugget = 0.08), method)
      expect_lte(abs(fit$loglik / ref$loglik - 1), 1e-10, label = paste(case$cov, method))
      expect_lte(max(abs(fit$beta - ref$beta)), 1e-10, label = paste(case$cov, method))
    }
    k <- predict(fit, new, X = X0)
    C0 <- cov_of(new, d$locs)
    for (j in c(1, 4)) {
      o <- !is.na(d$Y[, j])
      mean <- drop(X0 %*% ref$beta + C0[, o] %*% solve(ref$K[o, o], d$Y[o, j] - d$X[o, ] %*% ref$beta))
      expect_lte(max(abs(k[, j] - mean)), 1e-10, label = case$cov)
    }
  }
  # a free shape's derivatives sum over the patterns too: the Fisher information, and the analytic gradient
  # reaching the same maximum
  fit <- gp_fit(d$Y, d$locs, X = d$X, cov = "powexp", method = "ml", device = "cpu", control = list(trace = FALSE))
  expect_identical(fit$vcov_type, "fisher")
  expect_true(all(is.finite(diag(fit$vcov[c("range", "power"), c("range", "power")]))))
  analytic <- update(fit, control = list(trace = FALSE, gradient = "analytic"))
  expect_lte(abs(analytic$loglik - fit$loglik), 1e-6)
})

test_that("the tile Cholesky, mixed precision and mapped locations factor each pattern as the dense path does", {
  d <- missing_case(n = 30, r = 4)
  par <- c(sigma2 = 1.1, range = 0.2, smoothness = 0.8, nugget = 0.05)
  dense <- fit_at(d$Y, d$locs, d$X, par)
  old <- options(gpustats.gp_tiles = TRUE)
  tiled <- fit_at(d$Y, d$locs, d$X, par)
  options(old)
  expect_lte(abs(tiled$loglik / dense$loglik - 1), 1e-12)
  mixed <- fit_at(d$Y, d$locs, d$X, par, precision = "mixed", accuracy = 1e-15)
  expect_lte(abs(mixed$loglik / dense$loglik - 1), 1e-10)
  # equal ranges: the anisotropic model at any angle is the isotropic one
  aniso <- c(sigma2 = 1.1, range1 = 0.2, range2 = 0.2, angle = 0.7, smoothness = 0.8, nugget = 0.05)
  expect_lte(abs(fit_at(d$Y, d$locs, d$X, aniso, cov = "matern_aniso")$loglik / dense$loglik - 1), 1e-12)
  free <- gp_fit(d$Y, d$locs, X = d$X, cov = "matern_aniso", fixed = list(smoothness = 0.8), device = "cpu",
                 control = list(trace = FALSE, hessian = FALSE))
  expect_true(is.finite(free$loglik) && free$n == 30L)
})

test_that("an all-missing replicate is dropped with a message, its name kept; no location or all missing", {
  d <- missing_case(n = 30, r = 4)
  Y <- d$Y
  Y[, 3] <- NA
  expect_message(fit <- fit_at(Y, d$locs, d$X, c(sigma2 = 1, range = 0.2, smoothness = 0.8, nugget = 0.05)),
                 "dropped 1 replicate with no observed value")
  expect_identical(colnames(fit$y), c("rep_1", "rep_2", "rep_4"))
  ref <- plain_missing(Y, d$locs, d$X, 1, 0.2, 0.8, 0.05, "reml")
  expect_lte(abs(fit$loglik / ref$loglik - 1), 1e-10)
  expect_identical(colnames(predict(fit, d$locs[1:2, ] + 0.01, X = d$X[1:2, ])), c("rep_1", "rep_2", "rep_4"))
  # a location no replicate observes is dropped; a single replicate left is a data set of its own
  Y <- d$Y
  Y[9, ] <- NA
  expect_message(fit <- fit_at(Y, d$locs, d$X, c(sigma2 = 1, range = 0.2, smoothness = 0.8, nugget = 0.05)),
                 "dropped 1 location where no replicate is observed")
  expect_identical(fit$n, 29L)
  Y <- d$Y
  Y[, -1] <- NA
  said <- capture_messages(one <- fit_at(Y, d$locs, d$X, c(sigma2 = 1, range = 0.2, smoothness = 0.8, nugget = 0.05)))
  expect_match(said, sprintf("dropped %d locations where no replicate is observed", sum(is.na(d$Y[, 1]))), all = FALSE)
  expect_match(said, "dropped 3 replicates", all = FALSE)
  expect_identical(one$replicates, 1L)
  expect_identical(one$n, sum(!is.na(d$Y[, 1])))
  expect_error(gp_fit(matrix(NA_real_, 30, 3), d$locs, device = "cpu", control = list(trace = FALSE)),
               "No observations are left", class = "gpustats_error_argument")
  expect_error(gp_fit(d$Y, d$locs, X = d$X, approx = "vecchia", device = "cpu"), "approx = \"exact\"",
               class = "gpustats_error_argument")
})

test_that("predictions krige each replicate from its own observed values, the trend pooled", {
  d <- missing_case()
  par <- c(sigma2 = 1.1, range = 0.2, smoothness = 0.8, nugget = 0.05)
  fit <- fit_at(d$Y, d$locs, d$X, par)
  ref <- plain_missing(d$Y, d$locs, d$X, 1.1, 0.2, 0.8, 0.05, "reml")
  new <- rbind(c(0.3, 0.6), c(0.8, 0.1), c(0.5, 0.5))
  X0 <- cbind(1, new[, 1])
  k <- predict(fit, new, X = X0, se.fit = TRUE)
  C0 <- matern_cov(new, d$locs, sigma2 = 1.1, range = 0.2, smoothness = 0.8, device = "cpu")
  expect_equal(dim(k$fit), c(3L, 7L))
  expect_equal(dim(k$se.fit), c(3L, 7L))
  for (j in 1:7) {
    o <- !is.na(d$Y[, j])
    Ki <- solve(ref$K[o, o, drop = FALSE])
    c0 <- C0[, o, drop = FALSE]
    mean <- drop(X0 %*% ref$beta + c0 %*% Ki %*% (d$Y[o, j] - d$X[o, , drop = FALSE] %*% ref$beta))
    D <- t(X0) - crossprod(d$X[o, , drop = FALSE], Ki %*% t(c0))
    se <- sqrt(1.1 - rowSums((c0 %*% Ki) * c0) + colSums(D * (ref$vcov_beta %*% D)))
    expect_lte(max(abs(k$fit[, j] - mean)), 1e-10)
    expect_lte(max(abs(k$se.fit[, j] - se)), 1e-10)
  }
  ci <- predict(fit, new, X = X0, interval = "prediction")
  expect_equal(ci[, , "upr"] - ci[, , "fit"], qnorm(0.975) * sqrt(k$se.fit^2 + 0.05), tolerance = 1e-10)
  # fitted values: each replicate's kriging at its observed locations, NA where it is missing
  f <- fitted(fit)
  all <- predict(fit)
  expect_identical(is.na(f), is.na(d$Y))
  expect_equal(f[!is.na(d$Y)], all[!is.na(d$Y)])
  expect_false(anyNA(all))
  o <- !is.na(d$Y[, 4])
  K0 <- ref$K - diag(0.05, nrow(d$locs))
  trend <- drop(d$X %*% ref$beta)
  expect_lte(max(abs(f[o, 4] - (trend[o] + K0[o, o] %*% solve(ref$K[o, o], d$Y[o, 4] - trend[o])))), 1e-10)
  expect_equal(residuals(fit), d$Y - f)
  expect_equal(residuals(fit, type = "trend"), d$Y - trend)
})

test_that("simulations, variogram, standard errors and the formula form of replicates with missing values", {
  d <- missing_case(n = 30, r = 4)
  # without a nugget, conditional draws at observed locations are each replicate's data
  exact <- gp_fit(d$Y, d$locs, X = d$X, nugget = FALSE, device = "cpu", control = list(trace = FALSE, hessian = FALSE),
                  fixed = list(smoothness = 0.9, range = 0.2, sigma2 = 1))
  s <- as.matrix(simulate(exact, nsim = 2, seed = 1, newdata = d$locs, X = d$X))
  expect_equal(dim(s), c(30L, 8L))
  Y2 <- d$Y[, c(1:4, 1:4)]
  expect_lte(max(abs(s - Y2)[!is.na(Y2)]), 1e-6)
  expect_equal(dim(simulate(exact, nsim = 3, seed = 1)), c(30L, 3L))
  # the variogram of the residuals pools the pairs each replicate observes
  fit <- gp_fit(d$Y, d$locs, X = d$X, fixed = list(smoothness = 0.9), device = "cpu", control = list(trace = FALSE))
  expect_identical(fit$vcov_type, "hessian") # REML of replicates, as for complete ones
  expect_true(all(is.finite(sqrt(diag(vcov(fit))))))
  expect_message(V <- vcov(fit, type = "fisher"), "under REML one data set")
  expect_equal(V, vcov(fit))
  z <- residuals(fit, type = "trend")
  v <- gp_variogram(fit, bins = 4, cutoff = 0.6)
  pairs <- utils::combn(30, 2)
  h <- sqrt(colSums((t(d$locs[pairs[1, ], ]) - t(d$locs[pairs[2, ], ]))^2))
  sq <- 0.5 * (z[pairs[1, ], ] - z[pairs[2, ], ])^2
  bin <- cut(h, seq(0, 0.6, length.out = 5), include.lowest = TRUE)
  gamma <- tapply(rowSums(sq, na.rm = TRUE), bin, sum) / tapply(rowSums(!is.na(sq)), bin, sum)
  expect_equal(v$gamma, as.vector(gamma), tolerance = 1e-12)
  expect_equal(sum(v$np), sum(!is.na(sq[h <= 0.6, ])))
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fit))
  # likelihood-ratio tests compare fits of the same values, missing in the same places
  small <- update(fit, X = d$X[, 1, drop = FALSE], method = "ml")
  large <- update(fit, method = "ml")
  expect_equal(anova(small, large)[["Chisq"]][2], 2 * (large$loglik - small$loglik))
  other <- d$Y
  other[1, 1] <- NA
  expect_error(anova(small, update(large, y = other)), "other data", class = "gpustats_error_argument")
  if (requireNamespace("sf", quietly = TRUE)) {
    points <- sf::st_as_sf(data.frame(x = c(0.2, 0.5), y = c(0.3, 0.6)), coords = c("x", "y"))
    out <- predict(fit, points, X = cbind(1, c(0.2, 0.5)), se.fit = TRUE)
    expect_equal(sf::st_drop_geometry(out)[["se.fit.rep_3"]],
                 predict(fit, cbind(c(0.2, 0.5), c(0.3, 0.6)), X = cbind(1, c(0.2, 0.5)), se.fit = TRUE)$se.fit[, 3])
  }
  # the formula form keeps every observed value too
  df <- data.frame(a = d$Y[, 1], b = d$Y[, 2], c = d$Y[, 3], e = d$Y[, 4], x = d$locs[, 1], y = d$locs[, 2])
  f1 <- gp_fit(cbind(a, b, c, e) ~ x, df, coords = ~ x + y, fixed = list(smoothness = 0.9), device = "cpu",
               control = list(trace = FALSE))
  expect_equal(f1$loglik, fit$loglik, tolerance = 1e-10)
  expect_identical(colnames(fitted(f1)), c("a", "b", "c", "e"))
  df$x[3] <- NA # a missing covariate still drops its row
  expect_message(f2 <- gp_fit(cbind(a, b, c, e) ~ x, df, coords = ~ x + y, fixed = list(smoothness = 0.9), device = "cpu",
                              control = list(trace = FALSE)), "dropped 1 row")
  expect_identical(f2$n, 29L)
})

test_that("ozone2: all 153 stations kept, the log-likelihood the plain R one at the estimates", {
  skip_if_not_installed("fields")
  data(ozone2, package = "fields", envir = environment())
  Y <- t(ozone2$y) # a row per station, a column per day
  locs <- ozone2$lon.lat
  fit <- suppressWarnings(gp_fit(Y, locs, cov = "exponential", device = "cpu",
                                 control = list(trace = FALSE, hessian = FALSE)))
  expect_identical(fit$n, 153L)
  expect_identical(fit$replicates, 89L)
  expect_identical(nobs(fit), sum(!is.na(ozone2$y)))
  cv <- fit$covariance
  ref <- plain_missing(Y, locs, fit$X, cv[["sigma2"]], cv[["range"]], 0.5, cv[["nugget"]], "reml")
  expect_lte(abs(fit$loglik / ref$loglik - 1), 1e-8)
  expect_lte(max(abs(fit$beta - ref$beta)), 1e-8 * max(abs(ref$beta)))
})

test_that("the GPU fits and krigs replicates with missing values as the CPU does", {
  skip_without_gpu()
  d <- missing_case(n = 300, r = 12)
  par <- list(sigma2 = 1.1, range = 0.2, smoothness = 0.8, nugget = 0.05)
  g <- gp_fit(d$Y, d$locs, X = d$X, fixed = par, device = "gpu", control = list(trace = FALSE))
  c <- gp_fit(d$Y, d$locs, X = d$X, fixed = par, device = "cpu", control = list(trace = FALSE))
  expect_identical(g$device, "gpu")
  expect_lte(abs(g$loglik / c$loglik - 1), 1e-12)
  new <- matrix(runif(20), ncol = 2)
  pg <- predict(g, new, X = cbind(1, new[, 1]), se.fit = TRUE, device = "gpu")
  pc <- predict(c, new, X = cbind(1, new[, 1]), se.fit = TRUE, device = "cpu")
  expect_lte(max(abs(pg$fit - pc$fit)), 1e-9)
  expect_lte(max(abs(pg$se.fit - pc$se.fit)), 1e-9)
  fg <- gp_fit(d$Y, d$locs, X = d$X, fixed = list(smoothness = 0.8), device = "gpu", control = list(trace = FALSE))
  fc <- gp_fit(d$Y, d$locs, X = d$X, fixed = list(smoothness = 0.8), device = "cpu", control = list(trace = FALSE))
  expect_lte(abs(fg$loglik / fc$loglik - 1), 1e-9)
})

test_that("under ML the Fisher information sums each replicate's over its observed values", {
  d <- missing_case(n = 30, r = 5)
  fit <- gp_fit(d$Y, d$locs, X = d$X, method = "ml", fixed = list(smoothness = 0.9), device = "cpu",
                control = list(trace = FALSE))
  expect_identical(fit$vcov_type, "fisher")
  cv <- fit$covariance
  # plain R: 1/2 sum_j tr(K_j^-1 dK_a K_j^-1 dK_b), dK of the range by central differences
  K <- function(range) matern_cov(d$locs, sigma2 = cv[["sigma2"]], range = range, smoothness = 0.9, device = "cpu")
  h <- 1e-5 * cv[["range"]]
  dK <- list(sigma2 = K(cv[["range"]]) / cv[["sigma2"]], range = (K(cv[["range"]] + h) - K(cv[["range"]] - h)) / (2 * h),
             nugget = diag(30))
  Kn <- K(cv[["range"]]) + diag(cv[["nugget"]], 30)
  I <- matrix(0, 3, 3, dimnames = list(names(dK), names(dK)))
  for (j in 1:5) {
    o <- !is.na(d$Y[, j])
    Ki <- solve(Kn[o, o])
    A <- lapply(dK, function(D) Ki %*% D[o, o])
    I <- I + 0.5 * outer(1:3, 1:3, Vectorize(function(a, b) sum(diag(A[[a]] %*% A[[b]]))))
  }
  expect_equal(fit$vcov[names(dK), names(dK)], solve(I), tolerance = 1e-6)
  # the analytic gradient of the search reaches the same maximum
  analytic <- update(fit, control = list(trace = FALSE, gradient = "analytic"))
  expect_lte(abs(analytic$loglik - fit$loglik), 1e-6)
})

test_that("a binomial's successes and failures are not replicates: a row with a missing one goes whole", {
  set.seed(5)
  locs <- matrix(runif(60), ncol = 2)
  succ <- rbinom(30, 5, 0.4)
  succ[3] <- NA
  df <- data.frame(s = succ, f = 5 - succ, x = locs[, 1], y = locs[, 2])
  fixed <- list(smoothness = 0.5, range = 0.2)
  expect_message(a <- gp_fit(cbind(s, f) ~ 1, df, coords = ~ x + y, family = binomial(), fixed = fixed,
                             control = list(trace = FALSE, hessian = FALSE)), "dropped 1 row")
  expect_identical(a$n, 29L)
  expect_message(b <- gp_fit(cbind(succ, 5 - succ), locs, family = binomial(), fixed = fixed,
                             control = list(trace = FALSE, hessian = FALSE)), "dropped 1 observation")
  expect_equal(b$loglik, a$loglik, tolerance = 1e-8)
})
