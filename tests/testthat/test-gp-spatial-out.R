# sf, sp and stars objects in, the same class out: predict(), simulate() and
# gp_map() on meuse, against the plain data-frame calls and gstat's krige().

quiet <- list(trace = FALSE)

meuse_case <- function() {
  skip_if_not_installed("sp")
  skip_if_not_installed("sf")
  e <- new.env()
  utils::data("meuse", "meuse.grid", package = "sp", envir = e)
  fit <- gp_fit(log(zinc) ~ sqrt(dist), e$meuse, coords = ~ x + y, cov = "exponential", method = "ml",
                control = quiet, device = "cpu")
  list(meuse = e$meuse, grid = e$meuse.grid, fit = fit, crs = sf::st_crs(28992))
}

# The grid as sp objects with the Dutch national grid's CRS: points and pixels.
sp_grid <- function(grid, pixels) {
  sp::coordinates(grid) <- ~ x + y
  if (pixels) sp::gridded(grid) <- TRUE
  sp::proj4string(grid) <- sp::CRS("EPSG:28992")
  grid
}

# gstat's variogram of a gpustats fit (exponential covariance).
gstat_model <- function(fit) {
  p <- fit$covariance
  gstat::vgm(psill = p[["sigma2"]], "Exp", range = p[["range"]], nugget = p[["nugget"]])
}

test_that("predict() of sf points is an sf with fit, lwr, upr, se.fit, the plain numbers and gstat's", {
  m <- meuse_case()
  g <- m$grid[seq(1, nrow(m$grid), by = 5), ]
  plain <- predict(m$fit, g, se.fit = TRUE, interval = "prediction", device = "cpu")
  gs <- sf::st_as_sf(g, coords = c("x", "y"), crs = m$crs)
  out <- predict(m$fit, gs, se.fit = TRUE, interval = "prediction", device = "cpu")
  expect_s3_class(out, "sf")
  expect_identical(names(out), c("fit", "lwr", "upr", "se.fit", "geometry"))
  expect_identical(sf::st_geometry(out), sf::st_geometry(gs))
  expect_identical(sf::st_crs(out), m$crs)
  expect_equal(as.matrix(sf::st_drop_geometry(out)[, c("fit", "lwr", "upr")]), plain$fit, tolerance = 1e-14,
               ignore_attr = TRUE)
  expect_equal(out$se.fit, plain$se.fit, tolerance = 1e-14)
  one <- predict(m$fit, gs, device = "cpu")
  expect_identical(names(one), c("fit", "geometry"))
  expect_equal(one$fit, plain$fit[, "fit"], tolerance = 1e-14)
  # the plain forms are as they were
  expect_type(predict(m$fit, g, device = "cpu"), "double")
  expect_null(dim(predict(m$fit, g, device = "cpu")))
  skip_if_not_installed("gstat")
  obs <- sf::st_as_sf(m$meuse, coords = c("x", "y"), crs = m$crs)
  k <- gstat::krige(log(zinc) ~ sqrt(dist), obs, gs, model = gstat_model(m$fit), debug.level = 0)
  expect_s3_class(k, "sf")
  expect_equal(out$fit, k$var1.pred, tolerance = 1e-10)
  # gstat's variance is that of a new observation, as the prediction interval's
  expect_equal(out$se.fit^2 + m$fit$covariance[["nugget"]], k$var1.var, tolerance = 1e-10)
})

test_that("predict() of sp points and pixels gives a SpatialPointsDataFrame and a SpatialPixelsDataFrame", {
  m <- meuse_case()
  plain <- predict(m$fit, m$grid, se.fit = TRUE, interval = "confidence", level = 0.9, device = "cpu")
  for (pixels in c(FALSE, TRUE)) {
    grid <- sp_grid(m$grid, pixels)
    out <- predict(m$fit, grid, se.fit = TRUE, interval = "confidence", level = 0.9, device = "cpu")
    expect_s4_class(out, if (pixels) "SpatialPixelsDataFrame" else "SpatialPointsDataFrame")
    expect_identical(names(out), c("fit", "lwr", "upr", "se.fit"))
    expect_identical(sp::coordinates(out), sp::coordinates(grid))
    expect_identical(sp::proj4string(out), sp::proj4string(grid))
    if (pixels) expect_identical(out@grid, grid@grid)
    expect_equal(as.matrix(out@data[, c("fit", "lwr", "upr")]), plain$fit, tolerance = 1e-14, ignore_attr = TRUE)
    expect_equal(out$se.fit, plain$se.fit, tolerance = 1e-14)
  }
  skip_if_not_installed("gstat")
  obs <- sp_grid(m$meuse, pixels = FALSE)
  k <- gstat::krige(log(zinc) ~ sqrt(dist), obs, grid, model = gstat_model(m$fit), debug.level = 0)
  expect_s4_class(k, "SpatialPixelsDataFrame")
  expect_equal(out$fit, k$var1.pred, tolerance = 1e-10)
  expect_equal(out$se.fit^2 + m$fit$covariance[["nugget"]], k$var1.var, tolerance = 1e-10)
})

