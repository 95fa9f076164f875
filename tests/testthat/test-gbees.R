# GBEES: the scheme's exact cases, conservation, measurement updates, the
# Monte Carlo reference, methods and input errors.

shift_model <- gbees_model(function(x) cbind(rep(1, nrow(x)), rep(0, nrow(x))), n = 2, name = "shift")

test_that("at Courant number 1 a constant velocity shifts the density by one cell per step, exactly", {
  fit <- gbees(shift_model, x0 = c(0, 0), cov = diag(c(0.3, 0.2)), dx = 0.25, times = c(0, 1), threshold = 0)
  s0 <- fit$snapshots[[1]]
  s1 <- fit$snapshots[[2]]
  expect_equal(fit$info$steps, 4)
  shifted <- s0$keys
  shifted[, 1] <- shifted[, 1] + 4L
  at <- match(paste(shifted[, 1], shifted[, 2]), paste(s1$keys[, 1], s1$keys[, 2]))
  expect_false(anyNA(at))
  expect_lte(max(abs(s1$prob[at] - s0$prob)), 1e-15)
  expect_lte(sum(s1$prob[-at]), 1e-15)
})

test_that("a rotation moves the mean along the circle and keeps the covariance", {
  rot <- gbees_model(function(x) cbind(-x[, 2], x[, 1]), n = 2)
  fit <- gbees(rot, x0 = c(2, 0), cov = diag(2) * 0.25, dx = 0.1, times = c(0, pi / 2), threshold = 1e-10)
  s <- summary(fit)
  expect_equal(unlist(s$table[2, c("mean_x1", "mean_x2")]), c(mean_x1 = 0, mean_x2 = 2), tolerance = 2e-3)
  expect_equal(s$cov[[2]], s$cov[[1]], tolerance = 0.02, ignore_attr = TRUE)
})

test_that("a flux update conserves the mass to rounding, on Lorenz '63", {
  fit <- gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = 0.3, threshold = 1e-6)
  expect_lte(fit$info$mass_error, 1e-12)
  expect_gt(fit$info$steps, 50)
  expect_equal(sum(fit$snapshots[[1]]$prob), 1, tolerance = 1e-14)
  expect_true(all(fit$snapshots[[1]]$prob >= 0))
})

test_that("built-in and R-function models give the same density", {
  f63 <- function(x) cbind(4 * (x[, 2] - x[, 1]), -x[, 2] - x[, 1] * x[, 3], -x[, 3] + x[, 1] * x[, 2] - 48)
  args <- list(x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = 0.1, threshold = 1e-6)
  a <- do.call(gbees, c(list(lorenz63(), device = "cpu"), args))$snapshots[[1]]
  b <- do.call(gbees, c(list(gbees_model(f63, 3)), args))$snapshots[[1]]
  expect_identical(a$keys, b$keys)
  expect_lte(max(abs(a$prob - b$prob)), 1e-15)
})

l63_expressions <- gbees_model(c("sigma * (x2 - x1)", "-x2 - x1 * x3", "-b * x3 + x1 * x2 - b * r"), n = 3,
                               par = c(sigma = 4, b = 1, r = 48), name = "Lorenz '63 as expressions")
# a forced Duffing oscillator: a field that depends on time
duffing <- gbees_model(c("v", "-delta * v + x - x^3 + g * cos(w * t)"), n = 2, state_names = c("x", "v"),
                       par = c(delta = 0.25, g = 0.3, w = 1), name = "Duffing")

test_that("a model given as expressions gives the built-in model's density", {
  skip_if_not(gpustats:::gbees_has_c_compiler(), "no C compiler")
  args <- list(x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(0.1, 0.3), threshold = 1e-6,
               device = "cpu")
  a <- do.call(gbees, c(list(lorenz63()), args))
  b <- do.call(gbees, c(list(l63_expressions), args))
  expect_equal(b$info$steps, a$info$steps)
  for (k in 1:2) {
    expect_identical(b$snapshots[[k]]$keys, a$snapshots[[k]]$keys)
    expect_lte(max(abs(b$snapshots[[k]]$prob / a$snapshots[[k]]$prob - 1), na.rm = TRUE), 1e-12)
    expect_lte(max(abs(b$snapshots[[k]]$prob - a$snapshots[[k]]$prob)), 1e-15)
  }
  expect_true(l63_expressions$autonomous)
  expect_false(duffing$autonomous)
  expect_output(print(duffing), "dv/dt = -delta \\* v")
})

