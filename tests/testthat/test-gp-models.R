# Gaussian-process models: trends, REML, covariance models, kriging, conditional
# simulation, intervals and diagnostics, against dense computations and peers.

quiet <- list(trace = FALSE)

# Fits of meuse whose estimates rest on a search bound (smoothness of the
# Matérn, the REML range of a constant mean), without their warning.
at_bound_ok <- function(expr) {
  withCallingHandlers(expr, gpustats_warning_at_bound = function(w) invokeRestart("muffleWarning"))
}

# The dense ML or REML log-likelihood at given covariance parameters with the
# trend profiled by GLS, and sigma2 held at its value.
dense_trend_loglik <- function(y, X, S, method) {
  Si <- solve(S)
  XSX <- crossprod(X, Si %*% X)
  beta <- solve(XSX, crossprod(X, Si %*% y))
  r <- y - X %*% beta
  n <- length(y)
  p <- ncol(X)
  reml <- method == "reml"
  -0.5 * ((if (reml) n - p else n) * log(2 * pi) + determinant(S)$modulus + (if (reml) determinant(XSX)$modulus else 0) +
            sum(r * (Si %*% r)))
}

meuse_data <- function() {
  skip_if_not_installed("sp")
  e <- new.env()
  utils::data("meuse", "meuse.grid", package = "sp", envir = e)
  list(meuse = e$meuse, grid = e$meuse.grid)
}

test_that("the trend is profiled by GLS: ML and REML equal dense computations", {
  set.seed(1)
  locs <- matrix(runif(300), ncol = 2)
  X <- cbind(1, locs[, 1])
  y <- drop(X %*% c(3, -2)) + gp_simulate(locs, 1, 0.2, 1, nugget = 0.1, device = "cpu")
  for (method in c("ml", "reml")) {
    f <- gp_fit(y, locs, X = X, method = method, fixed = list(sigma2 = 1.3, range = 0.2, smoothness = 1, nugget = 0.1),
                control = quiet, device = "cpu")
    S <- matern_cov(locs, sigma2 = 1.3, range = 0.2, smoothness = 1, nugget = 0.1, device = "cpu")
    expect_equal(f$loglik, as.numeric(dense_trend_loglik(y, X, S, method)), tolerance = 1e-10)
    Si <- solve(S)
    beta <- solve(crossprod(X, Si %*% X), crossprod(X, Si %*% y))
    expect_equal(unname(f$beta), drop(beta), tolerance = 1e-10)
    expect_equal(unname(vcov(f)), unname(solve(crossprod(X, Si %*% X))), tolerance = 1e-10)
  }
  # sigma2 profiled: Q / n for ML, Q / (n - p) for REML, at the maximum of the full likelihood
  fm <- gp_fit(y, locs, X = X, method = "ml", fixed = list(range = 0.2, smoothness = 1), nugget = FALSE,
               control = quiet, device = "cpu")
  fr <- gp_fit(y, locs, X = X, method = "reml", fixed = list(range = 0.2, smoothness = 1), nugget = FALSE,
               control = quiet, device = "cpu")
  expect_equal(fr$covariance[["sigma2"]] / fm$covariance[["sigma2"]], 150 / 148, tolerance = 1e-10)
  expect_s3_class(summary(fr), "summary.gp_fit")
  expect_output(print(summary(fr)), "Pr\\(>\\|z\\|\\)")
  expect_identical(names(coef(fr)), c("X1", "X2", "sigma2", "range", "smoothness", "nugget"))
})

test_that("ML fits of meuse reach fields' maximum; fields' REML is the ML profile plus 1/2 log |Omega|", {
  skip_if_not_installed("fields")
  suppressPackageStartupMessages(withr::local_package("fields")) # spatialProcess finds its covariance by name
  d <- meuse_data()$meuse
  xy <- as.matrix(d[, c("x", "y")])
  z <- log(d$zinc)
  Z <- sqrt(d$dist)
  for (covariate in c(FALSE, TRUE)) {
    sp <- if (covariate) {
      fields::spatialProcess(xy, z, Z = Z, smoothness = 0.5, mKrig.args = list(m = 1))
    } else {
      fields::spatialProcess(xy, z, smoothness = 0.5, mKrig.args = list(m = 1))
    }
    f <- gp_fit(z, xy, X = if (covariate) cbind(1, Z), cov = "exponential", method = "ml", control = quiet,
                device = "cpu")
    expect_gte(f$loglik, sp$summary[["lnProfileLike.FULL"]] - 1e-8)
  }
  # the same quantities give fields' REML number at any parameters
  mk <- fields::mKrig(xy, z, Z = Z, m = 1, aRange = 200, lambda = 0.3,
                      cov.args = list(Covariance = "Matern", smoothness = 0.5))
  f <- gp_fit(z, xy, X = cbind(1, Z), cov = "exponential", method = "ml",
              fixed = list(sigma2 = 1, range = 200, nugget = 0.3), control = quiet, device = "cpu")
  S <- matern_cov(xy, range = 200, smoothness = 0.5, nugget = 0.3, device = "cpu")
  X <- cbind(1, Z)
  Si <- solve(S)
  XSX <- crossprod(X, Si %*% X)
  r <- z - X %*% solve(XSX, crossprod(X, Si %*% z))
  n <- length(z)
  q <- sum(r * (Si %*% r))
  fields_reml <- -n / 2 - n / 2 * log(2 * pi) - n / 2 * log(q / n) - 0.5 * determinant(S)$modulus -
    0.5 * determinant(XSX)$modulus
  expect_equal(as.numeric(fields_reml), mk$summary[["lnProfileREML.FULL"]], tolerance = 1e-10)
  expect_equal(f$loglik, -0.5 * (n * log(2 * pi) + as.numeric(determinant(S)$modulus) + q), tolerance = 1e-10)
})

