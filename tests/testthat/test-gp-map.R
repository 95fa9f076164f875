# gp_map()'s plot at scale: a raster with colour bars, the data as a
# subsample of dots, longitude/latitude axes and coastlines for great-circle
# fits.

test_that("the map draws at most 2,000 of the data's locations, spread over them, without the random stream", {
  expect_identical(gpustats:::map_points_shown(10), 1:10)
  shown <- gpustats:::map_points_shown(26633)
  expect_length(shown, 2000)
  expect_identical(range(shown), c(1, 26633))
  expect_false(is.unsorted(shown))
  set.seed(1)
  before <- .Random.seed
  gpustats:::map_points_shown(1e6)
  expect_identical(.Random.seed, before)
})

test_that("a great-circle fit is mapped on longitude and latitude, with coastlines where maps is installed", {
  set.seed(2)
  n <- 300
  locs <- cbind(lon = runif(n, -10, 30), lat = runif(n, 35, 60))
  y <- gp_simulate(locs, 1, 500, 0.5, nugget = 0.05, distance = "great_circle", device = "cpu")
  fit <- gp_fit(y, locs, distance = "great_circle", fixed = list(smoothness = 0.5), control = list(trace = FALSE),
                device = "cpu")
  map <- gp_map(fit, n = 15, device = "cpu")
  expect_true(map$lonlat)
  expect_true(gpustats:::map_is_regular(map))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(map))
  expect_silent(plot(map, what = "se", points = FALSE, contours = TRUE, coastlines = FALSE))
  expect_error(plot(map, points = NA), class = "gpustats_error_argument")
  expect_error(plot(map, contours = "yes"), class = "gpustats_error_argument")
  # a map made before the field existed still plots, on plain axes
  map$lonlat <- NULL
  expect_silent(plot(map, what = "fit"))
})

test_that("an irregular grid of newdata is drawn cell by cell", {
  set.seed(3)
  locs <- matrix(runif(200), ncol = 2)
  y <- gp_simulate(locs, 1, 0.2, 1, nugget = 0.01, device = "cpu")
  fit <- gp_fit(y, locs, fixed = list(smoothness = 1), control = list(trace = FALSE), device = "cpu")
  grid <- as.matrix(expand.grid(c(0, 0.1, 0.5, 1), c(0, 0.3, 1)))
  map <- gp_map(fit, grid, device = "cpu")
  expect_false(map$lonlat)
  expect_false(gpustats:::map_is_regular(map))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(map))
})

test_that("a map's layers are checked choices, and flat or missing surfaces plot or say why", {
  set.seed(4)
  locs <- matrix(runif(60), ncol = 2)
  y <- gp_simulate(locs, 1, 0.3, 1, nugget = 0.01, device = "cpu")
  fit <- gp_fit(y, locs, fixed = list(smoothness = 1), control = list(trace = FALSE), device = "cpu")
  map <- gp_map(fit, n = 5, device = "cpu")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  # match.arg()'s unclassed errors before
  expect_error(plot(map, what = "bogus"), "must be one of", class = "gpustats_error_argument")
  expect_error(plot(map, what = NA), class = "gpustats_error_argument")
  expect_error(plot(map, what = character(0)), class = "gpustats_error_argument")
  expect_silent(plot(map, what = c("se", "fi")))
  # a constant surface stopped the colour bar ("increasing 'x' and 'y' values expected")
  flat <- map
  flat$fit[] <- 2
  expect_silent(plot(flat, what = "fit"))
  expect_equal(gpustats:::colour_range(flat$fit, "x$fit", NULL), c(1, 3))
  expect_equal(gpustats:::colour_range(0 * flat$fit, "x$fit", NULL), c(-1, 1))
  expect_equal(gpustats:::colour_range(c(NA, -2, 5, Inf), "x$fit", NULL), c(-2, 5))
  # no finite value gave "invalid z limits"
  missing <- map
  missing$fit[] <- NA
  expect_error(plot(missing, what = "fit"), "no finite values", class = "gpustats_error_argument")
  missing$se[] <- Inf
  expect_error(plot(missing, what = "se"), "no finite values", class = "gpustats_error_argument")
})