test_that("expressions are C arithmetic that reads as R reads it", {
  skip_if_not(gpustats:::gbees_has_c_compiler(), "no C compiler")
  # x1 stays put and dx2/dt = g(x1): one Runge-Kutta step of length 1 adds g(x1) to x2
  m <- gbees_model(c("0", "1/2 + pow(x1, 2) - x1^2 + fabs(-x1) + hypot(x1, 3) + fmin(x1, 1) + cbrt(-8) + pi"), n = 2)
  mc <- gbees_mc(m, x0 = c(0, 0), cov = diag(2), times = c(0, 1), n = 50, step = 1, device = "cpu")
  x1 <- mc$samples[[1]][, 1]
  expect_identical(mc$samples[[2]][, 1], x1)
  expect_equal(mc$samples[[2]][, 2] - mc$samples[[1]][, 2], 0.5 + abs(x1) + sqrt(x1^2 + 9) + pmin(x1, 1) - 2 + pi,
               tolerance = 1e-14)
  expect_match(m$source, "((1.0) / (2.0))", fixed = TRUE) # double literals: no integer division in C
  expect_error(gbees_model(c("x2", "foo(x1)"), 2), "'foo' is not an allowed function")
  expect_error(gbees_model(c("x2", "x1 +"), 2), "does not parse")
  expect_error(gbees_model(c("x2", "y"), 2), "unknown name 'y'")
  expect_error(gbees_model(c("x2", "x[1]"), 2), "'\\[' is not an allowed")
  expect_error(gbees_model(c("x2", "atan2(x1)"), 2), "takes 2 unnamed arguments")
  expect_error(gbees_model("x2", 2), "one expression per state")
  expect_error(gbees_model(c("x2", "k * x1"), 2, par = c(k = NA)), "named vector of finite numbers")
  expect_error(gbees_model(c("x2", "t"), 2, autonomous = TRUE), "not autonomous")
  expect_error(gbees_model(c("x2", "x1"), 2, state_names = c("x2", "x1")), "would name two states")
  expect_error(gbees_model(c("x2", "t"), 2, par = c(t = 1)), "given twice")
  nan_model <- gbees_model(c("1 / (x1 + 11.25)", "0", "0"), n = 3) # infinite at a face of the first cell
  skip_if_not(gpustats:::gbees_has_c_compiler(), "no C compiler")
  expect_error(gbees(nan_model, c(-11.5, -10, 9.5), diag(3), 0.5, 0.1, device = "cpu"), "not finite near the state")
})

test_that("halving the cell width moves the density towards the exact one", {
  # the pendulum preserves area, so the exact density is the initial one at the point the flow carries to x
  pendulum <- gbees_model(c("x2", "-sin(x1)"), n = 2)
  sd <- 0.15
  t_end <- 2
  back <- function(x) {
    h <- 0.01
    for (k in seq_len(t_end / h)) {
      k1 <- cbind(-x[, 2], sin(x[, 1]))
      k2 <- cbind(-(x[, 2] + h / 2 * k1[, 2]), sin(x[, 1] + h / 2 * k1[, 1]))
      k3 <- cbind(-(x[, 2] + h / 2 * k2[, 2]), sin(x[, 1] + h / 2 * k2[, 1]))
      k4 <- cbind(-(x[, 2] + h * k3[, 2]), sin(x[, 1] + h * k3[, 1]))
      x <- x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    }
    x
  }
  errors <- vapply(c(0.2, 0.1, 0.05), function(dx) {
    s <- gbees(pendulum, c(1, 0), diag(sd^2, 2), dx, t_end, threshold = 1e-10, device = "cpu")$snapshots[[1]]
    start <- back(cbind(1 + s$keys[, 1] * dx, s$keys[, 2] * dx))
    exact <- dx^2 * dnorm(start[, 1], 1, sd) * dnorm(start[, 2], 0, sd) # the midpoint rule
    sum(abs(s$prob - exact)) + max(0, 1 - sum(exact))
  }, 0)
  expect_true(all(diff(errors) < 0))
  expect_lt(errors[3], errors[1] / 4)
})

test_that("a measurement update applies Bayes' rule and records the density before and after", {
  meas <- gbees_measurements(time = 0.2, y = 5, h = 3, cov = 0.5)
  fit <- gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(0.2, 0.3),
               measurements = meas, threshold = 1e-6)
  expect_equal(vapply(fit$snapshots, `[[`, TRUE, "posterior"), c(FALSE, TRUE, FALSE))
  prior <- fit$snapshots[[1]]
  post <- fit$snapshots[[2]]
  # the posterior is the prior times the likelihood, renormalized, minus pruned cells
  x3 <- prior$keys[, 3] * 0.5 + 9.5
  bayes <- prior$prob * exp(-(x3 - 5)^2 / (2 * 0.5))
  bayes <- bayes / sum(bayes)
  at <- match(paste(post$keys[, 1], post$keys[, 2], post$keys[, 3]),
              paste(prior$keys[, 1], prior$keys[, 2], prior$keys[, 3]))
  expect_false(anyNA(at))
  expect_equal(post$prob, bayes[at] / sum(bayes[at]), tolerance = 1e-12)
  s <- summary(fit)
  expect_lt(abs(s$table$mean_x3[2] - 5), abs(s$table$mean_x3[1] - 5))
  expect_lt(s$cov[[2]][3, 3], s$cov[[1]][3, 3])
})