test_that("directional variograms equal gstat's variogram(alpha = , tol.hor = ) on meuse", {
  skip_if_not_installed("gstat")
  skip_if_not_installed("sp")
  m <- meuse_data()
  z <- log(m$meuse$zinc)
  xy <- as.matrix(m$meuse[, c("x", "y")])
  obs <- m$meuse
  sp::coordinates(obs) <- ~ x + y
  for (case in list(list(alpha = c(0, 45, 90, 135)), list(alpha = 30, tol.hor = 10), list(alpha = c(200, 70), tol.hor = 30))) {
    v <- do.call(gp_variogram, c(list(z, xy), case))
    g <- do.call(gstat::variogram, c(list(log(zinc) ~ 1, obs), case))
    expect_identical(v$np, as.integer(g$np))
    expect_equal(v$gamma, g$gamma, tolerance = 1e-13)
    expect_equal(v$dist, g$dist, tolerance = 1e-13)
    expect_equal(v$dir.hor, g$dir.hor)
  }
  # the default tolerance shares every pair out once between the directions (none on a boundary here)
  all4 <- gp_variogram(z, xy, alpha = c(0, 45, 90, 135))
  expect_identical(sum(all4$np), sum(gp_variogram(z, xy)$np))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(all4))
  expect_error(gp_variogram(z, xy, alpha = NA), "directions", class = "gpustats_error_argument")
  expect_error(gp_variogram(z, xy, alpha = 0, tol.hor = 100), "at most 90", class = "gpustats_error_argument")
  expect_error(gp_variogram(z, cbind(xy, 1), alpha = 0), "2-D", class = "gpustats_error_argument")
})

test_that("universal kriging equals gstat's krige() to 1e-10, mean and variance", {
  skip_if_not_installed("gstat")
  skip_if_not_installed("sp")
  m <- meuse_data()
  for (cov in c("exponential", "matern")) {
    fit <- at_bound_ok(gp_fit(log(zinc) ~ sqrt(dist), m$meuse, coords = ~ x + y, cov = cov, method = "ml",
                              control = quiet, device = "cpu"))
    p <- fit$covariance
    model <- gstat::vgm(psill = p[["sigma2"]], if (cov == "exponential") "Exp" else "Mat", range = p[["range"]],
                        nugget = p[["nugget"]], kappa = p[["smoothness"]])
    obs <- m$meuse
    sp::coordinates(obs) <- ~ x + y
    grid <- m$grid[seq(1, nrow(m$grid), by = 7), ]
    target <- grid
    sp::coordinates(target) <- ~ x + y
    k <- gstat::krige(log(zinc) ~ sqrt(dist), obs, target, model = model, debug.level = 0)
    pr <- predict(fit, grid, se.fit = TRUE, device = "cpu")
    expect_equal(pr$fit, k$var1.pred, tolerance = 1e-10)
    # gstat's variance is that of a new observation: the nugget included
    expect_equal(pr$se.fit^2 + p[["nugget"]], k$var1.var, tolerance = 1e-10)
    pi_ <- predict(fit, grid, interval = "prediction", level = 0.9, device = "cpu")
    expect_equal(unname(pi_[, "upr"] - pi_[, "fit"]), qnorm(0.95) * sqrt(k$var1.var), tolerance = 1e-10)
  }
})

test_that("an anisotropic fit in gstat's convention krigs as gstat's krige() with vgm(anis =) to 1e-10", {
  skip_if_not_installed("gstat")
  skip_if_not_installed("sp")
  m <- meuse_data()
  obs <- m$meuse
  sp::coordinates(obs) <- ~ x + y
  grid <- m$grid[seq(1, nrow(m$grid), by = 7), ]
  target <- grid
  sp::coordinates(target) <- ~ x + y
  for (cov in c("exponential_aniso", "matern_aniso")) {
    fit <- at_bound_ok(gp_fit(log(zinc) ~ sqrt(dist), m$meuse, coords = ~ x + y, cov = cov, method = "ml",
                              control = quiet, device = "cpu"))
    p <- fit$covariance
    a <- gp_anisotropy(fit, "gstat")
    expect_named(a, c("range", "angle", "ratio"))
    expect_true(a[["angle"]] >= 0 && a[["angle"]] < 180 && a[["ratio"]] > 0 && a[["ratio"]] <= 1)
    expect_equal(a[["range"]], max(p[c("range1", "range2")]))
    # and back: the same ellipse (the longer range becomes range1)
    back <- gp_anisotropy(a, "radians_x")
    same <- function(q) gpustats:::gp_cov_map(fit$model, q, as.matrix(m$meuse[1:20, c("x", "y")]))$locs
    expect_equal(as.matrix(dist(same(back))), as.matrix(dist(same(p[fit$model$params]))), tolerance = 1e-12)
    model <- gstat::vgm(psill = p[["sigma2"]], if (cov == "exponential_aniso") "Exp" else "Mat", range = a[["range"]],
                        nugget = p[["nugget"]], kappa = p[["smoothness"]], anis = a[c("angle", "ratio")])
    k <- gstat::krige(log(zinc) ~ sqrt(dist), obs, target, model = model, debug.level = 0)
    pr <- predict(fit, grid, se.fit = TRUE, device = "cpu")
    expect_equal(pr$fit, k$var1.pred, tolerance = 1e-10)
    expect_equal(pr$se.fit^2 + p[["nugget"]], k$var1.var, tolerance = 1e-10)
    # print() and summary() give gstat's values
    expect_output(print(fit), sprintf("range = %s, anis = c(%s, ", format(a[["range"]], digits = 6),
                                      format(a[["angle"]], digits = 6)), fixed = TRUE)
    expect_output(print(summary(fit)), "In gstat's convention", fixed = TRUE)
  }
  # gstat's values go in as fixed values: the fit at them has gstat's likelihood surface point
  g <- c(range = a[["range"]], angle = a[["angle"]], ratio = a[["ratio"]])
  held <- gp_fit(log(zinc) ~ sqrt(dist), m$meuse, coords = ~ x + y, cov = "matern_aniso", method = "ml",
                 fixed = c(as.list(gp_anisotropy(g, "radians_x")), smoothness = p[["smoothness"]]),
                 control = quiet, device = "cpu")
  expect_equal(held$loglik, fit$loglik, tolerance = 1e-6)
})

