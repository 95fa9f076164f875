# A structure of vecchia_neighbors() passed as `locs`: the same likelihood
# as the call with the locations, its native object kept between calls,
# mismatches refused.

# The native object a structure holds now (NULL for none).
held_engine <- function(nb) .Call(gpustats:::gs_r_weak_value, attr(nb, "engine")$ref)

test_that("a reused structure gives the likelihood of the call with the locations", {
  case <- vecchia_case(400, seed = 31)
  p <- case$params
  ll <- function(locs, ...) vecchia_loglik(case$y, locs, p[1], p[2], p[3], p[4], X = case$X, device = "cpu", ...)
  nb <- vecchia_neighbors(case$locs, m = 12)
  grouped <- vecchia_neighbors(case$locs, m = 12, group = TRUE)
  for (group in c(TRUE, FALSE)) {
    once <- ll(case$locs, m = 12, group = group)
    for (structure in list(nb, grouped)) {
      for (repeat_call in 1:2) {
        again <- ll(structure, group = group)
        expect_lt(abs(again / once - 1), 1e-12)
        expect_equal(attributes(again), attributes(once), tolerance = 1e-12)
      }
    }
    expect_lt(abs(gp_loglik(case$y, nb, p[1], p[2], p[3], p[4], approx = "vecchia", group = group, device = "cpu") /
                    vecchia_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], m = 12, group = group, device = "cpu") - 1),
              1e-12)
  }
  # arguments that agree with the structure are accepted
  expect_identical(ll(nb, m = 12, ordering = "maxmin", distance = "euclidean"), ll(nb))
  # great-circle distances and another ordering
  set.seed(32)
  lonlat <- cbind(runif(300, -30, 30), runif(300, -20, 20))
  y <- rnorm(300)
  gc <- vecchia_neighbors(lonlat, m = 8, ordering = "maxmin_approx", distance = "great_circle")
  expect_identical(vecchia_loglik(y, gc, 1, 500, 0.5, 0.1, device = "cpu"),
                   vecchia_loglik(y, lonlat, 1, 500, 0.5, 0.1, m = 8, ordering = "maxmin_approx",
                                  distance = "great_circle", device = "cpu"))
})

test_that("the structure keeps its native object, and opens another when it must", {
  case <- vecchia_case(300, seed = 33)
  p <- case$params
  ll <- function(nb, ...) vecchia_loglik(case$y, nb, p[1], p[2], p[3], p[4], device = "cpu", ...)
  nb <- vecchia_neighbors(case$locs, m = 6)
  expect_null(held_engine(nb))
  first <- ll(nb)
  engine <- held_engine(nb)
  expect_true(engine$key$group)
  ll(nb)
  expect_identical(held_engine(nb)$vc$ptr, engine$vc$ptr) # the same object: nothing reopened
  # the blocks computed at the first grouped call are kept for the next
  ll(nb, group = FALSE)
  expect_false(held_engine(nb)$key$group)
  expect_identical(held_engine(nb)$blocks, engine$blocks)
  expect_identical(ll(nb), first)
  # another thread count opens another object, with the same likelihood
  withr::with_options(list(gpustats.threads = 1), expect_equal(ll(nb), first, tolerance = 1e-12))
  expect_identical(held_engine(nb)$key$threads, 1L)
  # a structure whose parts are replaced is not evaluated on the old object
  # (a copy shares the environment that holds it)
  random <- vecchia_neighbors(case$locs, m = 6, ordering = "random")
  changed <- nb
  changed[c("order", "neighbors", "ordering")] <- random[c("order", "neighbors", "ordering")]
  old <- held_engine(nb)$vc
  expect_identical(ll(changed), ll(random))
  expect_error(gpustats:::vecchia_factor(old, p), "released") # freed at once, not at garbage collection
  expect_identical(ll(nb), first)
})

test_that("a structure read back from a file opens a new native object", {
  case <- vecchia_case(300, seed = 34)
  p <- case$params
  nb <- vecchia_neighbors(case$locs, m = 6, group = TRUE)
  first <- vecchia_loglik(case$y, nb, p[1], p[2], p[3], p[4], device = "cpu")
  file <- withr::local_tempfile(fileext = ".rds")
  saveRDS(nb, file)
  back <- readRDS(file)
  expect_null(held_engine(back))
  expect_identical(vecchia_loglik(case$y, back, p[1], p[2], p[3], p[4], device = "cpu"), first)
  expect_false(is.null(held_engine(back)))
  # the file holds the structure, not a second copy of it
  bare <- withr::local_tempfile(fileext = ".rds")
  saveRDS(unclass(nb)[names(nb)], bare)
  expect_lt(file.size(file), 1.1 * file.size(bare))
})

test_that("a structure that does not match the call is refused", {
  case <- vecchia_case(200, seed = 35)
  p <- case$params
  nb <- vecchia_neighbors(case$locs, m = 5)
  refused <- function(..., locs = nb, y = case$y, regexp = NULL) {
    expect_error(vecchia_loglik(y, locs, p[1], p[2], p[3], p[4], device = "cpu", ...),
                 class = "gpustats_error_argument", regexp = regexp)
  }
  refused(m = 6, regexp = "conditioning sets of 5")
  refused(m = 2.5)
  refused(ordering = "random", regexp = "maxmin_exact")
  refused(distance = "great_circle", regexp = "euclidean")
  refused(y = case$y[-1], regexp = "199 observations")
  refused(X = case$X[-1, ], regexp = "a row per location")
  broken <- nb
  broken$neighbors <- broken$neighbors[, -1]
  refused(locs = broken, regexp = "field neighbors must be an integer matrix with a row per location \\(200\\) and m \\+ 1 \\(6\\) columns")
  refused(locs = unclass(nb))
  expect_error(gp_loglik(case$y, nb, p[1], p[2], p[3], p[4], device = "cpu"), class = "gpustats_error_argument",
               regexp = "approx = \"vecchia\"")
  expect_error(gp_loglik(case$y, nb, p[1], p[2], p[3], p[4], approx = "vecchia", m = 7, device = "cpu"),
               class = "gpustats_error_argument", regexp = "conditioning sets of 5")
})

test_that("a structure prints as a summary", {
  set.seed(36)
  nb <- vecchia_neighbors(matrix(runif(400), ncol = 2), m = 4, group = TRUE)
  expect_output(print(nb), sprintf("200 locations, m = 4, maxmin_exact ordering, euclidean distance, %d blocks",
                                   max(nb$blocks)))
})

test_that("a structure's native object follows the device, with the CPU's likelihood", {
  skip_without_gpu()
  set.seed(37)
  n <- 20000
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- rnorm(n)
  X <- cbind(1, locs)
  nb <- vecchia_neighbors(locs, m = 30)
  ll <- function(device, group) vecchia_loglik(y, nb, 1.1, 0.05, 1.3, 0.2, X = X, device = device, group = group)
  for (group in c(TRUE, FALSE)) {
    cpu <- ll("cpu", group)
    gpu <- ll("gpu", group)
    expect_true(held_engine(nb)$vc$device >= 0)
    expect_lt(abs(ll("gpu", group) / cpu - 1), 1e-12)
    expect_lt(abs(gpu / cpu - 1), 1e-12)
    expect_identical(ll("cpu", group), cpu)
    expect_true(held_engine(nb)$vc$device < 0)
  }
})
