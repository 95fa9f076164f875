# The approximate maxmin ordering (nested r-nets) against the exact one.

# Distance of each ordered point to the nearest earlier one.
earlier_distance <- function(locs, nb) {
  o <- nb$order
  c(Inf, sqrt(rowSums((locs[o[-1], , drop = FALSE] - locs[o[nb$neighbors[-1, 2]], , drop = FALSE])^2)))
}

test_that("the approximate maxmin ordering keeps the maxmin distances to within a factor of 2", {
  set.seed(11)
  for (dim in 1:3) {
    n <- 3000
    locs <- matrix(runif(dim * n), ncol = dim)
    if (dim == 2) locs[1:500, ] <- locs[1:500, ] * 0.01 # a dense cluster
    approx <- vecchia_neighbors(locs, 1, ordering = "maxmin_approx")
    exact <- vecchia_neighbors(locs, 1, ordering = "maxmin_exact")
    expect_identical(approx$ordering, "maxmin_approx")
    expect_setequal(approx$order, seq_len(n))
    expect_identical(approx$order[1], exact$order[1])
    # a point taken at level k is r_k or more from the earlier ones, and every
    # later one is within 2 r_k of those before it: d_j < 2 d_i for j > i
    d <- earlier_distance(locs, approx)
    later_max <- c(rev(cummax(rev(d[-1]))), 0)
    expect_true(all(later_max[-n] < 2 * d[-n]))
    # the exact ordering's distances do not increase (the check is not empty)
    de <- earlier_distance(locs, exact)
    expect_true(all(diff(de[-1]) <= 0))
    expect_false(all(diff(d[-1]) <= 0))
  }
})

test_that("the Vecchia likelihood is as accurate under the approximate maxmin ordering as the exact", {
  set.seed(4)
  n <- 1500
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- drop(crossprod(chol(matern_cov(locs, range = 0.15, smoothness = 1, nugget = 0.01)), rnorm(n)))
  exact <- gp_loglik(y, locs, 1, 0.15, 1, 0.01)
  err <- sapply(c("maxmin_exact", "maxmin_approx", "random"), function(o) {
    set.seed(1)
    vecchia_loglik(y, locs, 1, 0.15, 1, 0.01, m = 4, ordering = o, group = FALSE) - exact
  })
  expect_lt(abs(err[["maxmin_approx"]]), 2 * abs(err[["maxmin_exact"]]) + 1)
  # (-46, -52 and -111 when written)
  expect_lt(abs(err[["maxmin_approx"]]), abs(err[["random"]]) / 1.5)
})

test_that("ordering = 'maxmin' is exact up to 1e5 locations and approximate above", {
  kind <- gpustats:::vecchia_maxmin_kind
  expect_identical(vecchia_neighbors(matrix(runif(200), ncol = 2), 3)$ordering, "maxmin_exact")
  expect_identical(kind("maxmin", matrix(0, 1e5, 2), NULL), "maxmin_exact")
  expect_identical(kind("maxmin", matrix(0, 1e5 + 1, 2), NULL), "maxmin_approx")
  expect_identical(kind("maxmin", matrix(0, 1e5 + 1, 4), NULL), "maxmin_exact")
  expect_error(vecchia_neighbors(matrix(runif(40), ncol = 4), 2, ordering = "maxmin_approx"),
               class = "gpustats_error_argument")
})

test_that("the approximate maxmin ordering takes coinciding and great-circle locations", {
  locs <- rbind(matrix(0.5, 5, 2), matrix(c(0, 1, 0, 1), 2))
  nb <- vecchia_neighbors(locs, 0, ordering = "maxmin_approx")
  expect_setequal(nb$order, seq_len(7))
  expect_identical(nb$order[1], 1L)
  set.seed(2)
  ll <- cbind(runif(500, -180, 180), runif(500, -80, 80))
  g <- vecchia_neighbors(ll, 5, ordering = "maxmin_approx", distance = "great_circle")
  expect_setequal(g$order, seq_len(500))
  expect_identical(vecchia_neighbors(matrix(1, 1, 2), 0, ordering = "maxmin_approx")$order, 1L)
})

test_that("the approximate maxmin ordering does not depend on the number of threads", {
  # each level asks whether an earlier level covers a point on all threads,
  # then takes the points in Z-order; the batches of that first pass are
  # 65,536 points, so 2e5 points cross batch ends
  set.seed(12)
  for (dim in 2:3) {
    locs <- matrix(runif(dim * 2e5), ncol = dim)
    one <- withr::with_options(list(gpustats.threads = 1), vecchia_neighbors(locs, 1, ordering = "maxmin_approx"))
    two <- withr::with_options(list(gpustats.threads = 2), vecchia_neighbors(locs, 1, ordering = "maxmin_approx"))
    expect_identical(one$order, two$order)
  }
})
