# Tile Cholesky factors and Matérn covariances altered after they were
# made: every method, and tile_chol() for a covariance, validates the object
# it is given and names the bad field.

small_spd <- function(n = 20) {
  set.seed(61)
  X <- matrix(rnorm(30 * n), 30)
  A <- crossprod(X) + diag(n)
  dimnames(A) <- list(letters[1:n], letters[1:n])
  A
}

small_spec <- function(distance = "euclidean") {
  set.seed(62)
  locs <- cbind(runif(20, -30, 30), runif(20, -30, 30))
  matern_spec(locs, range = if (distance == "euclidean") 20 else 1000, nugget = 0.01, distance = distance)
}

tile_methods <- list(
  print = function(x) print(x), determinant = function(x) determinant(x),
  solve = function(x) solve(x, rep(1, 20)), as.matrix = function(x) as.matrix(x)
)
spec_methods <- list(print = function(x) print(x), tile_chol = function(x) tile_chol(x, device = "cpu"))

test_that("every kind of factor and covariance passes every method", {
  A <- small_spd()
  factors <- list(tile_chol(A, tile = 8, device = "cpu"),
                  tile_chol(unname(A), device = "cpu"),
                  tile_chol(A, tile = 8, precision = "mixed", accuracy = 1e-6, device = "cpu"),
                  tile_chol(A, tile = 8, precision = "mixed", accuracy = 1e-3, fp8 = TRUE, device = "cpu"),
                  tile_chol(small_spec(), tile = 8, device = "cpu"),
                  tile_chol(small_spec("great_circle"), device = "cpu"))
  for (f in factors) {
    expect_identical(validate_tile_chol(f, "x", environment()), f)
    for (method in tile_methods) expect_no_error(capture.output(method(f)))
  }
  for (spec in list(small_spec(), small_spec("great_circle"))) {
    expect_identical(validate_gs_matern_spec(spec, "x", environment()), spec)
    for (method in spec_methods) expect_no_error(capture.output(method(spec)))
  }
})

test_that("a GPU factor, with its trace, passes every method", {
  skip_without_gpu()
  for (f in list(tile_chol(small_spd(), tile = 8, trace = TRUE, device = "gpu"),
                 tile_chol(small_spec(), tile = 8, precision = "mixed", accuracy = 1e-6, device = "gpu"))) {
    expect_identical(validate_tile_chol(f, "x", environment()), f)
    for (method in tile_methods) expect_no_error(capture.output(method(f)))
  }
})

test_that("a factor with a field removed or of the wrong type is refused by every method, naming the field", {
  f <- tile_chol(small_spd(), tile = 8, precision = "mixed", accuracy = 1e-6, device = "cpu")
  expect_fields_validated(f, tile_chol_fields, tile_methods, optional = c("accuracy", "dimnames", "trace"))
  expect_empty_refused("tile_chol", tile_methods)
  bad <- f
  bad$precision <- bad$precision[-1, ]
  expect_error(print(bad), "field precision must be the 3 x 3 character matrix", class = "gpustats_error_argument")
  bad <- f
  bad$gpus <- 0L
  expect_error(determinant(bad), "field gpus must be .* none on the CPU", class = "gpustats_error_argument")
  bad <- tile_chol(small_spd(), device = "cpu")
  bad$fp8 <- TRUE
  expect_error(print(bad), "field fp8 must be TRUE or FALSE \\(TRUE in mixed precision only\\)",
               class = "gpustats_error_argument")
})

test_that("a factor's pointer to another object or to nothing gets a clear error", {
  f <- tile_chol(small_spd(), device = "cpu")
  other <- f
  other$ptr <- jwt_plan(n = 4, lmax = 2, method = "quadrature", device = "cpu")$ptr
  expect_error(solve(other, rep(1, 20)), "not a tile_chol factor", class = "gpustats_error_argument")
  expect_error(as.matrix(other), "not a tile_chol factor", class = "gpustats_error_argument")
  # a factor read back from a file keeps its log-determinant, not its factor
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(f, path)
  back <- readRDS(path)
  expect_identical(validate_tile_chol(back, "x", environment()), back)
  expect_output(print(back), "log det")
  expect_error(solve(back, rep(1, 20)), "does\\s+not\\s+survive\\s+saving", class = "gpustats_error_argument")
})

test_that("a Matérn covariance with a field removed or of the wrong type is refused, naming the field", {
  spec <- small_spec()
  expect_fields_validated(spec, gs_matern_spec_fields, spec_methods)
  expect_empty_refused("gs_matern_spec", spec_methods)
  bad <- spec
  bad$params[["range"]] <- -1
  expect_error(tile_chol(bad, device = "cpu"), "field params must be the Matern parameters", class = "gpustats_error_argument")
  bad <- spec
  bad$params[["range"]] <- 2
  expect_error(tile_chol(bad, device = "cpu"), "field model must be the native model of the fields params and distance",
               class = "gpustats_error_argument")
  bad <- small_spec("great_circle")
  bad$locs <- cbind(bad$locs, 0)
  expect_error(print(bad), "field locs must be .* 2 columns \\(longitude, latitude\\)", class = "gpustats_error_argument")
})
