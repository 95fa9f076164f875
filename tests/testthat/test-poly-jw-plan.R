# Jones-Worland plans: every degree of a field in one call, against the
# single-degree transforms and against the definition (jw_eval), on the CPU
# and the GPU; the memory a plan reports; bad input.

# A field of degrees 0..lmax with the given number of columns per degree.
jw_field <- function(rows, ncol) lapply(ncol, function(k) matrix(rnorm(rows * k), rows))

rel_diff <- function(a, b) max(abs(unlist(a) - unlist(b))) / max(abs(unlist(b)))

test_that("a plan's synthesis and analysis equal those of each degree alone", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  set.seed(31)
  n <- 12; lmax <- 9; nr <- n + ceiling(lmax / 2) + 2
  ncol <- c(2, 0, 5, 1, 3, 4, 0, 2, 6, 3) # zero columns for some degrees
  coef <- jw_field(n, ncol)
  coef[[4]] <- drop(coef[[4]]) # a vector is one column
  for (method in c("connection", "quadrature")) {
    p <- jwt_plan(n, lmax, nr, method, device = "cpu")
    v <- jwt_plan_synthesis(p, coef)
    expect_length(v, lmax + 1)
    expect_null(dim(v[[4]]))
    expect_identical(dim(v[[2]]), c(as.integer(nr), 0L))
    one <- lapply(0:lmax, function(l) jwt_synthesis(coef[[l + 1]], l, nr, method, device = "cpu"))
    expect_lte(rel_diff(v, one), 1e-14)
    back <- jwt_plan_analysis(p, v)
    one_back <- lapply(0:lmax, function(l) jwt_analysis(v[[l + 1]], l, n, method, device = "cpu"))
    expect_lte(rel_diff(back, one_back), 1e-14)
    expect_lte(max(abs(unlist(back) - unlist(coef))), 1e-13) # the round trip
  }
})

test_that("a plan evaluates the expansions of every degree by their definition", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  set.seed(32)
  n <- 10; lmax <- 7; nr <- 16
  coef <- setNames(jw_field(n, rep(3, lmax + 1)), paste0("l", 0:lmax))
  r <- jw_grid(nr)$r
  for (method in c("connection", "quadrature")) {
    v <- jwt_plan_synthesis(jwt_plan(n, lmax, nr, method, device = "cpu"), coef)
    expect_named(v, names(coef))
    for (l in 0:lmax) {
      W <- outer(r, 0:(n - 1), function(r, k) jw_eval(k, l, r))
      expect_lte(max(abs(v[[l + 1]] - W %*% coef[[l + 1]])) / max(abs(v[[l + 1]])), 1e-13)
    }
  }
})

test_that("chunks of columns that split a degree give the same result", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  set.seed(33)
  # 8 MB of scratch per chunk is 74898 columns of 14 values: the first chunk
  # ends inside degree 3's columns (degrees in the order 0, 2, 1, 3)
  n <- 12; lmax <- 3; nr <- 14
  coef <- jw_field(n, c(20000, 20000, 20000, 20000))
  v <- jwt_plan_synthesis(jwt_plan(n, lmax, nr, device = "cpu"), coef)
  for (l in c(1, 3)) expect_identical(v[[l + 1]], jwt_synthesis(coef[[l + 1]], l, nr, device = "cpu"))
})

test_that("a plan reports the memory of its tables", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  n <- 20; lmax <- 9; nr <- 25
  q <- jwt_plan(n, lmax, nr, "quadrature", device = "cpu")
  expect_equal(q$bytes, 8 * nr * n * (lmax + 1))
  # two tables (mu, nu) per parity, a row of n + lmax %/% 2 + 1 per beta:
  # betas 1/2 .. 7.5 for the even degrees (8 rows), 3/2 .. 8.5 for the odd (8)
  p <- jwt_plan(n, lmax, nr, device = "cpu")
  expect_equal(p$bytes, 2 * 8 * (n + lmax %/% 2 + 1) * (8 + 8))
  expect_equal(jwt_plan(n, 0, nr, device = "cpu")$bytes, 2 * 8 * (n + 1))
  expect_output(print(p), "degrees l = 0..9.*bidiagonals")
  expect_identical(p[c("n", "lmax", "nr", "method", "device")],
                   list(n = 20L, lmax = 9L, nr = 25L, method = "connection", device = "cpu"))
})

test_that("the plans refuse bad input with classed errors", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  p <- jwt_plan(6, 3, device = "cpu")
  good <- jw_field(6, rep(2, 4))
  expect_error(jwt_plan_synthesis(p, good[1:3]), "3 elements.*needs 4", class = "gpustats_error_argument")
  expect_error(jwt_plan_synthesis(p, good[[1]]), "must be a list", class = "gpustats_error_argument")
  bad <- good
  bad[[3]] <- matrix(1, 5, 2)
  expect_error(jwt_plan_synthesis(p, bad), "degree l = 2", class = "gpustats_error_argument")
  expect_error(jwt_plan_analysis(p, good), "degree l = 0.*8 rows", class = "gpustats_error_argument")
  bad[[3]] <- array(1, c(6, 2, 2))
  expect_error(jwt_plan_synthesis(p, bad), class = "gpustats_error_argument")
  bad[[3]] <- letters[1:6]
  expect_error(jwt_plan_synthesis(p, bad), class = "gpustats_error_argument")
  for (x in c(NA, Inf, NaN)) {
    bad <- good
    bad[[4]][5, 2] <- x
    expect_error(jwt_plan_synthesis(p, bad), "degree l = 3.*row 5, column 2", class = "gpustats_error_argument")
  }
  expect_error(jwt_plan_synthesis(unclass(p), good), "jwt_plan", class = "gpustats_error_argument")
  saved <- unserialize(serialize(p, NULL)) # a plan does not survive saving
  expect_error(jwt_plan_synthesis(saved, good), "not in memory", class = "gpustats_error_argument")
  expect_error(jwt_plan(10, 20, 19), "too small", class = "gpustats_error_argument")
  expect_error(jwt_plan(0, 2), class = "gpustats_error_argument")
  expect_error(jwt_plan(4, -1), class = "gpustats_error_argument")
  expect_error(jwt_plan(4, 2, method = "fast"), class = "gpustats_error_argument")
  expect_error(jwt_plan(4, 2, device = "tpu"), class = "gpustats_error_argument")
  if (!gpu_available()) expect_error(jwt_plan(4, 2, device = "gpu"), class = "gpustats_error_no_gpu")
})

test_that("a GPU plan equals the CPU's, for both methods", {
  skip_without_gpu()
  set.seed(34)
  n <- 60; lmax <- 140; nr <- n + ceiling(lmax / 2) + 1
  ncol <- sample(0:4, lmax + 1, replace = TRUE)
  coef <- jw_field(n, ncol)
  for (method in c("connection", "quadrature")) {
    pg <- jwt_plan(n, lmax, nr, method, device = "gpu")
    pc <- jwt_plan(n, lmax, nr, method, device = "cpu")
    expect_identical(pg$device, "gpu")
    expect_equal(pg$bytes, pc$bytes + 4 * (lmax + 1)) # and the degree of each slot
    vg <- jwt_plan_synthesis(pg, coef)
    vc <- jwt_plan_synthesis(pc, coef)
    expect_lte(rel_diff(vg, vc), 1e-13)
    expect_lte(rel_diff(jwt_plan_analysis(pg, vc), jwt_plan_analysis(pc, vc)), 1e-13)
  }
  saved <- unserialize(serialize(pg, NULL))
  expect_error(jwt_plan_analysis(saved, vc), "not in memory", class = "gpustats_error_argument")
})
