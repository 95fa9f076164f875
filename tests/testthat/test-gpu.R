# GPU results agree with the CPU path on random inputs.

test_that("every Bessel op agrees between GPU and CPU", {
  skip_without_gpu()
  set.seed(21)
  n <- 2e5
  x <- exp(runif(n, log(1e-4), log(800)))
  nu <- c(runif(n - 6, -30, 100), 0, 0.5, 1.5, 20, 1e-9, 3 + 1e-12)
  x[1:4] <- c(0, Inf, NA, NaN)
  for (log in c(FALSE, TRUE)) for (sc in c(FALSE, TRUE)) {
    g <- bessel_k(x, nu, expon_scaled = sc, log = log, device = "gpu")
    c <- bessel_k(x, nu, expon_scaled = sc, log = log, device = "cpu")
    expect_identical(is.na(g), is.na(c))
    ok <- is.finite(c) & c != 0
    expect_lte(max(abs(g[ok] - c[ok]) / pmax(1, abs(c[ok]))), 1e-13)
  }
  for (wrt in c("nu", "x")) {
    g <- bessel_k_deriv(x, nu, wrt, device = "gpu")
    c <- bessel_k_deriv(x, nu, wrt, device = "cpu")
    ok <- is.finite(c) & c != 0
    expect_lte(max_rel_err(g[ok], c[ok]), 1e-12)
  }
})

test_that("the GPU gives the CPU's Bessel and Matérn values at subnormal, huge and far-out arguments", {
  skip_without_gpu()
  ref <- utils::read.csv(test_path("fixtures", "besselk-extreme.csv"))
  same <- function(g, c) {
    expect_identical(is.na(g), is.na(c))
    expect_identical(is.infinite(g), is.infinite(c))
    ok <- is.finite(c) & c != 0
    expect_lte(max(abs(g[ok] - c[ok]) / pmax(1, abs(c[ok]))), 1e-12)
  }
  for (log in c(FALSE, TRUE)) for (sc in c(FALSE, TRUE))
    same(bessel_k(ref$x, ref$nu, expon_scaled = sc, log = log, device = "gpu"),
         bessel_k(ref$x, ref$nu, expon_scaled = sc, log = log, device = "cpu"))
  for (wrt in c("nu", "x"))
    same(bessel_k_deriv(ref$x, ref$nu, wrt, device = "gpu"), bessel_k_deriv(ref$x, ref$nu, wrt, device = "cpu"))
  m <- read_fixture("matern-extreme.csv")
  g <- matern(m$z, 1, 1, m$nu, device = "gpu")
  expect_true(all(g >= 0 & g <= 1))
  same(g, matern(m$z, 1, 1, m$nu, device = "cpu"))
  locs <- matrix(c(0, 1e-200), 2)
  expect_equal(matern_cov(locs, range = 1e-200, smoothness = 0.5, device = "gpu")[2, 1], exp(-1), tolerance = 1e-14)
})

test_that("the GPU recycles short inputs and keeps R's conventions", {
  skip_without_gpu()
  x <- exp(runif(3e5, -5, 5))
  expect_equal(bessel_k(x, c(0.5, 2.5, 7), device = "gpu"), bessel_k(x, c(0.5, 2.5, 7), device = "cpu"),
               tolerance = 1e-13)
  expect_warning(bessel_k(c(-1, x), 1, device = "gpu"), "NaNs produced")
  expect_identical(bessel_k(numeric(0), 1, device = "gpu"), numeric(0))
  # grouped parameters (each value for a run of elements), as a batched fit passes them
  y <- rnorm(3e5)
  grouped <- function(dev) {
    gpustats:::gs_map("stable_d", list(y, c(1.5, 0.8, 1.9), c(0.2, -0.7, 1), c(1, 2, 0.5), c(0, 1, -1)),
                      dev, environment(), each = c(1, 1e5, 1e5, 1e5, 1e5))
  }
  expect_equal(grouped("gpu"), grouped("cpu"), tolerance = 1e-13)
  expect_identical(grouped("cpu"), dstable(y, rep(c(1.5, 0.8, 1.9), each = 1e5), rep(c(0.2, -0.7, 1), each = 1e5),
                                           rep(c(1, 2, 0.5), each = 1e5), rep(c(0, 1, -1), each = 1e5),
                                           device = "cpu"))
})

