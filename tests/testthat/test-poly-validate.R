# Spherical-harmonic coefficients, their grids and Jones-Worland plans
# altered after they were made: every method, and the transforms for the
# objects they take, validate them and name the bad field.

skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")

sht_grids <- function() {
  list(gauss = sht_grid(4), equiangular = sht_grid(4, "equiangular"), wide = sht_grid(4, nlat = 9, nlon = 12),
       fine = sht_grid(4, "equiangular", nlat = 13, nlon = 11))
}

# The coefficients of a smooth field on grid g: one field, or three, up to
# degree lmax.
small_sht <- function(g = sht_grid(4), nfield = 1L, lmax = NULL) {
  theta <- acos(g$cos_colat)
  field <- outer(cos(theta), cos(g$lon * pi / 180)) + 1
  sht_analysis(array(field, c(dim(field), nfield)), lmax = lmax, grid = g)
}

sht_methods <- list(
  print = function(x) print(x), as.data.frame = function(x) as.data.frame(x), plot = function(x) plot(x),
  sht_synthesis = function(x) sht_synthesis(x)
)
# The methods of grid g, the analysis of values of its size.
grid_methods <- function(g) {
  list(print = function(x) print(x), sht_analysis = function(x) sht_analysis(matrix(1, g$nlat, g$nlon), grid = x),
       sht_synthesis = function(x) sht_synthesis(small_sht(), grid = x))
}
plan_methods <- list(
  print = function(x) print(x), synthesis = function(x) jwt_plan_synthesis(x, rep(list(rep(1, 4)), 3)),
  analysis = function(x) jwt_plan_analysis(x, rep(list(rep(1, 5)), 3))
)

test_that("every kind of grid, coefficients and plan passes every method", {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  for (g in sht_grids()) {
    expect_identical(validate_sht_grid(g, "x", environment()), g)
    for (method in grid_methods(g)) expect_no_error(capture.output(method(g)))
    for (a in list(small_sht(g), small_sht(g, nfield = 3L), small_sht(g, lmax = 2L))) {
      expect_identical(validate_sht(a, "x", environment()), a)
      for (method in sht_methods) expect_no_error(capture.output(method(a)))
    }
  }
  for (method in c("connection", "quadrature")) {
    p <- jwt_plan(n = 4, lmax = 2, method = method, device = "cpu")
    expect_identical(validate_jwt_plan(p, "x", environment()), p)
    for (m in plan_methods) expect_no_error(capture.output(m(p)))
  }
})

test_that("a GPU plan passes every method", {
  skip_without_gpu()
  p <- jwt_plan(n = 4, lmax = 2, device = "gpu")
  expect_identical(validate_jwt_plan(p, "x", environment()), p)
  for (m in plan_methods) expect_no_error(capture.output(m(p)))
})

test_that("a grid with a field removed or of the wrong type is refused by every method, naming the field", {
  g <- sht_grid(4)
  expect_fields_validated(g, sht_grid_fields, grid_methods(g))
  expect_empty_refused("sht_grid", grid_methods(g))
  bad <- g
  bad$weights <- bad$weights[-1]
  expect_error(sht_analysis(matrix(1, 5, 10), grid = bad), "field weights must be the quadrature weights of the 5 latitudes",
               class = "gpustats_error_argument")
  bad <- sht_grid(4, "equiangular")
  bad$cos_colat_lo <- bad$cos_colat
  expect_error(print(bad), "field cos_colat_lo must be .* NULL on an equiangular one", class = "gpustats_error_argument")
  bad <- g
  bad$nlon <- 8L
  expect_error(print(bad), "field nlon must be a whole number above 2 lmax \\(8\\)", class = "gpustats_error_argument")
})

test_that("coefficients with a field removed or of the wrong type are refused by every method, naming the field", {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  a <- small_sht(nfield = 2L)
  expect_fields_validated(a, sht_fields, sht_methods)
  expect_empty_refused("sht", sht_methods)
  bad <- a
  bad$sin <- bad$sin[, , 1]
  expect_error(plot(bad), "field sin must be an 5 x 5 x 2 numeric array", class = "gpustats_error_argument")
  # the grid they carry, and a grid given for the synthesis
  bad <- a
  bad$grid$cos_colat <- NULL
  expect_error(print(bad), "`x\\$grid` is not a valid <sht_grid>: its field cos_colat", class = "gpustats_error_argument")
  expect_error(sht_synthesis(a, grid = unclass(a$grid)), "`grid` must be a <sht_grid> object",
               class = "gpustats_error_argument")
})

test_that("a plan with a field removed or of the wrong type is refused by every method, naming the field", {
  p <- jwt_plan(n = 4, lmax = 2, device = "cpu")
  expect_fields_validated(p, jwt_plan_fields, plan_methods)
  expect_empty_refused("jwt_plan", plan_methods)
  bad <- p
  bad$nr <- 4L
  expect_error(print(bad), "field nr must be a whole number of radial points, at least n \\+ ceiling\\(lmax / 2\\) \\(5\\)",
               class = "gpustats_error_argument")
  bad <- p
  bad$gpu <- 0L
  expect_error(print(bad), "field gpu must be NA on the CPU", class = "gpustats_error_argument")
  # a plan read back keeps its fields, not its native plan
  back <- unserialize(serialize(p, NULL))
  expect_output(print(back), "degrees l = 0..2")
  expect_error(plan_methods$synthesis(back), "not in memory", class = "gpustats_error_argument")
})