test_that("gp_anisotropy() maps the conventions both ways and refuses what has no gstat form", {
  deg <- pi / 180
  expect_equal(gp_anisotropy(c(range1 = 1200, range2 = 600, angle = 69.1 * deg), "gstat"),
               c(range = 1200, angle = 20.9, ratio = 0.5))
  # range2 the longer: its axis is a quarter turn on
  expect_equal(gp_anisotropy(c(range1 = 600, range2 = 1200, angle = 69.1 * deg), "gstat"),
               c(range = 1200, angle = 110.9, ratio = 0.5))
  expect_equal(gp_anisotropy(list(range = 1200, angle = 20.9, ratio = 0.5, nugget = 1), "radians_x"),
               c(range1 = 1200, range2 = 600, angle = 69.1 * deg))
  expect_equal(gp_anisotropy(c(range = 10, angle = 135, ratio = 1), "radians_x")[["angle"]], 135 * deg)
  expect_equal(gp_anisotropy(c(range = 10, angle = 20, ratio = 0.3)), c(range = 10, angle = 20, ratio = 0.3))
  expect_error(gp_anisotropy(c(range = 10, angle = 20, ratio = 2)), "at most 1", class = "gpustats_error_argument")
  expect_error(gp_anisotropy(c(range = 10, angle = 20)), class = "gpustats_error_argument")
  expect_error(gp_anisotropy(c(range1 = -1, range2 = 1, angle = 0)), class = "gpustats_error_argument")
  expect_error(gp_anisotropy(c(range1 = 1, range2 = 1, angle = 0), "north"), class = "gpustats_error_argument")
  set.seed(3)
  locs <- matrix(runif(120), ncol = 2)
  iso <- gp_fit(rnorm(60), locs, cov = "exponential", control = quiet, device = "cpu")
  expect_error(gp_anisotropy(iso), "2-D geometric anisotropy", class = "gpustats_error_argument")
})

test_that("formula, matrix, sf and sp inputs give one fit; NA rows are dropped with a message", {
  m <- meuse_data()$meuse
  f1 <- gp_fit(log(zinc) ~ sqrt(dist), m, coords = ~ x + y, cov = "exponential", control = quiet, device = "cpu")
  f2 <- gp_fit(log(m$zinc), m[, c("x", "y")], X = cbind(1, sqrt(m$dist)), cov = "exponential", control = quiet,
               device = "cpu")
  expect_equal(f1$loglik, f2$loglik, tolerance = 1e-12)
  expect_equal(unname(coef(f1)), unname(coef(f2)), tolerance = 1e-10)
  s <- m
  sp::coordinates(s) <- ~ x + y
  f3 <- gp_fit(log(zinc) ~ sqrt(dist), s, cov = "exponential", control = quiet, device = "cpu")
  expect_equal(f3$loglik, f1$loglik, tolerance = 1e-12)
  skip_if_not_installed("sf")
  f4 <- gp_fit(log(zinc) ~ sqrt(dist), sf::st_as_sf(m, coords = c("x", "y")), cov = "exponential", control = quiet,
               device = "cpu")
  expect_equal(f4$loglik, f1$loglik, tolerance = 1e-12)
  # predictions from each form agree; newdata columns are matched by name
  g <- meuse_data()$grid[1:20, ]
  p1 <- predict(f1, g, device = "cpu")
  expect_equal(predict(f2, g[, c("y", "x")], X = cbind(1, sqrt(g$dist)), device = "cpu"), p1, tolerance = 1e-10)
  expect_equal(predict(f4, sf::st_as_sf(g, coords = c("x", "y")), device = "cpu")$fit, p1, tolerance = 1e-10)
  # missing responses are dropped, with a message that counts them
  m$zinc[c(3, 9)] <- NA
  expect_message(f5 <- gp_fit(log(zinc) ~ sqrt(dist), m, coords = ~ x + y, cov = "exponential", control = quiet,
                              device = "cpu"), "dropped 2 rows")
  expect_identical(nobs(f5), 153L)
  y <- log(m$zinc)
  expect_message(at_bound_ok(gp_fit(y, m[, c("x", "y")], cov = "exponential", control = quiet, device = "cpu")), "dropped 2")
})