test_that("matern and matern_cov agree between GPU and CPU", {
  skip_without_gpu()
  set.seed(8)
  d <- runif(1e5, 0, 3)
  for (nu in c(0.5, 1.5, 2.5, 0.3, 1.2, 7.7, 19.9)) {
    expect_lte(max(abs(matern(d, range = 0.2, smoothness = nu, device = "gpu") -
                         matern(d, range = 0.2, smoothness = nu, device = "cpu"))), 1e-14)
  }
  locs <- matrix(runif(3000), ncol = 2)
  locs2 <- matrix(runif(800), ncol = 2)
  for (nu in c(0.5, 1.3, 3.5)) {
    g <- matern_cov(locs, range = 0.1, smoothness = nu, nugget = 0.2, device = "gpu")
    c <- matern_cov(locs, range = 0.1, smoothness = nu, nugget = 0.2, device = "cpu")
    expect_lte(max(abs(g - c)), 1e-14)
    g2 <- matern_cov(locs, locs2, range = 0.1, smoothness = nu, device = "gpu")
    c2 <- matern_cov(locs, locs2, range = 0.1, smoothness = nu, device = "cpu")
    expect_lte(max(abs(g2 - c2)), 1e-14)
  }
  ll <- cbind(runif(500, -180, 180), runif(500, -90, 90))
  expect_lte(max(abs(matern_cov(ll, range = 500, distance = "great_circle", device = "gpu") -
                       matern_cov(ll, range = 500, distance = "great_circle", device = "cpu"))), 1e-13)
})

test_that("the GPU reaches the reference accuracy", {
  skip_without_gpu()
  ref <- besselk_reference()
  got <- bessel_k(ref$x, ref$nu, log = TRUE, device = "gpu")
  inner <- ref$region %in% c("core", "small_x", "near_int")
  expect_lte(max(abs(got - ref$log_K)[inner]), 1e-13)
  expect_lte(max(abs(got - ref$log_K)), 1e-12)
})

test_that("gpu_info describes the device and the benchmark hooks run", {
  skip_without_gpu()
  info <- gpu_info()
  expect_gt(info$total_memory[1], 0)
  expect_match(info$compute_capability[1], "^[0-9]+\\.[0-9]+$")
  b <- gpustats:::bench_bessel_k_device(1e6, reps = 3)
  expect_gt(b$evals_per_second, 0)
  m <- gpustats:::bench_matern_cov_device(2000, smoothness = 1.3, reps = 3)
  expect_gt(m$entries_per_second, 0)
})

test_that("chunked and tiled GPU work gives the CPU values", {
  skip_without_gpu()
  set.seed(3)
  # more elements than one chunk of the map (2^26), recycled orders
  n <- 6.9e7 # a multiple of 3
  x <- rep_len(exp(runif(1e4, log(1e-3), log(500))), n)
  nus <- c(0.5, 2.3, 7.9)
  g <- bessel_k(x, nus, log = TRUE, device = "gpu")
  idx <- c(sample.int(n, 1e5), n - 0:9, 2^26 + -2:2)
  c <- bessel_k(x[idx], nus[(idx - 1) %% 3 + 1], log = TRUE, device = "cpu")
  expect_lte(max(abs(g[idx] - c) / pmax(1, abs(c))), 1e-13)
  rm(g, x)
  # more entries than one tile of matern_cov (2^28)
  locs <- matrix(runif(4e4), ncol = 2)
  locs2 <- matrix(runif(2.8e4), ncol = 2)
  S <- matern_cov(locs, locs2, range = 0.1, smoothness = 1.3, device = "gpu")
  i <- sample.int(nrow(locs), 2000, replace = TRUE)
  j <- c(sample.int(nrow(locs2), 1990, replace = TRUE), nrow(locs2) - 0:9)
  d <- sqrt(rowSums((locs[i, ] - locs2[j, ])^2))
  expect_lte(max(abs(S[cbind(i, j)] - matern(d, range = 0.1, smoothness = 1.3, device = "cpu"))), 1e-14)
})

