# The Bhattacharyya coefficients of bhattacharyya(): kernel-smoothed sums
# against a brute-force evaluation of their definition, invariances, the
# sampled estimate, bad input, and the GPU against the CPU.

bc_case <- local({
  cached <- NULL
  function() {
    if (is.null(cached)) {
      fit <- gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 1, times = 0.05)
      set.seed(11)
      mc <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = 0.05, n = 400)
      cached <<- list(fit = fit, x = mc$samples[[1]], s = fit$snapshots[[1]])
    }
    cached
  }
})

# The definition, pair by pair: Scott's kernel H, a and b at every cell
# centre over pairs within `cutoff` Mahalanobis distance, normalised over the cells.
bc_brute_force <- function(fit, s, x, cutoff = 8) {
  n <- nrow(x)
  H <- stats::cov(x) * n^(-2 / (ncol(x) + 4))
  Hi <- solve(H)
  centres <- s$keys * rep(fit$dx, each = nrow(s$keys)) + rep(fit$center, each = nrow(s$keys))
  p <- s$prob / sum(s$prob)
  kernel <- function(y, z) {
    dz <- z - rep(y, each = nrow(z))
    m <- rowSums((dz %*% Hi) * dz)
    ifelse(m <= cutoff^2, exp(-m / 2) / sqrt(det(2 * pi * H)), 0)
  }
  a <- apply(centres, 1, function(y) sum(p * kernel(y, centres)))
  b <- apply(centres, 1, function(y) sum(kernel(y, x)))
  c(coefficient = sum(sqrt(a / sum(a) * b / sum(b))), one_sided = sum(sqrt(p * b / sum(b))))
}

test_that("the kernel-smoothed coefficients match their definition evaluated pair by pair", {
  k <- bc_case()
  ref <- bc_brute_force(k$fit, k$s, k$x)
  set.seed(4)
  bc <- bhattacharyya(k$fit, k$x)
  expect_s3_class(bc, "gbees_bhattacharyya")
  expect_true(bc$exact)
  expect_equal(c(bc$coefficient, bc$one_sided), unname(ref), tolerance = 1e-12)
  expect_equal(bc$coefficient_se, 0)
  expect_equal(as.double(bc), bc$coefficient)
  expect_equal(unname(bc$bandwidth), unname(stats::cov(k$x)) * 400^(-2 / 7), tolerance = 1e-14)
  # the reference: the same measure for as many samples drawn from the grid density
  set.seed(4)
  cells <- sample.int(length(k$s$prob), 400, replace = TRUE, prob = k$s$prob)
  own <- (k$s$keys[cells, ] + matrix(runif(1200) - 0.5, 400, 3)) * rep(k$fit$dx, each = 400) +
    rep(k$fit$center, each = 400)
  expect_equal(bc$reference, bc_brute_force(k$fit, k$s, own)[["coefficient"]], tolerance = 1e-12)
  # a wider cut-off adds only terms below exp(-32)
  wide <- bhattacharyya(k$fit, k$x, cutoff = 12, reference = FALSE)
  expect_equal(wide$coefficient, bc_brute_force(k$fit, k$s, k$x, cutoff = 12)[["coefficient"]], tolerance = 1e-12)
  expect_output(print(bc), "coefficient 0\\.9.*exact-agreement reference.*one-sided")
})

# The core's kernel sums, pair by pair: sum_j w_j exp(-|y - z_j|^2 / 2) over
# |y - z_j| <= radius.
kernel_sums_brute_force <- function(z, w, y, radius) {
  apply(y, 1, function(p) {
    d2 <- colSums((t(z) - p)^2)
    sum(ifelse(d2 <= radius^2, w * exp(-d2 / 2), 0))
  })
}

kernel_sums <- function(z, w, y, radius, device = "cpu") {
  id <- gpustats:::resolve_device(device, 0, "map", NULL)
  gpustats:::gs_call(.Call(gpustats:::gs_r_gbees_kernel_sums, z, w, y, diag(ncol(z)), radius, 2L, id, NULL), NULL)
}