test_that("a measurement of states runs natively as an R measurement function would, correlated noise too", {
  cov <- matrix(c(2, 0.6, 0.6, 1), 2)
  y <- c(-9, 7)
  native <- gbees_measurements(time = 0.1, y = y, h = c(1, 3), cov = cov)
  in_r <- gbees_measurements(time = 0.1, y = y, h = function(x) x[, c(1, 3)], cov = cov)
  args <- list(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(0.1, 0.15), threshold = 1e-6)
  a <- do.call(gbees, c(args, list(measurements = native)))
  b <- do.call(gbees, c(args, list(measurements = in_r)))
  for (k in 2:3) {
    expect_identical(a$snapshots[[k]]$keys, b$snapshots[[k]]$keys)
    expect_equal(a$snapshots[[k]]$prob, b$snapshots[[k]]$prob, tolerance = 1e-13)
  }
  # the posterior against Bayes' rule written out
  prior <- a$snapshots[[1]]
  x <- prior$keys * 0.5 + rep(c(-11.5, -10, 9.5), each = nrow(prior$keys))
  r <- x[, c(1, 3)] - rep(y, each = nrow(x))
  bayes <- prior$prob * exp(-0.5 * rowSums((r %*% solve(cov)) * r))
  post <- a$snapshots[[2]]
  at <- match(paste(post$keys[, 1], post$keys[, 2], post$keys[, 3]),
              paste(prior$keys[, 1], prior$keys[, 2], prior$keys[, 3]))
  expect_equal(post$prob, bayes[at] / sum(bayes[at]), tolerance = 1e-12)
})

test_that("the Monte Carlo reference follows the trajectories and is reproducible", {
  f <- function(x) c(4 * (x[2] - x[1]), -x[2] - x[1] * x[3], -x[3] + x[1] * x[2] - 48)
  rk4 <- function(x, h, n) {
    for (i in seq_len(n)) {
      k1 <- f(x); k2 <- f(x + h / 2 * k1); k3 <- f(x + h / 2 * k2); k4 <- f(x + h * k3)
      x <- x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    }
    x
  }
  set.seed(5)
  mc <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = 0.3, n = 3, step = 1e-3)
  set.seed(5)
  x0 <- matrix(rnorm(9), 3, 3) + rep(c(-11.5, -10, 9.5), each = 3)
  expect_equal(unname(mc$samples[[1]]), t(apply(x0, 1, rk4, h = 1e-3, n = 300)), tolerance = 1e-12)
  set.seed(5)
  again <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = 0.3, n = 3, step = 1e-3)
  expect_identical(again$samples, mc$samples)
  # no grid is built, so a wide initial spread is no concern of the Monte Carlo
  wide <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(1e8, 3), times = 1e-4, n = 5)
  expect_equal(dim(wide$samples[[1]]), c(5L, 3L))
})

test_that("the Bhattacharyya coefficient is near 1 for samples of the grid density itself", {
  fit <- gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = 0.1, threshold = 1e-6)
  s <- fit$snapshots[[1]]
  set.seed(9)
  cells <- sample.int(length(s$prob), 2e5, replace = TRUE, prob = s$prob)
  x <- s$keys[cells, ] * 0.5 + rep(c(-11.5, -10, 9.5), each = length(cells))
  jitter <- matrix(runif(length(x), -0.24, 0.24), ncol = 3)
  bins <- function(...) bhattacharyya(fit, ..., method = "bins", reference = FALSE)$coefficient
  bc <- bins(x + jitter)
  expect_gt(bc, 0.99)
  expect_lte(bc, 1)
  expect_gt(bins(x + jitter, bin = 3), 0.99)
  expect_equal(bins(x[, c(1, 1, 1)] + 1000), 0)
})

test_that("marginals, data frames, printing and plots", {
  fit <- gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(0.05, 0.1), threshold = 1e-6)
  m <- marginal(fit, dims = c(1, 3))
  expect_named(m, c("x1", "x3", "prob", "density"))
  expect_equal(sum(m$prob), 1, tolerance = 1e-12)
  expect_equal(m$density, m$prob / 0.25)
  expect_equal(sum(marginal(fit, dims = "x2", time = 0.05)$prob), 1, tolerance = 1e-12)
  df <- as.data.frame(fit)
  expect_named(df, c("time", "updated", "x1", "x2", "x3", "prob", "density"))
  expect_equal(nrow(df), sum(vapply(fit$snapshots, function(s) length(s$prob), 1L)))
  expect_output(print(fit), "Lorenz '63")
  expect_output(print(summary(fit)), "cell updates")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fit, dims = c(1, 2)))
  expect_invisible(plot(fit, dims = 3, times = 0.1))
})