test_that("empty inputs leave the GPU usable", {
  skip_without_gpu()
  expect_identical(dim(matern_cov(matrix(numeric(0), 0, 2), device = "gpu")), c(0L, 0L))
  expect_identical(dim(matern_cov(matrix(1, 1, 2), matrix(numeric(0), 0, 2), device = "gpu")), c(1L, 0L))
  expect_equal(bessel_k(2, 1, device = "gpu"), besselK(2, 1), tolerance = 1e-15)
})

test_that("an interrupt between GPU chunks stops the work cleanly", {
  skip_without_gpu()
  skip_if_signals_late()
  interrupt_at_third <- function(done) if (done > 0.3) tools::pskill(Sys.getpid(), tools::SIGINT)
  # after its cleanup, the work signals R's own interrupt condition
  outcome <- function(expr) tryCatch({ expr; "finished" }, interrupt = function(e) "interrupt")
  x <- runif(2.5e8)
  id <- as.integer(getOption("gpustats.gpus", 0L)[1])
  expect_identical(outcome(gpustats:::gs_call(.Call(gpustats:::gs_r_map, 2L, list(x, 1.5), id, 0L, interrupt_at_third,
                                                    0L, -1, c(1, 1)), environment())), "interrupt")
  rm(x)
  locs <- matrix(runif(5e4), ncol = 2) # 5 GB: three tiles
  matern_model <- gpustats:::cov_model(c(sigma2 = 1, range = 0.1, smoothness = 1.3, nugget = 0), "euclidean")
  expect_identical(outcome(gpustats:::gs_call(.Call(gpustats:::gs_r_matern_cov, locs, NULL, matern_model, id, 0L,
                                                    interrupt_at_third), environment())), "interrupt")
  invisible(gc())
  expect_equal(bessel_k(c(0.5, 2), 1.5, device = "gpu"), besselK(c(0.5, 2), 1.5), tolerance = 1e-14)
})

test_that("Gaussian-process likelihood, draws, fits and kriging agree between GPU and CPU", {
  skip_without_gpu()
  set.seed(1)
  locs <- matrix(runif(4000), ncol = 2)
  y <- rnorm(2000)
  for (p in list(c(1, 0.1, 0.5, 0), c(2.5, 0.05, 1.7, 0.1))) {
    g <- gp_loglik(y, locs, p[1], p[2], p[3], p[4], device = "gpu")
    c <- gp_loglik(y, locs, p[1], p[2], p[3], p[4], device = "cpu")
    expect_equal(as.numeric(g), as.numeric(c), tolerance = 1e-10)
    expect_equal(attr(g, "logdet"), attr(c, "logdet"), tolerance = 1e-10)
  }
  set.seed(2)
  a <- gp_simulate(locs, 1, 0.1, 1.2, nsim = 2, device = "gpu")
  set.seed(2)
  b <- gp_simulate(locs, 1, 0.1, 1.2, nsim = 2, device = "cpu")
  expect_lte(max(abs(a - b)), 1e-9)
  yy <- a[1:600, 1]
  ll <- locs[1:600, ]
  fg <- gp_fit(yy, ll, nugget = TRUE, device = "gpu", control = list(trace = FALSE))
  fc <- gp_fit(yy, ll, nugget = TRUE, device = "cpu", control = list(trace = FALSE))
  expect_equal(fg$loglik, fc$loglik, tolerance = 1e-8)
  expect_equal(coef(fg), coef(fc), tolerance = 1e-4)
  new <- matrix(runif(200), ncol = 2)
  expect_equal(predict(fg, new, se.fit = TRUE, device = "gpu"), predict(fg, new, se.fit = TRUE, device = "cpu"),
               tolerance = 1e-9)
})