test_that("kernel sums boxed in every coordinate equal pair-by-pair sums in 1 to 8 dimensions", {
  set.seed(21)
  for (d in c(1, 2, 3, 6, 8)) {
    # random sources with a far outlier (it joins an edge box), points inside and outside
    z <- matrix(runif(600 * d, -3, 3), ncol = d)
    z[1, ] <- 1e4
    y <- rbind(matrix(runif(150 * d, -4, 4), ncol = d), rep(-1e3, d), z[1:5, , drop = FALSE])
    expect_equal(kernel_sums(z, NULL, y, 2.5), kernel_sums_brute_force(z, rep(1, 600), y, 2.5), tolerance = 1e-13,
                 info = paste(d, "random"))
    # weighted lattice points, the grid's own cells: pairs at exactly the radius count
    lattice <- matrix(sample(0:6, 600 * d, replace = TRUE) * 0.5, ncol = d)
    w <- runif(600)
    expect_equal(kernel_sums(lattice, w, lattice, 1.5), kernel_sums_brute_force(lattice, w, lattice, 1.5),
                 tolerance = 1e-13, info = paste(d, "lattice"))
  }
})

test_that("the coefficients are invariant under sample order, threads and affine maps of the state", {
  k <- bc_case()
  bc <- bhattacharyya(k$fit, k$x, reference = FALSE)
  shuffled <- bhattacharyya(k$fit, k$x[rev(seq_len(nrow(k$x))), ], reference = FALSE)
  expect_equal(shuffled$coefficient, bc$coefficient, tolerance = 1e-13)
  old <- options(gpustats.threads = 1)
  one <- bhattacharyya(k$fit, k$x, reference = FALSE, device = "cpu")
  options(old)
  expect_identical(one$coefficient, bc$coefficient)
  # Scott's kernel follows the sample covariance: stretching and shifting each
  # state of both the grid and the samples leaves the coefficients unchanged
  moved <- k$fit
  scale <- c(2, 0.5, 3)
  moved$dx <- k$fit$dx * scale
  moved$center <- k$fit$center * scale + c(100, -7, 1e3)
  y <- k$x * rep(scale, each = nrow(k$x)) + rep(c(100, -7, 1e3), each = nrow(k$x))
  both <- bhattacharyya(moved, y, reference = FALSE)
  expect_equal(c(both$coefficient, both$one_sided), c(bc$coefficient, bc$one_sided), tolerance = 1e-12)
  # samples far from every cell score 0
  far <- bhattacharyya(k$fit, k$x + 1e3, reference = FALSE)
  expect_equal(far$coefficient, 0)
  expect_lte(bc$coefficient, 1)
})

test_that("a grid above max_cells gives an estimate within its standard error", {
  k <- bc_case()
  exact <- bhattacharyya(k$fit, k$x, reference = FALSE)
  set.seed(8)
  est <- bhattacharyya(k$fit, k$x, max_cells = 500)
  expect_false(est$exact)
  expect_equal(est$evaluated, 500)
  expect_gt(est$coefficient_se, 0)
  expect_lt(est$coefficient_se, 0.05)
  expect_lt(abs(est$coefficient - exact$coefficient), 4 * est$coefficient_se)
  expect_lt(abs(est$one_sided - exact$one_sided), 4 * est$one_sided_se)
  # the estimate's spread over repeats is what the standard error says
  set.seed(9)
  reps <- vapply(1:30, function(i) bhattacharyya(k$fit, k$x, max_cells = 200, reference = FALSE)$coefficient, 0)
  expect_lt(abs(mean(reps) - exact$coefficient), 4 * stats::sd(reps) / sqrt(30))
  expect_output(print(est), "500 sampled")
})

