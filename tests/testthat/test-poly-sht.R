# Spherical-harmonic transforms: conventions against gsl::legendre_sphPlm,
# round trips, Parseval, methods and errors.

random_sht <- function(lmax, nfield, grid, seed) {
  set.seed(seed)
  L <- lmax + 1
  low <- array(outer(0:lmax, 0:lmax, ">="), c(L, L, nfield))
  cs <- array(rnorm(L * L * nfield), c(L, L, nfield)) * low
  sn <- array(rnorm(L * L * nfield), c(L, L, nfield)) * low
  sn[, 1, ] <- 0
  structure(list(cos = cs, sin = sn, lmax = lmax, grid = grid), class = "sht")
}

test_that("sht_synthesis() of one coefficient is gsl's normalised Legendre function times sqrt(2) cos or sin", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  skip_if_not_installed("gsl")
  g <- sht_grid(24)
  phi <- g$lon * pi / 180
  for (lm in list(c(0, 0), c(5, 0), c(7, 3), c(24, 24), c(20, 11))) {
    l <- lm[1]; m <- lm[2]
    a <- random_sht(24, 1, g, 1)
    a$cos[] <- 0; a$sin[] <- 0
    a$cos[l + 1, m + 1, 1] <- 1
    P <- gsl::legendre_sphPlm(l, m, g$cos_colat)
    expect_lte(max(abs(sht_synthesis(a) - outer(P, if (m == 0) rep(1, g$nlon) else sqrt(2) * cos(m * phi)))), 1e-13)
    if (m > 0) {
      a$cos[] <- 0; a$sin[l + 1, m + 1, 1] <- 1
      expect_lte(max(abs(sht_synthesis(a) - outer(P, sqrt(2) * sin(m * phi)))), 1e-13)
    }
  }
})

test_that("synthesis matches gsl on odd Gauss grids (the equator its own mirror) and at high orders near the poles", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  skip_if_not_installed("gsl")
  # nlat 61: latitude pairs over several blocks of lanes, and the equator alone;
  # lmax 400: orders whose values near the poles underflow (dropped blocks)
  for (case in list(c(60, 61, 37, 20), c(60, 61, 60, 59), c(400, 401, 400, 400), c(400, 401, 399, 350),
                    c(400, 401, 400, 3))) {
    g <- sht_grid(case[1], nlat = case[2])
    l <- case[3]; m <- case[4]
    a <- random_sht(case[1], 1, g, 4)
    a$cos[] <- 0; a$sin[] <- 0
    a$cos[l + 1, m + 1, 1] <- 1
    P <- gsl::legendre_sphPlm(l, m, g$cos_colat) * if (m > 0) sqrt(2) else 1 # at longitude 0
    v <- sht_synthesis(a)
    expect_lte(max(abs(v[, 1] - P)) / max(abs(P)), 5e-12) # 1.6e-12 from gsl at l = 400, m = 3
    b <- sht_analysis(v, grid = g)
    expect_lte(max(abs(b$cos - a$cos), abs(b$sin)), 1e-13)
  }
})

test_that("analysis inverts synthesis on Gauss and equiangular grids, for several fields", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  for (kind in c("gauss", "equiangular")) {
    g <- sht_grid(40, kind)
    a <- random_sht(40, 3, g, 2)
    v <- sht_synthesis(a)
    expect_equal(dim(v), c(g$nlat, g$nlon, 3))
    b <- sht_analysis(v, grid = g)
    err <- sqrt(sum((b$cos - a$cos)^2 + (b$sin - a$sin)^2) / sum(a$cos^2 + a$sin^2))
    expect_lte(err, 1e-14)
    # Parseval: the quadrature of f^2 over the sphere is the sum of squares
    f2 <- sum(g$weights * v[, , 2]^2) * 2 * pi / g$nlon
    expect_equal(f2, sum(a$cos[, , 2]^2 + a$sin[, , 2]^2), tolerance = 1e-13)
  }
  # a lower degree than the grid's, and the default Gauss grid from the dimensions
  g <- sht_grid(30)
  a <- random_sht(12, 1, g, 3)
  b <- sht_analysis(sht_synthesis(a), lmax = 12, grid = g)
  expect_equal(b$cos, a$cos, tolerance = 1e-13)
  expect_equal(sht_analysis(sht_synthesis(a))$lmax, 30)
})

test_that("the Gauss grid integrates polynomials exactly and the equiangular one too", {
  # the equiangular weights take a DCT (FFTW)
  for (kind in c("gauss", if (.Call(gpustats:::gs_r_poly_have_fftw)) "equiangular")) {
    g <- sht_grid(20, kind)
    for (k in 0:20) expect_equal(sum(g$weights * g$cos_colat^(2 * k)), 2 / (2 * k + 1), tolerance = 1e-14)
  }
  g <- sht_grid(3)
  expect_equal(g$cos_colat, sort(c(-1, 1) * sqrt(3 / 7 + rep(c(-1, 1), each = 2) * 2 / 7 * sqrt(6 / 5)), decreasing = TRUE)[c(1, 2, 3, 4)],
               tolerance = 1e-15)
})