test_that("mixed-precision likelihoods, draws and fits on the GPU stay within their bounds", {
  skip_without_gpu()
  case <- mixed_loglik_case(3000, seed = 21)
  for (acc in c(1e-4, 1e-7)) expect_lte(abs(case$mixed(acc, "gpu") - case$exact), case$bound(acc))
  locs <- case$locs
  set.seed(22)
  a <- gp_simulate(locs, 1, 0.03, 0.5, nsim = 2, precision = "mixed", accuracy = 1e-15, device = "gpu")
  set.seed(22)
  b <- gp_simulate(locs, 1, 0.03, 0.5, nsim = 2, precision = "mixed", accuracy = 1e-15, device = "cpu")
  expect_equal(a, b, tolerance = 1e-10)
  ref <- gp_fit(case$y[1:1500], locs[1:1500, ], nugget = FALSE, device = "gpu", control = list(trace = FALSE))
  fit <- gp_fit(case$y[1:1500], locs[1:1500, ], nugget = FALSE, precision = "mixed", accuracy = 1e-6, device = "gpu",
                control = list(trace = FALSE))
  se <- sqrt(diag(vcov(ref)))
  expect_lte(max(abs(coef(fit)[names(se)] - coef(ref)[names(se)]) / se), 0.05)
})

test_that("anisotropic and space-time fits, kriging and conditional draws on the GPU equal the CPU's", {
  skip_without_gpu()
  set.seed(31)
  locs <- matrix(runif(1200), ncol = 2)
  y <- 2 + gp_simulate(locs %*% diag(c(1 / 0.2, 1 / 0.05)), 1, 1, 1.5, nugget = 0.01, device = "cpu")
  new <- matrix(runif(100), ncol = 2)
  quiet <- list(trace = FALSE)
  for (tiles in c(FALSE, TRUE)) {
    withr::local_options(gpustats.gp_tiles = tiles) # the dense path re-uploads the locations, the tiled reads them
    fc <- gp_fit(y, locs, cov = "matern32_aniso", device = "cpu", control = quiet)
    fg <- gp_fit(y, locs, cov = "matern32_aniso", device = "gpu", control = quiet)
    expect_equal(fg$loglik, fc$loglik, tolerance = 1e-8)
    expect_equal(coef(fg), coef(fc), tolerance = 1e-4)
    expect_equal(predict(fc, new, se.fit = TRUE, device = "gpu"), predict(fc, new, se.fit = TRUE, device = "cpu"),
                 tolerance = 1e-9)
    expect_equal(simulate(fc, 2, seed = 4, newdata = new, device = "gpu"),
                 simulate(fc, 2, seed = 4, newdata = new, device = "cpu"), tolerance = 1e-8)
  }
  st <- cbind(locs, t = rep(1:4, 150))
  # y has no structure in time: the temporal range ends at its bound, with the warning that says so
  fs <- lapply(c("cpu", "gpu"), function(d) {
    warned <- FALSE
    f <- withCallingHandlers(gp_fit(y, st, cov = "exponential_spacetime", device = d, control = quiet),
                             gpustats_warning_at_bound = function(w) {
                               warned <<- TRUE
                               invokeRestart("muffleWarning")
                             })
    expect_true(warned)
    f
  })
  expect_equal(fs[[2]]$loglik, fs[[1]]$loglik, tolerance = 1e-8)
})