test_that("the binned coefficient counts samples in blocks of cells", {
  k <- bc_case()
  s <- k$s
  # samples at chosen cell centres: the coefficient is sum sqrt(P(cell) * share)
  picks <- c(rep(1L, 3), 2L, rep(5L, 4))
  x <- s$keys[picks, ] + rep(k$fit$center, each = length(picks))
  share <- tabulate(picks, length(s$prob)) / length(picks)
  bc <- bhattacharyya(k$fit, x, method = "bins", reference = FALSE)
  expect_equal(bc$coefficient, sum(sqrt(s$prob / sum(s$prob) * share)), tolerance = 1e-12)
  expect_true(is.na(bc$one_sided))
  set.seed(3)
  ref <- bhattacharyya(k$fit, k$x, method = "bins", bin = 2)
  expect_gt(ref$reference, ref$coefficient - 0.2)
  expect_output(print(ref), "blocks of 2 cells")
})

test_that("bad input to bhattacharyya() gets classed errors", {
  k <- bc_case()
  err <- function(expr) expect_error(expr, class = "gpustats_error_argument")
  err(bhattacharyya(k$fit, k$x, method = "nearest"))
  err(bhattacharyya(k$fit, k$x, cutoff = 4))
  err(bhattacharyya(k$fit, k$x, cutoff = Inf))
  err(bhattacharyya(k$fit, k$x, max_cells = 0))
  err(bhattacharyya(k$fit, k$x, reference = NA))
  err(bhattacharyya(k$fit, k$x[0, ]))
  err(bhattacharyya(k$fit, k$x[1:3, ]))
  err(bhattacharyya(k$fit, cbind(k$x[, 1], k$x[, 1], k$x[, 2])))
  err(bhattacharyya(k$fit, k$x, device = "tpu"))
  err(bhattacharyya(k$fit, k$x, method = "bins", device = "tpu"))
  err(bhattacharyya(k$fit, k$x, time = 3))
  nonfinite <- k$x
  nonfinite[1:397, 1] <- NaN
  err(bhattacharyya(k$fit, nonfinite))
})

test_that("the GPU's kernel sums equal the CPU's", {
  skip_without_gpu()
  fit <- gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = 0.2, threshold = 1e-6)
  set.seed(12)
  mc <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = 0.2, n = 5000, device = "cpu")
  for (max_cells in c(1e6, 2000)) {
    set.seed(5)
    cpu <- bhattacharyya(fit, mc, max_cells = max_cells, device = "cpu")
    set.seed(5)
    gpu <- bhattacharyya(fit, mc, max_cells = max_cells, device = "gpu")
    for (v in c("coefficient", "one_sided", "reference", "coefficient_se")) {
      expect_equal(gpu[[v]], cpu[[v]], tolerance = 1e-12, info = paste(v, max_cells))
    }
  }
  l96 <- gbees(lorenz96(6, 4), x0 = c(4.5, rep(4, 5)), cov = diag(0.04, 6), dx = 0.2, times = 0.05,
               threshold = 1e-6, device = "gpu")
  x <- gbees_mc(lorenz96(6, 4), x0 = c(4.5, rep(4, 5)), cov = diag(0.04, 6), times = 0.05, n = 3000)
  # 6-D: boxes in all six coordinates, runs of keys along the last
  set.seed(6)
  gpu <- bhattacharyya(l96, x, device = "gpu", reference = FALSE, max_cells = 2000)
  set.seed(6)
  cpu <- bhattacharyya(l96, x, device = "cpu", reference = FALSE, max_cells = 2000)
  expect_equal(gpu$coefficient, cpu$coefficient, tolerance = 1e-12)
  # the core's sums, boxed in every coordinate, in every dimension, at 500
  # points (not a whole number of warps)
  set.seed(22)
  for (d in 1:8) {
    z <- matrix(runif(3000 * d, -3, 3), ncol = d)
    w <- runif(3000)
    y <- matrix(runif(500 * d, -4, 4), ncol = d)
    expect_equal(kernel_sums(z, w, y, 2.5, "gpu"), kernel_sums(z, w, y, 2.5, "cpu"), tolerance = 1e-13, info = d)
    lattice <- matrix(sample(0:6, 600 * d, replace = TRUE) * 0.5, ncol = d)
    expect_equal(kernel_sums(lattice, w[1:600], lattice, 1.5, "gpu"),
                 kernel_sums_brute_force(lattice, w[1:600], lattice, 1.5), tolerance = 1e-13, info = paste(d, "lattice"))
  }
})