test_that("bad data, models and newdata get clear errors or warnings", {
  m <- meuse_data()$meuse
  fit <- gp_fit(log(zinc) ~ sqrt(dist), m, coords = ~ x + y, cov = "exponential", control = quiet, device = "cpu")
  expect_error(gp_fit(log(zinc) ~ sqrt(dist), m, control = quiet), "coords", class = "gpustats_error_argument")
  expect_error(gp_fit(log(zinc) ~ sqrt(dist), m, coords = ~ x + z, control = quiet), "no column",
               class = "gpustats_error_argument")
  expect_error(gp_fit(log(zinc) ~ nothere, m, coords = ~ x + y, control = quiet), class = "gpustats_error_argument")
  expect_error(gp_fit(log(zinc) ~ dist + I(2 * dist), m, coords = ~ x + y, control = quiet), "collinear",
               class = "gpustats_error_argument")
  expect_error(gp_fit(log(zinc) ~ 1, m, coords = ~ x + y, cov = "gauss", control = quiet), "not a covariance model",
               class = "gpustats_error_argument")
  expect_error(gp_fit(log(zinc) ~ 1, m, coords = ~ x + y, cov = "exponential", fixed = list(smoothness = 1),
                      control = quiet), "smoothness 0.5", class = "gpustats_error_argument")
  expect_error(gp_fit(log(zinc) ~ 1, m, coords = ~ x, cov = "matern_aniso", control = quiet), "2-D or 3-D",
               class = "gpustats_error_argument")
  expect_equal(predict(fit, device = "cpu"), fitted(fit), tolerance = 1e-12)
  expect_error(predict(fit, m[, c("x", "y")]), "no column.*dist", class = "gpustats_error_argument")
  swapped <- data.frame(x = m$y, y = m$x, dist = m$dist)
  expect_warning(predict(fit, swapped, device = "cpu"), "far outside", class = "gpustats_warning_extrapolation")
  expect_warning(gp_fit(log(m$zinc), m[, c("x", "y")], X = matrix(0, nrow(m), 0), control = quiet, device = "cpu"),
                 "mean zero", class = "gpustats_warning_zero_mean")
  ll <- cbind(runif(40, 0, 10), runif(40, 40, 50))
  expect_warning(gp_loglik(rnorm(40), ll, 1, 300, 1.5, distance = "great_circle", device = "cpu"),
                 class = "gpustats_warning_great_circle")
  expect_error(gp_fit(rnorm(40), ll, cov = "matern_aniso", distance = "great_circle", control = quiet),
               "isotropic", class = "gpustats_error_argument")
})

test_that("anisotropic and space-time likelihoods equal dense computations on mapped coordinates", {
  set.seed(2)
  locs <- matrix(runif(400), ncol = 2)
  y <- rnorm(200)
  a <- 0.7
  Q <- matrix(c(cos(a), sin(a), -sin(a), cos(a)), 2)
  u <- sweep(locs %*% Q, 2, c(0.3, 0.05), "/")
  S <- matern_cov(u, sigma2 = 1.2, range = 1, smoothness = 0.8, nugget = 0.05, device = "cpu")
  f <- gp_fit(y, locs, cov = "matern_aniso", method = "ml",
              fixed = list(sigma2 = 1.2, range1 = 0.3, range2 = 0.05, angle = a, smoothness = 0.8, nugget = 0.05),
              control = quiet, device = "cpu")
  expect_equal(f$loglik, as.numeric(dense_trend_loglik(y, matrix(1, 200), S, "ml")), tolerance = 1e-10)
  # the principal axis of range1 is (cos a, sin a): a displacement along it of range1 has distance 1
  d <- rbind(c(0, 0), 0.3 * c(cos(a), sin(a)))
  expect_equal(matern_cov(sweep(d %*% Q, 2, c(0.3, 0.05), "/"), range = 1, smoothness = 0.5, device = "cpu")[1, 2],
               exp(-1), tolerance = 1e-14)
  # space-time: time scaled by its own range
  st <- cbind(locs, t = rep(1:5, 40))
  v <- cbind(locs / 0.2, st[, 3] / 3)
  S <- matern_cov(v, sigma2 = 1, range = 1, smoothness = 0.5, nugget = 0.1, device = "cpu")
  f <- gp_fit(y, st, cov = "exponential_spacetime", method = "reml",
              fixed = list(sigma2 = 1, range = 0.2, range_time = 3, nugget = 0.1), control = quiet, device = "cpu")
  expect_equal(f$loglik, as.numeric(dense_trend_loglik(y, matrix(1, 200), S, "reml")), tolerance = 1e-10)
  # 3-D: a proper rotation
  Q3 <- gpustats:::gp_cov_rotation(3L, c(angle1 = 0.3, angle2 = -0.4, angle3 = 1.1))
  expect_equal(crossprod(Q3), diag(3), tolerance = 1e-14)
  expect_equal(det(Q3), 1, tolerance = 1e-14)
})

test_that("every covariance model recovers the parameters of simulated data", {
  set.seed(3)
  locs <- matrix(runif(1200), ncol = 2)
  a <- 0.5
  Q <- matrix(c(cos(a), sin(a), -sin(a), cos(a)), 2)
  cases <- list(
    list(cov = "matern", truth = c(range = 0.1, smoothness = 1.2), map = locs, range = 0.1),
    list(cov = "exponential", truth = c(range = 0.15), map = locs, range = 0.15),
    list(cov = "matern52", truth = c(range = 0.08), map = locs, range = 0.08),
    list(cov = "exponential_aniso", truth = c(range1 = 0.3, range2 = 0.06, angle = a),
         map = sweep(locs %*% Q, 2, c(0.3, 0.06), "/"), range = 1)
  )
  for (case in cases) {
    smooth <- if (case$cov == "matern") 1.2 else c(exponential = 0.5, matern52 = 2.5, exponential_aniso = 0.5)[[case$cov]]
    y <- 1 + gp_simulate(case$map, sigma2 = 1, range = case$range, smoothness = smooth, nugget = 0.02, device = "cpu")
    f <- gp_fit(y, locs, cov = case$cov, control = quiet, device = "cpu")
    expect_true(f$converged)
    est <- f$covariance[names(case$truth)]
    se <- sqrt(diag(f$vcov))[names(case$truth)]
    expect_true(all(abs(est - case$truth) < 4 * se), label = paste(case$cov, paste(signif(est, 3), collapse = " ")))
  }
})