test_that("predict() of a stars grid fills its masked cells: fit, se.fit as attributes, NA outside", {
  skip_if_not_installed("stars")
  m <- meuse_case()
  grid <- stars::st_as_stars(m$grid)
  sf::st_crs(grid) <- m$crs
  out <- predict(m$fit, grid, se.fit = TRUE, device = "cpu")
  expect_s3_class(out, "stars")
  expect_identical(names(out), c("fit", "se.fit"))
  expect_identical(stars::st_dimensions(out), stars::st_dimensions(grid))
  expect_identical(sf::st_crs(out), m$crs)
  cells <- as.data.frame(grid)
  inside <- !is.na(cells$dist)
  expect_identical(sum(inside), nrow(m$grid))
  plain <- predict(m$fit, cells[inside, ], se.fit = TRUE, device = "cpu")
  expect_equal(as.vector(out$fit)[inside], plain$fit, tolerance = 1e-14)
  expect_equal(as.vector(out$se.fit)[inside], plain$se.fit, tolerance = 1e-14)
  expect_true(all(is.na(as.vector(out$fit)[!inside])))
  # the same predictions as at meuse.grid's rows, cell by cell
  rows <- match(paste(m$grid$x, m$grid$y), paste(cells$x, cells$y))
  expect_equal(as.vector(out$fit)[rows], predict(m$fit, m$grid, device = "cpu"), tolerance = 1e-14)
  # a template grid (one attribute, no mask) is predicted in every cell
  fit0 <- gp_fit(log(zinc) ~ 1, m$meuse, coords = ~ x + y, cov = "exponential", method = "ml", control = quiet,
                 device = "cpu")
  template <- stars::st_as_stars(sf::st_bbox(grid), dx = 200)
  every <- predict(fit0, template, device = "cpu")
  expect_identical(dim(every), dim(template))
  expect_equal(as.vector(every$fit), predict(fit0, as.data.frame(template), device = "cpu"), tolerance = 1e-14)
  expect_error(predict(m$fit, c(grid["dist"], grid["dist"], along = 3), device = "cpu"), "two dimensions",
               class = "gpustats_error_argument")
  skip_if_not_installed("gstat")
  obs <- sf::st_as_sf(m$meuse, coords = c("x", "y"), crs = m$crs)
  k <- gstat::krige(log(zinc) ~ sqrt(dist), obs, grid, model = gstat_model(m$fit), debug.level = 0)
  expect_s3_class(k, "stars")
  expect_equal(as.vector(out$fit), as.vector(k$var1.pred), tolerance = 1e-10)
  expect_equal(as.vector(out$se.fit)^2 + m$fit$covariance[["nugget"]], as.vector(k$var1.var), tolerance = 1e-10)
})