test_that("bad input gets clear errors", {
  x0 <- c(-11.5, -10, 9.5)
  expect_error(gbees(lorenz63(), x0[1:2], diag(3), 0.5, 1), "x0")
  expect_error(gbees(lorenz63(), x0, diag(c(1, -1, 1)), 0.5, 1), "positive definite")
  expect_error(gbees(lorenz63(), x0, diag(3), c(0.5, 0.5), 1), "dx")
  expect_error(gbees(lorenz63(), x0, diag(3), 0.5, c(1, 0.5)), "increasing")
  expect_error(gbees(lorenz63(), x0, diag(3), 0.5, 1, cfl = 1.5), "cfl")
  expect_error(gbees("lorenz", x0, diag(3), 0.5, 1), "model")
  expect_error(gbees_measurements(c(1, 0.5), c(1, 2), 3, 1), "time order")
  expect_error(gbees(lorenz63(), x0, diag(3), 0.5, 1, measurements = gbees_measurements(2, 1, 3, 1)), "between")
  nan_model <- gbees_model(function(x) x / ifelse(x[, 1] > -11, 0, 1) * 0, n = 3)
  expect_error(gbees(nan_model, x0, diag(3), 0.5, 0.1), "non-finite value at the state")
  shape_model <- gbees_model(function(x) x[, 1:2], n = 3)
  expect_error(gbees(shape_model, x0, diag(3), 0.5, 0.1), "3 numeric matrix")
  failing <- gbees_model(function(x) stop("no such orbit"), n = 3)
  expect_error(gbees(failing, x0, diag(3), 0.5, 0.1), "no such orbit")
  expect_error(gbees(lorenz63(), x0, diag(3), 1e-3, 1), "initial box")
  expect_error(lorenz96(n = 3), "n")
  # the field of the three-body model is infinite at the primary
  mu <- pcr3bp()$par
  expect_error(gbees(pcr3bp(), c(-mu, 0, 0, 0), diag(4) * 1e-4, 0.01, 0.1, device = "cpu"), "not finite near the state")
})

test_that("the CPU path gives the same density on any number of threads", {
  args <- list(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = 0.2, threshold = 1e-7,
               device = "cpu")
  runs <- lapply(c(1L, 3L, 5L), function(threads) {
    old <- options(gpustats.threads = threads)
    on.exit(options(old))
    do.call(gbees, args)$snapshots[[1L]]
  })
  expect_gt(length(runs[[1L]]$prob), 3000) # several of the ranges that sums are split into
  for (r in runs[-1L]) {
    expect_identical(r$keys, runs[[1L]]$keys)
    expect_identical(r$prob, runs[[1L]]$prob)
  }
})

test_that("1 and 2 threads give the same cells and probabilities through growth, pruning and an update", {
  run <- function(threads, ...) {
    old <- options(gpustats.threads = threads)
    on.exit(options(old))
    gbees(..., device = "cpu")
  }
  f96 <- function(x) {
    n <- ncol(x)
    (x[, c(2:n, 1)] - x[, c(n - 1, n, 1:(n - 2))]) * x[, c(n, 1:(n - 1))] - x + 4
  }
  cases <- list(
    # growth, prunes every 5 steps (sure and ordered cuts), the measurement's prune
    list(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(0.05, 0.1),
         measurements = gbees_measurements(0.05, -8, 3, 1), threshold = 1e-6, prune_every = 5L),
    # four dimensions, and a field given as an R function (its velocities on the main thread)
    list(lorenz96(4, 4), x0 = c(4.5, 4, 4, 4), cov = diag(0.01, 4), dx = 0.1, times = 0.05, threshold = 1e-7,
         prune_every = 3L),
    list(gbees_model(f96, 4), x0 = c(4.5, 4, 4, 4), cov = diag(0.01, 4), dx = 0.1, times = 0.05, threshold = 1e-7,
         prune_every = 3L))
  for (case in cases) {
    one <- do.call(run, c(list(1L), case))
    two <- do.call(run, c(list(2L), case))
    expect_gt(one$info$steps, 3)
    expect_gt(one$info$pruned_mass, 0)
    expect_equal(two$info$steps, one$info$steps)
    expect_identical(two$info$pruned_mass, one$info$pruned_mass)
    for (k in seq_along(one$snapshots)) {
      expect_identical(two$snapshots[[k]]$keys, one$snapshots[[k]]$keys)
      expect_identical(two$snapshots[[k]]$prob, one$snapshots[[k]]$prob)
    }
  }
  expect_gt(sum(one$info$phase_seconds[c("growth", "advect", "prune")]), 0)
})

test_that("1 and 2 threads agree for a field that depends on time, compiled or given as an R function", {
  run <- function(threads, model) {
    old <- options(gpustats.threads = threads)
    on.exit(options(old))
    gbees(model, x0 = c(1, 0), cov = diag(0.01, 2), dx = 0.02, times = c(0.2, 0.4), threshold = 1e-8,
          prune_every = 4L, device = "cpu")
  }
  duffing_r <- gbees_model(function(x, t) cbind(x[, 2], -0.25 * x[, 2] + x[, 1] - x[, 1]^3 + 0.3 * cos(t)), n = 2,
                           autonomous = FALSE)
  models <- list(duffing_r)
  if (gpustats:::gbees_has_c_compiler()) models <- c(models, list(duffing))
  for (model in models) {
    one <- run(1L, model)
    two <- run(2L, model)
    expect_gt(one$info$steps, 8)
    expect_gt(one$info$pruned_mass, 0)
    expect_gt(one$info$phase_seconds[["field"]], 0)
    expect_equal(two$info$steps, one$info$steps)
    for (k in seq_along(one$snapshots)) {
      expect_gt(length(one$snapshots[[k]]$prob), 1000) # several of the ranges that sums are split into
      expect_identical(two$snapshots[[k]]$keys, one$snapshots[[k]]$keys)
      expect_identical(two$snapshots[[k]]$prob, one$snapshots[[k]]$prob)
    }
  }
})