test_that("conditional simulation has the kriging mean and variance, and honours the data", {
  set.seed(4)
  locs <- matrix(runif(200), ncol = 2)
  y <- 5 + gp_simulate(locs, 1, 0.2, 1.5, nugget = 0.01, device = "cpu")
  fit <- gp_fit(y, locs, cov = "matern32", control = quiet, device = "cpu")
  new <- rbind(c(0.5, 0.5), c(0.05, 0.95), locs[1, ])
  k <- predict(fit, new, se.fit = TRUE, device = "cpu")
  sims <- as.matrix(simulate(fit, nsim = 4000, seed = 9, newdata = new, device = "cpu"))
  expect_identical(dim(sims), c(3L, 4000L))
  # Monte Carlo error of the mean is se / sqrt(4000); of the variance about var * sqrt(2 / 4000)
  expect_true(all(abs(rowMeans(sims) - k$fit) < 5 * k$se.fit / sqrt(4000)))
  expect_true(all(abs(apply(sims, 1, var) / k$se.fit^2 - 1) < 5 * sqrt(2 / 4000)))
  expect_identical(simulate(fit, 2, seed = 1, newdata = new, device = "cpu"),
                   simulate(fit, 2, seed = 1, newdata = new, device = "cpu"))
  un <- simulate(fit, nsim = 3, seed = 2, device = "cpu")
  expect_identical(dim(un), c(100L, 3L))
  expect_lt(abs(mean(as.matrix(un)) - fit$beta[[1]]), 1.5)
})

test_that("simulate takes newdata in every form predict takes and reports progress on large problems", {
  set.seed(6)
  locs <- matrix(runif(200), ncol = 2, dimnames = list(NULL, c("x", "y")))
  y <- 1 + gp_simulate(locs, 1, 0.2, 1, nugget = 0.01, device = "cpu")
  fit <- gp_fit(y, locs, cov = "matern32", control = quiet, device = "cpu")
  df <- data.frame(z = y, east = locs[, 1], north = locs[, 2])
  fit_f <- gp_fit(z ~ 1, df, coords = ~ east + north, cov = "matern32", control = quiet, device = "cpu")
  new <- cbind(x = c(0.5, 0.1, 0.8), y = c(0.4, 0.9, 0.2))
  ref <- simulate(fit, 3, seed = 1, newdata = new, device = "cpu")
  # columns matched by name, in any order; sf and sp points (whose draws come as their columns)
  same <- function(f, nd) {
    s <- simulate(f, 3, seed = 1, newdata = nd, device = "cpu")
    expect_equal(if (inherits(s, "sf")) sf::st_drop_geometry(s) else if (isS4(s)) s@data else s, ref, tolerance = 1e-6)
  }
  same(fit, data.frame(y = new[, 2], x = new[, 1]))
  same(fit_f, data.frame(north = new[, 2], east = new[, 1]))
  if (requireNamespace("sf", quietly = TRUE)) {
    same(fit_f, sf::st_as_sf(data.frame(east = new[, 1], north = new[, 2]), coords = c("east", "north")))
  }
  if (requireNamespace("sp", quietly = TRUE)) {
    sp_new <- data.frame(east = new[, 1], north = new[, 2])
    sp::coordinates(sp_new) <- ~ east + north
    same(fit_f, sp_new)
  }
  expect_error(simulate(fit_f, 1, newdata = data.frame(a = 1, b = 2), device = "cpu"), class = "gpustats_error_argument")
  # a simulation of 1000 new locations from 1000 observations shows its steps
  labels <- new.env()
  labels$seen <- character(0)
  trace("gs_progress_bar", where = asNamespace("gpustats"), print = FALSE,
        exit = bquote(if (!is.null(returnValue())) assign("seen", c(get("seen", .(labels)), label), envir = .(labels))))
  on.exit(untrace("gs_progress_bar", where = asNamespace("gpustats")))
  big <- matrix(runif(2000), ncol = 2)
  yb <- gp_simulate(big, 1, 0.1, 0.5, nugget = 0.1, device = "cpu")
  fixed <- list(sigma2 = 1, range = 0.1, smoothness = 0.5, nugget = 0.1)
  fit_b <- gp_fit(yb, big, fixed = fixed, control = list(trace = FALSE, hessian = FALSE), device = "cpu")
  labels$seen <- character(0)
  s <- simulate(fit_b, 1, seed = 3, newdata = matrix(runif(2000), ncol = 2), device = "cpu")
  expect_identical(dim(s), c(1000L, 1L))
  expect_setequal(labels$seen, c("simulate: drawing", "simulate: factoring the covariance", "simulate: kriging"))
})