test_that("simulate() and gp_map() return the class of newdata, with the plain call's numbers", {
  skip_if_not_installed("stars")
  m <- meuse_case()
  g <- m$grid[seq(1, nrow(m$grid), by = 9), ]
  ref <- simulate(m$fit, 2, seed = 3, newdata = g, device = "cpu")
  plain_map <- predict(m$fit, g, se.fit = TRUE, device = "cpu")
  gs <- sf::st_as_sf(g, coords = c("x", "y"), crs = m$crs)
  pts <- sp_grid(g, pixels = FALSE)
  pix <- sp_grid(m$grid, pixels = TRUE)
  st <- stars::st_as_stars(m$grid)
  s_sf <- simulate(m$fit, 2, seed = 3, newdata = gs, device = "cpu")
  expect_s3_class(s_sf, "sf")
  expect_identical(sf::st_crs(s_sf), m$crs)
  expect_equal(sf::st_drop_geometry(s_sf), ref, tolerance = 1e-12)
  s_sp <- simulate(m$fit, 2, seed = 3, newdata = pts, device = "cpu")
  expect_s4_class(s_sp, "SpatialPointsDataFrame")
  expect_equal(s_sp@data, ref, tolerance = 1e-12)
  s_pix <- simulate(m$fit, 1, seed = 4, newdata = pix, device = "cpu")
  expect_s4_class(s_pix, "SpatialPixelsDataFrame")
  s_st <- simulate(m$fit, 1, seed = 4, newdata = st, device = "cpu")
  expect_s3_class(s_st, "stars")
  expect_identical(names(s_st), "sim_1")
  cells <- as.data.frame(st)
  inside <- !is.na(cells$dist)
  expect_equal(as.vector(s_st$sim_1)[inside], simulate(m$fit, 1, seed = 4, newdata = cells[inside, ], device = "cpu")$sim_1,
               tolerance = 1e-12)
  expect_true(all(is.na(as.vector(s_st$sim_1)[!inside])))
  # gp_map() of a spatial grid is predict(se.fit = TRUE) as columns; of a data frame, a gp_map
  map_sf <- gp_map(m$fit, gs, device = "cpu")
  expect_identical(names(map_sf), c("fit", "se.fit", "geometry"))
  expect_equal(map_sf$fit, plain_map$fit, tolerance = 1e-14)
  expect_equal(map_sf$se.fit, plain_map$se.fit, tolerance = 1e-14)
  expect_s4_class(gp_map(m$fit, pix, device = "cpu"), "SpatialPixelsDataFrame")
  map_st <- gp_map(m$fit, st, device = "cpu")
  expect_s3_class(map_st, "stars")
  expect_identical(names(map_st), c("fit", "se.fit"))
  expect_s3_class(gp_map(m$fit, g, device = "cpu"), "gp_map")
})

test_that("Vecchia and matrix fits follow the same rule", {
  m <- meuse_case()
  v <- gp_fit(log(zinc) ~ sqrt(dist), m$meuse, coords = ~ x + y, cov = "exponential", approx = "vecchia", m = 20,
              control = quiet, device = "cpu")
  g <- m$grid[seq(1, nrow(m$grid), by = 11), ]
  gs <- sf::st_as_sf(g, coords = c("x", "y"), crs = m$crs)
  plain <- predict(v, g, se.fit = TRUE, interval = "prediction", m_pred = 40, device = "cpu")
  out <- predict(v, gs, se.fit = TRUE, interval = "prediction", m_pred = 40, device = "cpu")
  expect_s3_class(out, "sf")
  expect_equal(as.matrix(sf::st_drop_geometry(out)[, c("fit", "lwr", "upr")]), plain$fit, tolerance = 1e-14,
               ignore_attr = TRUE)
  expect_equal(out$se.fit, plain$se.fit, tolerance = 1e-14, ignore_attr = TRUE)
  s <- simulate(v, 2, seed = 5, newdata = sp_grid(g, pixels = FALSE), device = "cpu")
  expect_s4_class(s, "SpatialPointsDataFrame")
  expect_equal(s@data, simulate(v, 2, seed = 5, newdata = g, device = "cpu"), tolerance = 1e-12)
  # a matrix fit takes the coordinates of the object
  xy <- as.matrix(m$meuse[, c("x", "y")])
  f <- gp_fit(log(m$meuse$zinc), xy, X = cbind(1, sqrt(m$meuse$dist)), cov = "exponential", method = "ml",
              control = quiet, device = "cpu")
  X0 <- cbind(1, sqrt(g$dist))
  out <- predict(f, gs, X = X0, device = "cpu")
  expect_s3_class(out, "sf")
  expect_equal(out$fit, predict(f, as.matrix(g[, c("x", "y")]), X = X0, device = "cpu"), tolerance = 1e-14)
  expect_equal(out$fit, predict(m$fit, g, device = "cpu"), tolerance = 1e-8)
})