# CPU and GPU: the same cells in the same order, probabilities to rounding
# (relative, in cells above `floor`; absolute below).
# abs: the bound on every cell's absolute difference (probabilities add to 1).
expect_same_density <- function(gpu, cpu, tol = 1e-10, floor = 1e-14, abs = 1e-16, what = "density") {
  expect_equal(length(gpu$snapshots), length(cpu$snapshots))
  for (k in seq_along(cpu$snapshots)) {
    a <- gpu$snapshots[[k]]
    b <- cpu$snapshots[[k]]
    expect_identical(a$keys, b$keys)
    big <- b$prob > floor
    expect_lte(max(abs(a$prob[big] / b$prob[big] - 1)), tol, label = paste(what, "relative difference"))
    expect_lte(max(abs(a$prob - b$prob)), abs, label = paste(what, "absolute difference"))
  }
  expect_equal(gpu$info$steps, cpu$info$steps)
  expect_equal(gpu$info$peak_cells, cpu$info$peak_cells)
}

test_that("GPU and CPU give the same Lorenz '63 density, through growth, pruning and a measurement", {
  skip_without_gpu()
  args <- list(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(0.2, 0.4),
               measurements = gbees_measurements(0.2, -8, 3, 1), threshold = 1e-7)
  gpu <- do.call(gbees, c(args, device = "gpu"))
  cpu <- do.call(gbees, c(args, device = "cpu"))
  expect_equal(gpu$device, "gpu")
  expect_gt(cpu$info$peak_cells, 4096) # beyond the initial arrays (13^3 cells, room for 4096)
  expect_same_density(gpu, cpu)
  expect_lte(gpu$info$mass_error, 1e-12)
  expect_equal(gpu$info$pruned_mass, cpu$info$pruned_mass, tolerance = 1e-8)
  expect_equal(gpu$info$clipped_mass, cpu$info$clipped_mass, tolerance = 1e-8)
})

test_that("GPU and CPU agree on Lorenz '96, the three-body model and long prune intervals", {
  skip_without_gpu()
  for (case in list(list(lorenz96(4, 4), x0 = c(4.5, 4, 4, 4), cov = diag(0.04, 4), dx = 0.1, times = 0.05,
                         threshold = 1e-8, prune_every = 3L),
                    list(pcr3bp(), x0 = c(0.5, 0.1, 0, 0.5), cov = diag(1e-4, 4), dx = 0.005, times = 0.02,
                         threshold = 1e-7),
                    # more steps between prunes than the GPU launches before it waits for them
                    list(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(0.1, 0.3),
                         threshold = 1e-7, prune_every = 45L))) {
    # left unpruned for 45 steps, cells far below the threshold are near-cancellations of fluxes, so their
    # relative rounding error is larger
    floor <- if (identical(case$prune_every, 45L)) 1e-12 else 1e-14
    expect_same_density(do.call(gbees, c(case, device = "gpu")), do.call(gbees, c(case, device = "cpu")),
                        floor = floor, what = case[[1]]$name)
  }
})

test_that("the GPU reports a non-finite field and refuses R-function models", {
  skip_without_gpu()
  mu <- pcr3bp()$par
  expect_error(gbees(pcr3bp(), c(-mu, 0, 0, 0), diag(4) * 1e-4, 0.01, 0.1, device = "gpu"), "not finite near the state")
  expect_error(gbees(shift_model, c(0, 0), diag(2), 0.25, 1, device = "gpu"), "R function")
  expect_error(gbees_mc(shift_model, c(0, 0), diag(2), 1, n = 10, device = "gpu"), "R function")
})

test_that("models given as expressions run on the GPU as on the CPU, time-dependent ones too", {
  skip_without_gpu()
  skip_if_not(gpustats:::gbees_has_c_compiler(), "no C compiler")
  args <- list(l63_expressions, x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(0.2, 0.4),
               measurements = gbees_measurements(0.2, -8, 3, 1), threshold = 1e-7)
  expect_same_density(do.call(gbees, c(args, device = "gpu")), do.call(gbees, c(args, device = "cpu")))
  args <- list(duffing, x0 = c(1, 0), cov = diag(0.01, 2), dx = 0.02, times = c(0.5, 1.5), threshold = 1e-8)
  gpu <- do.call(gbees, c(args, device = "gpu"))
  expect_equal(gpu$device, "gpu")
  expect_same_density(gpu, do.call(gbees, c(args, device = "cpu")))
  nan_model <- gbees_model(c("1 / (x1 + 11.25)", "0", "0"), n = 3) # infinite at a face of the first cell
  expect_error(gbees(nan_model, c(-11.5, -10, 9.5), diag(3), 0.5, 0.1, device = "gpu"), "not finite near the state")
  set.seed(4)
  gpu <- gbees_mc(duffing, x0 = c(1, 0), cov = diag(0.01, 2), times = c(0.5, 2), n = 2000, device = "gpu")
  set.seed(4)
  cpu <- gbees_mc(duffing, x0 = c(1, 0), cov = diag(0.01, 2), times = c(0.5, 2), n = 2000, device = "cpu")
  for (k in 1:2) expect_lte(max(abs(gpu$samples[[k]] - cpu$samples[[k]]) / (1 + abs(cpu$samples[[k]]))), 1e-10)
})