test_that("profile intervals bracket the estimate where the profile drops by qchisq(level, 1) / 2", {
  set.seed(5)
  locs <- matrix(runif(300), ncol = 2)
  y <- 2 + gp_simulate(locs, 1, 0.1, 0.5, nugget = 0.05, device = "cpu")
  fit <- gp_fit(y, locs, cov = "exponential", control = quiet, device = "cpu")
  ci <- confint(fit, c("range", "sigma2"))
  expect_true(all(ci[, 1] < fit$covariance[rownames(ci)] & fit$covariance[rownames(ci)] < ci[, 2]))
  for (name in rownames(ci)) {
    for (limit in ci[name, ]) {
      drop <- fit$loglik - gpustats:::profile_loglik(fit, name, limit)
      expect_equal(drop, qchisq(0.95, 1) / 2, tolerance = 2e-3)
    }
  }
  w <- confint(fit, method = "wald")
  expect_true(all(w[c("sigma2", "range"), 1] > 0))
  expect_equal(unname(w["(Intercept)", ]), fit$beta[[1]] + c(-1, 1) * qnorm(0.975) * sqrt(fit$vcov_beta[1, 1]),
               tolerance = 1e-12)
  expect_error(confint(fit, "rnage"), class = "gpustats_error_argument")
})

test_that("confint() profiles small fits and gives Wald intervals above 10,000 observations, with a message", {
  expect_identical(gpustats:::confint_method(list(n = 10000), "range"), "profile")
  expect_message(m <- gpustats:::confint_method(list(n = 10001, vcov_type = "fisher"), c("range", "sigma2")),
                 class = "gpustats_message_confint_wald")
  expect_identical(m, "wald")
  expect_identical(gpustats:::confint_method(list(n = 1e6), character()), "profile") # nothing to profile
  fit <- suppressWarnings(gp_fit(rnorm(20), matrix(runif(40), 20), control = quiet, device = "cpu")) # noise: at a bound
  expect_error(confint(fit, method = "bogus"), class = "gpustats_error_argument")
})

test_that("the profiles of a Vecchia fit share one structure and find the same limits", {
  set.seed(8)
  locs <- matrix(runif(1200), ncol = 2)
  y <- 1 + gp_simulate(locs, 1, 0.1, 0.5, nugget = 0.1, device = "cpu")
  v <- gp_fit(y, locs, cov = "exponential", approx = "vecchia", m = 10, control = quiet, device = "cpu")
  count <- new.env()
  count$opened <- 0L
  trace("vecchia_open", where = asNamespace("gpustats"), print = FALSE,
        tracer = bquote(assign("opened", get("opened", .(count)) + 1L, envir = .(count))))
  on.exit(untrace("vecchia_open", where = asNamespace("gpustats")))
  ci <- confint(v, "range")
  untrace("vecchia_open", where = asNamespace("gpustats"))
  on.exit()
  expect_equal(count$opened, 1L) # one native object for every refit of the profile
  for (limit in ci) {
    expect_equal(v$loglik - gpustats:::profile_loglik(v, "range", limit, environment()), qchisq(0.95, 1) / 2,
                 tolerance = 2e-3)
  }
})

test_that("the nugget's profile interval equals a brute-force profile, and reaches 0 without a warning", {
  # the ML profile of the nugget by brute force: sigma2 and the range
  # maximised by optim over the dense likelihood, the constant mean by GLS
  brute <- function(nugget, y, locs) {
    n <- length(y)
    D <- as.matrix(dist(locs))
    nll <- function(th) {
      R <- chol(exp(th[1]) * exp(-D / exp(th[2])) + diag(nugget, n))
      w <- backsolve(R, rep(1, n), transpose = TRUE)
      z <- backsolve(R, y, transpose = TRUE)
      0.5 * (n * log(2 * pi) + 2 * sum(log(diag(R))) + sum((z - w * sum(w * z) / sum(w^2))^2))
    }
    -optim(c(0, log(0.1)), nll, method = "BFGS", control = list(reltol = 1e-12))$value
  }
  drop <- qchisq(0.95, 1) / 2
  for (case in list(list(seed = 11, n = 80, nugget = 0.2), list(seed = 1, n = 60, nugget = 0))) {
    set.seed(case$seed)
    locs <- matrix(runif(2 * case$n), ncol = 2)
    y <- 2 + gp_simulate(locs, 1, 0.15, 0.5, nugget = case$nugget, device = "cpu")
    fit <- gp_fit(y, locs, cov = "exponential", method = "ml", control = quiet, device = "cpu")
    expect_no_warning(ci <- confint(fit, "nugget"))
    expect_true(ci[1] <= fit$covariance[["nugget"]] && fit$covariance[["nugget"]] < ci[2])
    expect_equal(brute(fit$covariance[["nugget"]], y, locs), fit$loglik, tolerance = 1e-7)
    for (limit in ci[ci > 0]) expect_equal(fit$loglik - brute(limit, y, locs), drop, tolerance = 1e-3)
    if (case$nugget == 0) {
      expect_identical(fit$covariance[["nugget"]], 0) # estimated on its bound
      expect_identical(ci[[1]], 0) # and the profile stays above the cut down to it
      expect_gt(brute(0, y, locs), fit$loglik - drop)
    }
  }
})

test_that("anova compares nested trends by ML, and refuses REML across trends", {
  m <- meuse_data()$meuse
  f0 <- gp_fit(log(zinc) ~ 1, m, coords = ~ x + y, cov = "exponential", method = "ml", control = quiet, device = "cpu")
  f1 <- gp_fit(log(zinc) ~ sqrt(dist), m, coords = ~ x + y, cov = "exponential", method = "ml", control = quiet,
               device = "cpu")
  a <- anova(f0, f1)
  expect_equal(a$Chisq[2], 2 * (f1$loglik - f0$loglik), tolerance = 1e-12)
  expect_identical(a$`Chi Df`[2], 1)
  expect_equal(AIC(f1), -2 * f1$loglik + 2 * 5)
  r0 <- at_bound_ok(gp_fit(log(zinc) ~ 1, m, coords = ~ x + y, cov = "exponential", control = quiet, device = "cpu"))
  r1 <- gp_fit(log(zinc) ~ sqrt(dist), m, coords = ~ x + y, cov = "exponential", control = quiet, device = "cpu")
  expect_error(anova(r0, r1), "REML", class = "gpustats_error_argument")
})