test_that("the low orders keep their accuracy at high degree: the Gauss nodes' rounding errors are added back", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  # the node sqrt(3/5) of order 3 and its rounding error (mpmath, 40 digits)
  g <- sht_grid(2)
  expect_equal(g$cos_colat_lo, c(-2.7242061734927363e-17, 0, 2.7242061734927363e-17), tolerance = 1e-12)
  g <- sht_grid(511)
  expect_true(all(abs(g$cos_colat_lo) <= abs(g$cos_colat) * 2^-53))
  # a zonal field (order 0 only): with the nodes rounded to double its round
  # trip erred by 1e-13 (5e-12 at degree 4095)
  a <- random_sht(511, 1, g, 6)
  a$cos[, -1, ] <- 0
  a$sin[] <- 0
  b <- sht_analysis(sht_synthesis(a), grid = g)
  expect_lte(sqrt(sum((b$cos - a$cos)^2) / sum(a$cos^2)), 6e-14)
})

# One unit in the last place of each (nonzero) double of v.
ulp <- function(v) 2^(floor(log2(abs(v))) - 52)

test_that("the Gauss-Legendre nodes (with their low parts) and weights match mpmath, up to 100001 nodes", {
  ref <- read.csv(test_path("fixtures", "poly-sht-grid.csv"))
  ref <- ref[ref$rule == "gauss", ]
  for (n in unique(ref$n)) {
    r <- ref[ref$n == n, ]
    q <- .Call(gpustats:::gs_r_gauss_legendre, as.integer(n), 0L, NULL)
    node <- r$x != 0
    # the double nodes correctly rounded, the nodes with their low parts
    # within 0.01 units in the last place of the double (0.001 measured), the
    # weights within one unit
    expect_equal(q$x[r$i], r$x, tolerance = 0)
    expect_lte(max(0, abs((q$x[r$i] - r$x) + (q$x_lo[r$i] - r$x_lo))[node] / ulp(r$x[node])), 0.01)
    expect_lte(max(abs(q$w[r$i] - r$w) / ulp(r$w)), 1)
  }
  # the rule's size is not bound by its cost: a grid of 100001 latitudes is
  # computed in O(nlat) (nodes next to the poles included)
  g <- sht_grid(10, nlat = 100001)
  r <- ref[ref$n == 100001, ]
  expect_equal(g$weights[r$i], r$w, tolerance = 1e-15)
  expect_equal(sum(g$weights), 2, tolerance = 1e-14)
})

test_that("the equiangular (Fejer) weights match mpmath and take one DCT", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  ref <- read.csv(test_path("fixtures", "poly-sht-grid.csv"))
  ref <- ref[ref$rule == "fejer", ]
  for (n in unique(ref$n)) {
    r <- ref[ref$n == n, ]
    g <- sht_grid((n - 1) %/% 2, "equiangular", nlat = n)
    expect_lte(max(abs(g$cos_colat - r$x)), 4 * 2^-52) # R's cos(pi * (i - 1/2) / n)
    # within 10 units in the last place of 2 / n, the weights' scale (7.3
    # measured at n = 501): near the poles 1 - 2 sum cancels, whichever way
    # the sum is taken (the direct sum erred by 5.9)
    expect_lte(max(abs(g$weights - r$w)) / (2 / n * 2^-52), 10)
  }
  # 200000 latitudes: the weights as sums over 1e5 cosines each would take
  # 1e10 terms (and 160 GB as a matrix)
  g <- sht_grid(10, "equiangular", nlat = 200000)
  for (k in 0:5) expect_equal(sum(g$weights * g$cos_colat^(2 * k)), 2 / (2 * k + 1), tolerance = 1e-13)
})

test_that("a grid too large for memory is refused, with the memory and the time it would take", {
  expect_error(sht_grid(1e6), "transform of it takes about [0-9.]+ (minutes?|hours?|days?|years?) .*would need [0-9.]+ GB",
               class = "gpustats_error_memory")
  expect_error(sht_grid(10, nlat = 1e12), class = "gpustats_error")
})

test_that("sht_analysis() without a grid reuses the grid of its size, and a grid given is used", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  cache <- gpustats:::sht_grid_cache
  g <- sht_grid(23)
  v <- sht_synthesis(random_sht(23, 1, g, 7))
  builds <- cache$builds
  a <- sht_analysis(v)
  b <- sht_analysis(v)
  expect_equal(cache$builds, builds) # the grid of sht_grid(23), 24 x 48
  expect_identical(a$grid, g)
  expect_identical(sht_grid(23), g)
  v2 <- v[, 1:47] # 47 longitudes: degree 23 on another grid, computed once
  sht_analysis(v2)
  sht_analysis(v2)
  expect_equal(cache$builds, builds + 1)
  g2 <- g
  g2$weights <- 2 * g$weights
  expect_equal(sht_analysis(v, grid = g2)$cos, 2 * a$cos, tolerance = 1e-15)
})