test_that("measurements given as expressions update on the GPU as on the CPU, where h is not finite too", {
  skip_without_gpu()
  skip_if_not(gpustats:::gbees_has_c_compiler(), "no C compiler")
  range_bearing <- c("sqrt(x1*x1 + x2*x2) + 0.5 * t", "atan2(x2, x1)")
  S <- matrix(c(2, 0.3, 0.3, 0.05), 2)
  y <- rbind(c(16, -2.4), c(15, -2.5))
  args <- list(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(0.2, 0.3, 0.4),
               measurements = gbees_measurements(c(0.2, 0.3), y, range_bearing, S), threshold = 1e-7)
  gpu <- do.call(gbees, c(args, device = "gpu"))
  expect_equal(gpu$device, "gpu")
  # sqrt and atan2 may differ in their last bit between CUDA's and the C
  # library (a few ulps of a likelihood: 6e-16 of a probability on an H100);
  # the relative bound on every cell above the floor stays 1e-10
  expect_same_density(gpu, do.call(gbees, c(args, device = "cpu")), abs = 1e-15)
  # NaN below x1 = -9, infinite at it: zero likelihood on both devices; with an expression model too
  args$measurements <- gbees_measurements(0.2, 1, "sqrt(x1 + 9) + 0.1 / (x1 + 9)", 1)
  args[[1]] <- l63_expressions
  expect_same_density(do.call(gbees, c(args, device = "gpu")), do.call(gbees, c(args, device = "cpu")), abs = 1e-15)
  meas <- gbees_measurements(0.2, y[1, ], range_bearing, S)
  meas$source <- sub("atan2(x[1], x[0])", "atan2(x[1], undeclared_thing)", meas$source, fixed = TRUE)
  expect_error(gpustats:::gbees_measurement_native(meas, 0L, lorenz63(), NULL),
               "measurement function's device code does not compile.*undeclared_thing")
})

test_that("the Monte Carlo reference agrees on GPU and CPU", {
  skip_without_gpu()
  set.seed(3)
  gpu <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = c(0.1, 0.3), n = 2000, device = "gpu")
  set.seed(3)
  cpu <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = c(0.1, 0.3), n = 2000, device = "cpu")
  for (k in 1:2) expect_lte(max(abs(gpu$samples[[k]] - cpu$samples[[k]]) / (1 + abs(cpu$samples[[k]]))), 1e-10)
})

test_that("runs that would take too many steps stop before stepping, saying how many and what to change", {
  x0 <- c(-11.5, -10, 9.5)
  huge_velocity <- gbees_model(function(x) x * 0 + 1e300, n = 3)
  for (run in list(function() gbees(lorenz63(), x0, diag(3), 0.5, times = 1e300),
                   function() gbees(lorenz63(), x0, diag(3), 0.5, 0.05, cfl = 1e-300),
                   function() gbees(huge_velocity, x0, diag(3), 0.5, 0.05))) {
    expect_error(run(), "would take about .* time steps .* more than the 1e\\+08 allowed: use wider cells",
                 class = "gpustats_error_argument")
  }
  # cells far narrower than the spacing of doubles at the initial mean cannot be told apart
  expect_error(gbees(lorenz63(), c(1e300, 0, 0), diag(3), 0.5, 0.05), "cannot be told apart near state 1",
               class = "gpustats_error_argument")
  # an ordinary run is not refused
  expect_equal(gbees(lorenz63(), x0, diag(3), 0.5, 0.01)$info$steps, 7)
})

test_that("a time span lost in the rounding of large times is an error, not a run of no steps", {
  x0 <- c(-11.5, -10, 9.5)
  # 1e15 + 0.05 is 1e15 in double precision; 1e15 + 0.1 is 1e15 + 0.125, reached by steps lost in rounding
  for (t_end in c(1e15 + 0.05, 1e15 + 0.1)) {
    expect_error(gbees(lorenz63(), x0, diag(3), 0.5, times = t_end, t0 = 1e15),
                 "resolves times only to 0.125.*nearer origin", class = "gpustats_error_argument")
  }
  # a moderate origin keeps the steps: the density is the one of the same run from 0
  shifted <- gbees(lorenz63(), x0, diag(3), 0.5, times = 1000.05, t0 = 1000)$snapshots[[1]]
  plain <- gbees(lorenz63(), x0, diag(3), 0.5, times = 0.05)$snapshots[[1]]
  expect_identical(shifted$keys, plain$keys)
  expect_equal(shifted$prob, plain$prob, tolerance = 1e-9)
})