test_that("the variogram equals a brute-force computation; plots and maps draw", {
  set.seed(6)
  locs <- matrix(runif(120), ncol = 2)
  z <- rnorm(60)
  v <- gp_variogram(z, locs, bins = 5, cutoff = 0.6)
  D <- as.matrix(dist(locs))
  G <- 0.5 * outer(z, z, "-")^2
  up <- upper.tri(D) & D <= 0.6
  bin <- cut(D[up], seq(0, 0.6, length.out = 6), include.lowest = TRUE)
  expect_equal(v$gamma, as.vector(tapply(G[up], bin, mean))[table(bin) > 0], tolerance = 1e-14)
  expect_equal(v$np, as.vector(table(bin))[table(bin) > 0])
  y <- 1 + gp_simulate(locs, 1, 0.2, 1, nugget = 0.05, device = "cpu")
  fit <- gp_fit(y, locs, cov = "exponential_aniso", control = quiet, device = "cpu")
  expect_equal(residuals(fit, "trend"), y - fit$beta[[1]])
  expect_equal(fitted(fit) + residuals(fit), y)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(fit))
  map <- gp_map(fit, n = 12, device = "cpu")
  expect_identical(dim(map$fit), c(12L, 12L))
  expect_equal(map$points$fit, predict(fit, as.matrix(map$points[, 1:2]), device = "cpu"), tolerance = 1e-12)
  expect_silent(plot(map))
  expect_identical(nrow(as.data.frame(map)), 144L)
  m <- meuse_data()
  zf <- gp_fit(log(zinc) ~ sqrt(dist), m$meuse, coords = ~ x + y, cov = "exponential", control = quiet, device = "cpu")
  gm <- gp_map(zf, m$grid, device = "cpu")
  expect_identical(sum(is.finite(gm$fit)), nrow(m$grid))
  expect_error(gp_map(zf, device = "cpu"), "covariates", class = "gpustats_error_argument")
})

test_that("the Vecchia fit with every earlier point conditioned on is the exact fit; its predictions and draws work", {
  set.seed(7)
  n <- 150
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- 2 + gp_simulate(locs, 1, 0.2, 0.8, nugget = 0.1, device = "cpu")
  exact <- gp_fit(y, locs, method = "ml", control = quiet, device = "cpu")
  vecchia <- gp_fit(y, locs, method = "ml", approx = "vecchia", m = n - 1, control = quiet, device = "cpu")
  expect_match(vecchia$backend, "Vecchia m = 149")
  expect_equal(vecchia$loglik, exact$loglik, tolerance = 1e-7)
  expect_equal(coef(vecchia), coef(exact), tolerance = 1e-3)
  new <- matrix(runif(10), ncol = 2)
  expect_equal(predict(vecchia, new, se.fit = TRUE, m_pred = n, device = "cpu"),
               predict(exact, new, se.fit = TRUE, device = "cpu"), tolerance = 1e-3)
  expect_identical(dim(simulate(vecchia, 3, seed = 1, newdata = new, device = "cpu")), c(5L, 3L))
  expect_identical(dim(simulate(vecchia, 2, seed = 1, device = "cpu")), c(150L, 2L))
  expect_error(gp_fit(y, locs, cov = "matern_aniso", approx = "vecchia", control = quiet), "isotropic",
               class = "gpustats_error_argument")
  expect_error(gp_fit(y, locs, approx = "vecchia", m = 200, control = quiet), class = "gpustats_error_argument")
  expect_equal(as.numeric(gp_loglik(y - 2, locs, 1, 0.2, 0.8, 0.1, approx = "vecchia", m = n - 1, device = "cpu")),
               as.numeric(gp_loglik(y - 2, locs, 1, 0.2, 0.8, 0.1, device = "cpu")), tolerance = 1e-10)
  # the grouped approximation through gp_loglik: that of vecchia_loglik, exact at m = n - 1
  grouped <- gp_loglik(y - 2, locs, 1, 0.2, 0.8, 0.1, approx = "vecchia", m = 10, group = TRUE, device = "cpu")
  expect_identical(grouped, vecchia_loglik(y - 2, locs, 1, 0.2, 0.8, 0.1, m = 10, group = TRUE, device = "cpu"))
  expect_identical(grouped, gp_loglik(y - 2, locs, 1, 0.2, 0.8, 0.1, approx = "vecchia", m = 10, device = "cpu"))
  expect_false(isTRUE(all.equal(as.numeric(grouped), as.numeric(
    gp_loglik(y - 2, locs, 1, 0.2, 0.8, 0.1, approx = "vecchia", m = 10, group = FALSE, device = "cpu")), tolerance = 1e-10)))
  expect_equal(as.numeric(gp_loglik(y - 2, locs, 1, 0.2, 0.8, 0.1, approx = "vecchia", m = n - 1, group = TRUE,
                                    device = "cpu")),
               as.numeric(gp_loglik(y - 2, locs, 1, 0.2, 0.8, 0.1, device = "cpu")), tolerance = 1e-10)
  # the exact likelihood has no sets to group
  expect_identical(gp_loglik(y, locs, 1, 0.2, 0.8, group = FALSE, device = "cpu"), gp_loglik(y, locs, 1, 0.2, 0.8, device = "cpu"))
  expect_error(gp_loglik(y, locs, 1, 0.2, 0.8, approx = "vecchia", group = NA), class = "gpustats_error_argument")
})