test_that("the tile Cholesky path on the GPU gives the CPU likelihood, draws and predictions", {
  skip_without_gpu()
  set.seed(6)
  locs <- matrix(runif(5000), ncol = 2)
  y <- rnorm(2500)
  fit <- gp_fit(y, locs, fixed = list(sigma2 = 1, range = 0.1, smoothness = 0.9, nugget = 0.01), device = "cpu",
                control = list(trace = FALSE))
  new <- matrix(runif(600), ncol = 2)
  cpu <- gp_loglik(y, locs, 1, 0.1, 0.9, 0.01, device = "cpu")
  pred_cpu <- predict(fit, new, se.fit = TRUE, device = "cpu")
  old <- options(gpustats.gp_tiles = TRUE)
  on.exit(options(old))
  # the factor stays on the GPU (three tile rows): the solves run there
  gpu <- gp_loglik(y, locs, 1, 0.1, 0.9, 0.01, device = "gpu")
  expect_equal(attributes(gpu), attributes(cpu), tolerance = 1e-10)
  expect_equal(as.numeric(gpu), as.numeric(cpu), tolerance = 1e-10)
  expect_equal(predict(fit, new, se.fit = TRUE, device = "gpu"), pred_cpu, tolerance = 1e-9)
  set.seed(7)
  a <- gp_simulate(locs, 1, 0.1, 0.9, 0.01, nsim = 2, device = "gpu")
  options(old)
  set.seed(7)
  b <- gp_simulate(locs, 1, 0.1, 0.9, 0.01, nsim = 2, device = "cpu")
  expect_lte(max(abs(a - b)), 1e-9)
})

test_that("a covariance larger than the GPU and the host is refused before allocating", {
  skip_without_gpu()
  big <- matrix(runif(2e6), ncol = 2) # n = 1,000,000: 4 TB in tiles, more than any host holds
  expect_error(gp_loglik(rnorm(1e6), big, 1, 0.1, 1, device = "gpu"), "need [0-9.]+ GB",
               class = "gpustats_error_memory")
  expect_true(is.finite(gp_loglik(rnorm(100), big[1:100, ], 1, 0.1, 1, device = "gpu")))
})

test_that("stable d/p/q/r on the GPU agree with the CPU on random inputs", {
  skip_without_gpu()
  set.seed(11)
  n <- 20000
  x <- runif(n, -100, 100)
  a <- runif(n, 0.5, 2)
  b <- runif(n, -1, 1)
  a[1:200] <- 1 + runif(200, -1e-4, 1e-4)
  expect_stable_gpu_equal_cpu(x, a, b, 1e-13)
  # quantiles near 0 (|q| down to 3e-5 here) are compared on the absolute scale
  p <- runif(2000)
  qg <- qstable(p, a[1:2000], b[1:2000], device = "gpu")
  qc <- qstable(p, a[1:2000], b[1:2000], device = "cpu")
  expect_lt(max(abs(qg - qc) / pmax(1, abs(qc))), 1e-12)
  # alpha = 1, far out (integrated over s there)
  ref <- utils::read.csv(test_path("fixtures", "stable-alpha1.csv"))
  expect_lt(max(abs(dstable(ref$x, 1, ref$beta, device = "gpu") / ref$pdf - 1)), 1e-12)
  expect_lt(max(abs(pstable(ref$x, 1, ref$beta, lower.tail = FALSE, device = "gpu") / ref$ccdf - 1)),
            1e-12)
  # near alpha = 1 (over s at beta = +-1 and next to zeta), S0 and S1
  near <- utils::read.csv(test_path("fixtures", "stable-near-one.csv"))
  near <- near[near$pdf > 0, ]
  expect_lt(max(abs(dstable(near$x, near$alpha, near$beta, device = "gpu") / near$pdf - 1)), 1e-12)
  expect_lt(max(abs(pstable(near$x, near$alpha, near$beta, device = "gpu") / near$cdf - 1)), 1e-12)
  s1 <- utils::read.csv(test_path("fixtures", "stable-s1-near-one.csv"))
  s1 <- s1[s1$pdf > 1e-40 & s1$cdf > 1e-40 & s1$ccdf > 1e-40, ]
  expect_lt(max(abs(dstable(s1$x, s1$alpha, s1$beta, pm = 1, device = "gpu") / s1$pdf - 1)), 1e-12)
  expect_lt(max(abs(pstable(s1$x, s1$alpha, s1$beta, pm = 1, lower.tail = FALSE, device = "gpu") /
                    s1$ccdf - 1)), 1e-12)
  set.seed(5)
  rg <- rstable(1e5, 1.3, 0.4, device = "gpu")
  set.seed(5)
  rc <- rstable(1e5, 1.3, 0.4, device = "cpu")
  expect_lt(max(abs(rg - rc) / pmax(1, abs(rc))), 1e-10)
})