test_that("a measurement with zero likelihood on every cell is an error", {
  x0 <- c(-11.5, -10, 9.5)
  impossible <- gbees_measurements(time = 0.02, y = 1e6, h = 3, cov = 1)
  expect_error(gbees(lorenz63(), x0, diag(3), 1, 0.02, measurements = impossible, threshold = 1e-4),
               "measurement is impossible", class = "gpustats_error_argument")
  # far but possible: applied
  far <- gbees_measurements(time = 0.02, y = 0, h = 3, cov = 1)
  fit <- gbees(lorenz63(), x0, diag(3), 1, 0.02, measurements = far, threshold = 1e-4)
  expect_lt(summary(fit)$table$mean_x3[2], summary(fit)$table$mean_x3[1])
})

test_that("the Monte Carlo refuses step counts beyond the bound, with no undefined conversion", {
  x0 <- c(-11.5, -10, 9.5)
  expect_error(gbees_mc(lorenz63(), x0, diag(3), 1e6, n = 10, step = 1e-3),
               "would take 1e\\+09 Runge-Kutta steps .* use a larger step", class = "gpustats_error_argument")
  # 1e299 steps: formerly converted to a long out of range, leaving the samples unmoved
  expect_error(gbees_mc(lorenz63(), x0, diag(3), 0.1, n = 2, step = 1e-300), "1e\\+299 Runge-Kutta steps",
               class = "gpustats_error_argument")
  expect_error(gbees_mc(lorenz63(), x0, diag(3), 0.1, n = 2, t0 = -1e308), "inf\\s+Runge-Kutta steps",
               class = "gpustats_error_argument")
})

test_that("Monte Carlo samples that leave the doubles are kept with a classed warning", {
  expect_warning(mc <- gbees_mc(lorenz63(), c(1e200, 1e200, 1e200), diag(3), 0.01, n = 5),
                 "5 of 5 Monte Carlo samples are not finite at time 0.01", class = "gpustats_warning_nonfinite")
  expect_true(all(is.nan(mc$samples[[1]])))
  expect_no_warning(gbees_mc(lorenz63(), c(-11.5, -10, 9.5), diag(3), 0.01, n = 5))
})

test_that("the Monte Carlo batches its steps without changing the result, and can be interrupted between batches", {
  x <- matrix(rnorm(300), 100, 3) + rep(c(-11.5, -10, 9.5), each = 100)
  skip_if_not(gpustats:::gbees_has_c_compiler(), "no C compiler")
  native <- gpustats:::gbees_model_native(duffing, -1L, environment())
  xd <- x[, 1:2] * 0.1
  run <- function(model, x, progress, t1 = 0.5) {
    gpustats:::gs_call(.Call(gpustats:::gs_r_gbees_monte_carlo, model, x, 0, t1, 1e-3, 1L, -1L, progress),
                       environment())
  }
  calls <- 0
  counting <- function(done) calls <<- calls + 1
  batched <- run(native, xd, counting)
  expect_gt(calls, 1) # several batches
  # the same steps in one batch, by R's arithmetic of the time-dependent field
  f <- function(y, t) cbind(y[, 2], -0.25 * y[, 2] + y[, 1] - y[, 1]^3 + 0.3 * cos(t))
  y <- xd
  for (s in 0:499) {
    t <- s * 1e-3
    k1 <- f(y, t)
    k2 <- f(y + 0.5e-3 * k1, t + 0.5e-3)
    k3 <- f(y + 0.5e-3 * k2, t + 0.5e-3)
    k4 <- f(y + 1e-3 * k3, t + 1e-3)
    y <- y + 1e-3 / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
  }
  expect_equal(batched, y, tolerance = 1e-13)
  # a real user interrupt a thousandth of the way through 5e7 steps, which would take minutes
  skip_if_signals_late()
  interrupt_early <- function(done) if (done > 1e-3) tools::pskill(Sys.getpid(), tools::SIGINT)
  started <- proc.time()[["elapsed"]]
  expect_identical(interrupt_outcome(run(gpustats:::gbees_model_native(lorenz63(), -1L, environment()), x, interrupt_early, t1 = 5e4)),
                   "interrupt")
  expect_lt(proc.time()[["elapsed"]] - started, 30)
})

test_that("an interrupt inside a model function is an interrupt, not an argument error", {
  skip_if_signals_late()
  interrupting <- gbees_model(function(x) {
    tools::pskill(Sys.getpid(), tools::SIGINT)
    Sys.sleep(0.5)
    x
  }, n = 3)
  x0 <- c(-11.5, -10, 9.5)
  expect_identical(interrupt_outcome(gbees(interrupting, x0, diag(3), 1, 0.02)), "interrupt")
  expect_identical(interrupt_outcome(gbees_mc(interrupting, x0, diag(3), 0.02, n = 3)), "interrupt")
})