test_that("estimates on a search bound get a warning; angles are searched without bounds", {
  m <- meuse_data()$meuse
  # REML with a constant mean: the range runs to its bound (a trend is missing)
  expect_warning(gp_fit(log(zinc) ~ 1, m, coords = ~ x + y, cov = "exponential", control = quiet, device = "cpu"),
                 "range", class = "gpustats_warning_at_bound")
  # a start near 0 used to stop at the box's edge with log-likelihood -75.155
  f0 <- gp_fit(log(zinc) ~ sqrt(dist), m, coords = ~ x + y, cov = "exponential_aniso", control = quiet, device = "cpu")
  f1 <- gp_fit(log(zinc) ~ sqrt(dist), m, coords = ~ x + y, cov = "exponential_aniso", start = list(angle = 0.1),
               control = quiet, device = "cpu")
  expect_equal(f1$loglik, f0$loglik, tolerance = 1e-6)
  expect_true(f1$covariance[["angle"]] >= 0 && f1$covariance[["angle"]] < pi)
  expect_equal(gpustats:::gp_cov_reduce_angles(c(angle1 = 3 * pi + 0.2, angle2 = pi / 2 + 0.1))[["angle2"]],
               -pi / 2 + 0.1, tolerance = 1e-14)
})

test_that("data beyond the range of double variances and degenerate variogram bins get clear errors", {
  set.seed(8)
  locs <- matrix(runif(40), ncol = 2)
  y <- rnorm(20)
  # these stopped with "missing value where TRUE/FALSE needed"
  expect_error(gp_fit(y * 1e300, locs, control = quiet), "Rescale", class = "gpustats_error_argument")
  expect_error(gp_fit(y * 1e-300, locs, control = quiet), "Rescale", class = "gpustats_error_argument")
  expect_error(gp_variogram(y, locs, cutoff = 5e-324), "too small", class = "gpustats_error_argument")
  expect_error(gp_variogram(y, locs, bins = 1.5), "whole number", class = "gpustats_error_argument")
})

test_that("fits of 1,000 observations start from the Vecchia fit and reach the exact maximum in fewer evaluations", {
  set.seed(8)
  n <- 1000
  locs <- matrix(runif(2 * n), ncol = 2)
  Q <- matrix(c(cos(0.6), sin(0.6), -sin(0.6), cos(0.6)), 2)
  y <- 1 + drop(gp_simulate(sweep(locs %*% Q, 2, c(0.3, 0.1), "/"), 1, 1, 1.5, nugget = 0.05, device = "cpu"))
  # isotropic: the same maximum as the search from the default start (given as start values)
  yi <- 1 + drop(gp_simulate(locs, 1, 0.1, 0.5, nugget = 0.1, device = "cpu"))
  warm <- gp_fit(yi, locs, cov = "exponential", device = "cpu", control = list(trace = FALSE, hessian = FALSE))
  default_start <- list(range = gpustats:::gp_cov_defaults(gpustats:::gp_cov_model("exponential", 2, "euclidean", NULL), locs)$start[[1]],
                        nugget = 0.1 * var(yi))
  cold <- gp_fit(yi, locs, cov = "exponential", start = default_start, device = "cpu",
                 control = list(trace = FALSE, hessian = FALSE))
  expect_gte(warm$loglik, cold$loglik - 1e-8)
  expect_equal(coef(warm), coef(cold), tolerance = 1e-4)
  expect_lt(warm$evaluations, cold$evaluations)
  # anisotropic (the Vecchia objective searched, then the exact one): a
  # search started at its estimate finds nothing higher
  aniso <- gp_fit(y, locs, cov = "matern32_aniso", device = "cpu", control = list(trace = FALSE, hessian = FALSE))
  expect_lt(aniso$evaluations, 80)
  est <- as.list(aniso$covariance[c("sigma2", "range1", "range2", "angle", "nugget")])
  # (nlminb started at a maximum may stop with "false convergence")
  again <- suppressWarnings(gp_fit(y, locs, cov = "matern32_aniso", start = est, device = "cpu",
                                   control = list(trace = FALSE, hessian = FALSE)),
                            classes = "gpustats_warning_not_converged")
  expect_lt(again$loglik - aniso$loglik, 1e-6)
  expect_equal(aniso$covariance[["range1"]], 0.3, tolerance = 0.3)
})

test_that("fits do not depend on the units of the coordinates; coinciding locations are refused", {
  set.seed(1)
  L <- matrix(runif(40), ncol = 2)
  y <- sin(6 * L[, 1]) + cos(4 * L[, 2]) + rnorm(20, sd = 0.1)
  fit <- function(locs) suppressWarnings(gp_fit(y, locs, cov = "exponential", control = list(trace = FALSE)))
  f1 <- fit(L)
  for (s in c(1e-300, 1e300)) {
    fs <- fit(L * s)
    expect_equal(fs$loglik, f1$loglik, tolerance = 1e-8)
    expect_equal(fs$covariance[["range"]] / s, f1$covariance[["range"]], tolerance = 1e-5)
    expect_equal(fs$covariance[["sigma2"]], f1$covariance[["sigma2"]], tolerance = 1e-5)
  }
  expect_error(gp_fit(y, matrix(0.5, 20, 2)), "coincide", class = "gpustats_error_argument")
})