test_that("near the poles the functions keep the accuracy ?sht_analysis states (degree 2047)", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  ref <- read.csv(test_path("fixtures", "poly-sht-polar.csv"))
  ref <- ref[ref$l == 2047, ]
  x <- unique(ref$x)
  # a grid of the reference's colatitudes (exact doubles: no low parts)
  g <- structure(list(kind = "gauss", lmax = 2047L, nlat = length(x), nlon = 4096L, cos_colat = x,
                      cos_colat_lo = 0 * x, weights = rep(1, length(x)), lat = 90 - acos(x) * 180 / pi,
                      lon = 360 * (0:4095) / 4096),
                 class = "sht_grid")
  a <- random_sht(2047, 1, g, 8)
  scale <- sqrt((2 * 2047 + 1) / (4 * pi))
  for (m in unique(ref$m)) {
    a$cos[] <- 0; a$sin[] <- 0
    a$cos[2048, m + 1, 1] <- 1
    r <- ref[ref$m == m, ]
    p <- sht_synthesis(a)[match(r$x, x), 1] / if (m > 0) sqrt(2) else 1
    err <- abs(p - r$p) / scale
    # twice the table of ?sht_analysis at l = 2047 (measured with the FMA
    # build; CPUs without FMA round differently)
    expect_lte(max(err[r$theta <= 1e-4]), 2 * 4.0e-12)
    expect_lte(max(err[r$theta > 1e-4 & r$theta <= 1e-3]), 2 * 2.8e-12)
    expect_lte(max(err[r$theta == 0.01]), 2 * 8.5e-14)
    expect_lte(max(err[r$theta >= 0.1]), 2 * 1.6e-15)
  }
})

test_that("sht objects print, convert to data frames and plot", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  g <- sht_grid(6)
  a <- sht_analysis(sht_synthesis(random_sht(6, 2, g, 4)), grid = g)
  expect_output(print(a), "degrees 0..6, 2 fields")
  expect_output(print(g), "gauss, 7 latitudes x 14 longitudes")
  d <- as.data.frame(a)
  expect_equal(nrow(d), 2 * 28)
  expect_equal(d$cos[d$l == 3 & d$m == 2 & d$field == 2], a$cos[4, 3, 2])
  pdf(NULL)
  expect_invisible(plot(a))
  dev.off()
})

test_that("the spherical-harmonic functions refuse bad input", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  g <- sht_grid(8)
  expect_error(sht_grid(8, nlat = 5), "too small", class = "gpustats_error_argument")
  expect_error(sht_grid(8, nlon = 16), "too small", class = "gpustats_error_argument")
  expect_error(sht_grid(-1), class = "gpustats_error_argument")
  expect_error(sht_grid(4, kind = "healpix"), class = "gpustats_error_argument")
  expect_error(sht_analysis(matrix(1, 9, 17), grid = g), class = "gpustats_error_argument")
  expect_error(sht_analysis(matrix(1, 9, 18), lmax = 9, grid = g), "resolves", class = "gpustats_error_argument")
  expect_error(sht_analysis(matrix(NA_real_, 9, 18)), class = "gpustats_error_argument")
  expect_error(sht_analysis(1:5), class = "gpustats_error_argument")
  expect_error(sht_synthesis(list(cos = 1)), class = "gpustats_error_argument")
  a <- sht_analysis(matrix(1, 9, 18), grid = g)
  expect_error(sht_synthesis(a, grid = sht_grid(4)), "longitudes", class = "gpustats_error_argument")
  expect_error(sht_synthesis(a, grid = list()), class = "gpustats_error_argument")
})

test_that("the GPU spherical-harmonic transforms equal the CPU's", {
  skip_without_gpu()
  # one, two and four lanes a thread, one and several blocks an order, an
  # unpaired equator, and polar blocks dropped at high orders
  grids <- list(sht_grid(200, "gauss"), sht_grid(200, "equiangular"), sht_grid(300, "equiangular", nlat = 1101),
                sht_grid(100, "gauss", nlat = 4401))
  for (g in grids) {
    a <- random_sht(g$lmax, 2, g, 5)
    vg <- sht_synthesis(a, device = "gpu")
    vc <- sht_synthesis(a, device = "cpu")
    expect_lte(max(abs(vg - vc)) / max(abs(vc)), 1e-13)
    bg <- sht_analysis(vc, grid = g, device = "gpu")
    bc <- sht_analysis(vc, grid = g, device = "cpu")
    expect_lte(max(abs(bg$cos - bc$cos), abs(bg$sin - bc$sin)), 1e-13)
  }
})