test_that("bad input to every GBEES function gets a classed error", {
  x0 <- c(-11.5, -10, 9.5)
  fit <- gbees(lorenz63(), x0, diag(3), 1, 0.02, threshold = 1e-4)
  bad <- list(NA, NaN, Inf, -Inf, numeric(0), "a", list(1), factor("a"), 1i, data.frame(a = 1), NULL)
  nonpositive <- list(-1, 0)
  cases <- list(
    x0 = list(function(v) gbees(lorenz63(), v, diag(3), 1, 0.02), bad),
    cov = list(function(v) gbees(lorenz63(), x0, v, 1, 0.02), c(bad, nonpositive, list(diag(1e300, 3)))),
    dx = list(function(v) gbees(lorenz63(), x0, diag(3), v, 0.02), c(bad, nonpositive)),
    times = list(function(v) gbees(lorenz63(), x0, diag(3), 1, v), c(bad, -1)),
    threshold = list(function(v) gbees(lorenz63(), x0, diag(3), 1, 0.02, threshold = v), c(bad, -1, 1)),
    cfl = list(function(v) gbees(lorenz63(), x0, diag(3), 1, 0.02, cfl = v), c(bad, nonpositive)),
    prune_every = list(function(v) gbees(lorenz63(), x0, diag(3), 1, 0.02, prune_every = v), c(bad, nonpositive, 1.5, 1e10)),
    t0 = list(function(v) gbees(lorenz63(), x0, diag(3), 1, 0.02, t0 = v), c(bad, 1)),
    model = list(function(v) gbees(v, x0, diag(3), 1, 0.02), c(bad, list(lorenz96()))),
    measurements = list(function(v) gbees(lorenz63(), x0, diag(3), 1, 0.02, measurements = v), bad[-11]),
    device = list(function(v) gbees(lorenz63(), x0, diag(3), 1, 0.02, device = v), c(bad, "tpu")),
    mc_n = list(function(v) gbees_mc(lorenz63(), x0, diag(3), 0.01, n = v), c(bad, nonpositive, 2.5, 1e10)),
    mc_step = list(function(v) gbees_mc(lorenz63(), x0, diag(3), 0.01, n = 3, step = v), c(bad, nonpositive)),
    mc_times = list(function(v) gbees_mc(lorenz63(), x0, diag(3), v, n = 3), c(bad, -1)),
    mc_x0 = list(function(v) gbees_mc(lorenz63(), v, diag(3), 0.01, n = 3), c(bad, list(1:2))),
    mc_cov = list(function(v) gbees_mc(lorenz63(), x0, v, 0.01, n = 3), c(bad, nonpositive, list(diag(2)))),
    meas_time = list(function(v) gbees_measurements(v, 1, 3, 1), bad),
    meas_y = list(function(v) gbees_measurements(1, v, 3, 1), c(bad, list(c(1, 2)))),
    meas_h = list(function(v) gbees_measurements(1, 1, v, 1), c(bad, nonpositive, 1.7, list(c(1, 2)))),
    meas_cov = list(function(v) gbees_measurements(1, 1, 3, v), c(bad, nonpositive, list(diag(2)))),
    sigma = list(function(v) lorenz63(sigma = v), bad),
    l96_n = list(function(v) lorenz96(n = v), c(bad, nonpositive, 4.5, 9)),
    l96_F = list(function(v) lorenz96(F = v), bad),
    mu = list(function(v) pcr3bp(mu = v), c(bad, nonpositive, 1)),
    f = list(function(v) gbees_model(v, 2), c(bad, list(c("x2", "x1", "x1")))),
    n = list(function(v) gbees_model(function(x) x, v), c(bad, nonpositive, 1.5, 9)),
    state_names = list(function(v) gbees_model(function(x) x, 2, state_names = v), c(bad[-11], list(c("a", "a")))),
    autonomous = list(function(v) gbees_model(function(x) x, 2, autonomous = v), bad),
    par = list(function(v) gbees_model(c("k * x2", "x1"), 2, par = v), c(bad[-11], list(c(k = NA)), list(c(1)))),
    dims = list(function(v) marginal(fit, dims = v), c(bad, nonpositive, 4, list(1:3), list(c(1, 1)))),
    time = list(function(v) marginal(fit, time = v), c(bad[-11], 5)),
    posterior = list(function(v) marginal(fit, posterior = v), bad),
    samples = list(function(v) bhattacharyya(fit, v), c(bad, list(matrix(0, 2, 2)), list(matrix(0, 0, 3)))),
    bin = list(function(v) bhattacharyya(fit, matrix(0, 2, 3), bin = v), c(bad, nonpositive)),
    object = list(function(v) bhattacharyya(v, matrix(0, 2, 3)), bad),
    plot_times = list(function(v) plot(fit, times = v), c(bad[-11], 5))
  )
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  for (name in names(cases)) {
    for (v in cases[[name]][[2L]]) {
      expect_error(suppressWarnings(cases[[name]][[1L]](v)), class = "gpustats_error", info = paste(name, deparse(v)))
    }
  }
})