test_that("replicate fits give fit.<replicate>, lwr.<replicate>, upr.<replicate> and one se.fit", {
  m <- meuse_case()
  d <- transform(m$meuse, zinc = log(zinc), lead = log(lead))
  r <- gp_fit(cbind(zinc, lead) ~ 1, d, coords = ~ x + y, cov = "exponential", method = "ml", control = quiet,
              device = "cpu")
  g <- m$grid[seq(1, nrow(m$grid), by = 13), ]
  gs <- sf::st_as_sf(g, coords = c("x", "y"), crs = m$crs)
  plain <- predict(r, g, se.fit = TRUE, interval = "confidence", device = "cpu")
  out <- predict(r, gs, se.fit = TRUE, interval = "confidence", device = "cpu")
  expect_identical(names(out), c("fit.zinc", "fit.lead", "lwr.zinc", "lwr.lead", "upr.zinc", "upr.lead", "se.fit",
                                 "geometry"))
  for (rep in c("zinc", "lead")) {
    for (stat in c("fit", "lwr", "upr")) expect_equal(out[[paste0(stat, ".", rep)]], plain$fit[, rep, stat])
  }
  expect_equal(out$se.fit, plain$se.fit)
  expect_equal(sf::st_drop_geometry(predict(r, gs, device = "cpu")), as.data.frame(predict(r, g, device = "cpu")),
               ignore_attr = TRUE)
  expect_named(predict(r, gs, device = "cpu"), c("fit.zinc", "fit.lead", "geometry"))
  s <- simulate(r, 1, seed = 6, newdata = gs, device = "cpu")
  expect_named(s, c("sim_1.zinc", "sim_1.lead", "geometry"))
})

test_that("newdata in another CRS than the fit's, sp polygons and empty sf are refused", {
  for (p in c("sf", "sp", "stars")) skip_if_not_installed(p)
  set.seed(1)
  L <- matrix(runif(40), ncol = 2)
  d <- sf::st_as_sf(data.frame(z = sin(6 * L[, 1]) + rnorm(20, sd = 0.1), x = 5e5 + 1e3 * L[, 1], y = 5e6 + 1e3 * L[, 2]),
                    coords = c("x", "y"), crs = 32632)
  fit <- gp_fit(z ~ 1, data = d, nugget = FALSE, fixed = list(range = 300, smoothness = 1.5), control = quiet)
  expect_equal(fit$crs, sf::st_crs(32632))
  grd <- stars::st_as_stars(sf::st_bbox(d), nx = 4, ny = 3)
  # predictions at the coordinates of another CRS used to come back, with an
  # extrapolation warning at best
  for (nd in list(sf::st_transform(d, 4326), sf::st_transform(d, 3857), sf::as_Spatial(sf::st_transform(d, 4326)))) {
    expect_error(predict(fit, nd), "another coordinate reference system", class = "gpustats_error_argument")
    expect_error(simulate(fit, 1, newdata = nd), "another coordinate reference system", class = "gpustats_error_argument")
  }
  expect_error(gp_map(fit, newdata = stars::st_warp(grd, crs = 4326)), "another coordinate reference system",
               class = "gpustats_error_argument")
  # without a CRS, newdata is taken as in the fit's
  expect_equal(predict(fit, sf::st_set_crs(d, NA))$fit, predict(fit, d)$fit)
  # sp polygons used to be predicted at their label points
  expect_error(predict(fit, sf::as_Spatial(sf::st_buffer(d, 10))), "sp points, pixels or a grid",
               class = "gpustats_error_argument")
  expect_error(predict(fit, d[0, ]), "has no points", class = "gpustats_error_argument")
  # a matrix fit of sf locations keeps their CRS too
  fm <- gp_fit(d$z, d, nugget = FALSE, fixed = list(range = 300, smoothness = 1.5), control = quiet)
  expect_error(predict(fm, sf::st_transform(d, 4326)), "another coordinate reference system", class = "gpustats_error_argument")
})

test_that("terra in, terra out: a SpatRaster's masked cells get layers fit and se.fit, SpatVector points attributes", {
  skip_if_not_installed("terra")
  m <- meuse_case()
  grid <- terra::rast(m$grid[, c("x", "y", "dist", "ffreq")], type = "xyz", crs = "EPSG:28992")
  out <- predict(m$fit, grid, se.fit = TRUE, device = "cpu")
  expect_s4_class(out, "SpatRaster")
  expect_identical(names(out), c("fit", "se.fit"))
  expect_true(terra::compareGeom(out, grid))
  expect_true(sf::st_crs(terra::crs(out)) == m$crs)
  v <- terra::values(out)
  xy <- terra::xyFromCell(grid, seq_len(terra::ncell(grid)))
  rows <- match(paste(m$grid$x, m$grid$y), paste(xy[, 1], xy[, 2]))
  plain <- predict(m$fit, m$grid, se.fit = TRUE, device = "cpu")
  expect_equal(v[rows, "fit"], plain$fit, tolerance = 1e-14)
  expect_equal(v[rows, "se.fit"], plain$se.fit, tolerance = 1e-14)
  expect_identical(sum(!is.na(v[, "fit"])), nrow(m$grid)) # NA outside the mask
  # a template grid (no values) is predicted in every cell
  fit0 <- gp_fit(log(zinc) ~ 1, m$meuse, coords = ~ x + y, cov = "exponential", method = "ml", control = quiet,
                 device = "cpu")
  template <- terra::rast(terra::ext(grid), resolution = 200, crs = "EPSG:28992")
  every <- predict(fit0, template, device = "cpu")
  cells <- terra::xyFromCell(template, seq_len(terra::ncell(template)))
  expect_equal(as.vector(terra::values(every)), predict(fit0, as.data.frame(cells), device = "cpu"), tolerance = 1e-14)
  # points: a SpatVector with the results as attributes
  pts <- terra::vect(m$grid[1:40, ], geom = c("x", "y"), crs = "EPSG:28992")
  p <- predict(m$fit, pts, interval = "prediction", device = "cpu")
  expect_s4_class(p, "SpatVector")
  expect_equal(as.data.frame(p), as.data.frame(predict(m$fit, m$grid[1:40, ], interval = "prediction", device = "cpu")),
               tolerance = 1e-14)
  expect_equal(terra::crds(p), terra::crds(pts))
  # simulate() and gp_map() of a SpatRaster: layers
  s <- simulate(m$fit, 2, seed = 3, newdata = grid, device = "cpu")
  expect_identical(names(s), c("sim_1", "sim_2"))
  ref <- simulate(m$fit, 2, seed = 3, newdata = data.frame(xy, terra::values(grid))[!is.na(terra::values(grid)[, 1]), ],
                  device = "cpu")
  expect_equal(terra::values(s)[!is.na(terra::values(grid)[, 1]), "sim_1"], ref$sim_1, tolerance = 1e-12)
  expect_identical(names(gp_map(m$fit, grid, device = "cpu")), c("fit", "se.fit"))
  # data as terra objects: the fit of the data frame
  obs <- terra::vect(m$meuse, geom = c("x", "y"), crs = "EPSG:28992")
  f2 <- gp_fit(log(zinc) ~ sqrt(dist), obs, cov = "exponential", method = "ml", control = quiet, device = "cpu")
  expect_equal(coef(f2), coef(m$fit), tolerance = 1e-10)
  expect_true(f2$crs == m$crs)
  expect_error(predict(f2, terra::project(pts, "EPSG:4326")), "another coordinate reference system",
               class = "gpustats_error_argument")
  expect_error(predict(f2, terra::buffer(pts, 10)), "SpatVector of points", class = "gpustats_error_argument")
  expect_error(predict(f2, pts[0, ]), "has no points", class = "gpustats_error_argument")
  # a SpatRaster's layers as response and covariates, its masked cells the observations
  sub <- m$grid[seq(1, nrow(m$grid), by = 25), ]
  set.seed(8)
  sub$z <- sin(sub$x / 300) + sub$dist + rnorm(nrow(sub), sd = 0.1)
  layers <- terra::rast(sub[, c("x", "y", "z", "dist")], type = "xyz", crs = "EPSG:28992")
  ctrl <- quiet
  f3 <- gp_fit(z ~ dist, layers, cov = "exponential", method = "ml", control = ctrl, device = "cpu")
  cells <- data.frame(terra::xyFromCell(layers, seq_len(terra::ncell(layers))), terra::values(layers))
  f4 <- gp_fit(z ~ dist, cells[!is.na(cells$z), ], coords = ~ x + y, cov = "exponential", method = "ml", control = ctrl,
               device = "cpu")
  expect_identical(nobs(f3), nrow(sub))
  expect_equal(coef(f3), coef(f4), tolerance = 1e-10)
  expect_error(gp_fit(log(zinc) ~ 1, obs, coords = ~ x + y), "must be NULL for a terra object",
               class = "gpustats_error_argument")
})
