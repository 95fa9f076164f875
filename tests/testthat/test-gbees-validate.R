# Bad input to GBEES: objects altered after they were made (every method,
# and gbees(), gbees_mc() and bhattacharyya() for the objects they take,
# validates them), a model's name, and Monte Carlo samples that a fixed
# step loses at the singularities of the three-body problem.

x0 <- c(-11.5, -10, 9.5)

# The Jacobi constant of pcr3bp() states (rows), which its field conserves.
jacobi <- function(s, mu) {
  r1 <- sqrt((s[, 1] + mu)^2 + s[, 2]^2)
  r2 <- sqrt((s[, 1] - 1 + mu)^2 + s[, 2]^2)
  s[, 1]^2 + s[, 2]^2 + 2 * (1 - mu) / r1 + 2 * mu / r2 - s[, 3]^2 - s[, 4]^2
}

test_that("a model's name is one string", {
  expect_error(gbees_model(c("x2", "-x1"), 2, name = NULL), "`name` must be one string", class = "gpustats_error_argument")
  expect_error(gbees_model(c("x2", "-x1"), 2, name = c("a", "b")), "`name` must be one string",
               class = "gpustats_error_argument")
  expect_error(gbees_model(function(x) x, 2, name = NA_character_), "`name` must be one string",
               class = "gpustats_error_argument")
  expect_identical(gbees_model(c("x2", "-x1"), 2, name = "spring")$name, "spring")
})

test_that("Monte Carlo samples lost at a primary of the three-body problem are NaN, with a warning that says why", {
  mu <- pcr3bp()$par
  # heading for the Earth: the fixed steps throw most samples out with finite, meaningless states
  start <- c(-mu + 0.1, 0, -1, 0)
  expect_warning(mc <- gbees_mc(pcr3bp(), start, diag(1e-4, 4), c(0.05, 0.3), n = 200, step = 1e-3, device = "cpu"),
                 "of 200 Monte Carlo samples passed so close to a singularity .* NaN from time",
                 class = "gpustats_warning_nonfinite")
  lost <- is.nan(mc$samples[[2]][, 1])
  expect_gt(sum(lost), 100)
  expect_true(all(is.nan(mc$samples[[2]][lost, ])))
  # a wide density: some samples pass close to a primary, the others keep the Jacobi constant they started with
  wide <- c(0.5, 0.1, 0, 0.5)
  set.seed(7)
  mc <- suppressWarnings(gbees_mc(pcr3bp(), wide, diag(1e-2, 4), 2, n = 500, step = 1e-3, device = "cpu"))
  set.seed(7)
  initial <- matrix(rnorm(2000), 500, 4) %*% chol(diag(1e-2, 4)) + rep(wide, each = 500)
  kept <- !is.nan(mc$samples[[1]][, 1])
  expect_true(sum(!kept) > 10 && sum(kept) > 300)
  drift <- abs(jacobi(mc$samples[[1]][kept, ], mu) - jacobi(initial[kept, ], mu)) / pmax(1, abs(jacobi(initial[kept, ], mu)))
  expect_lte(max(drift), 1e-6)
  # an orbit away from the primaries loses none
  expect_no_warning(far <- gbees_mc(pcr3bp(), c(0.5, 0.1, 0, 0.5), diag(1e-4, 4), 2, n = 200, device = "cpu"))
  expect_true(all(is.finite(far$samples[[1]])))
})

test_that("gbees methods name the field of an altered result", {
  gb <- gbees(lorenz63(), x0, diag(3), 1, 0.05, threshold = 1e-5, device = "cpu")
  methods <- list(print = function(x) print(x), summary = function(x) summary(x),
                  as.data.frame = function(x) as.data.frame(x), marginal = function(x) marginal(x),
                  plot = function(x) plot(x), bhattacharyya = function(x) bhattacharyya(x, matrix(rnorm(300), 100)))
  changes <- list(
    snapshots = list(value = NULL, says = "field snapshots must be a list of the recorded densities"),
    dx = list(value = c(1, 1), says = "field dx must be 3 positive cell widths"),
    info = list(value = list(), says = "field info must be a list of the run's counts"),
    model = list(value = "lorenz63", says = "field model must be a <gbees_model>")
  )
  pdf(NULL)
  on.exit(dev.off())
  for (i in seq_along(changes)) {
    g <- gb
    g[names(changes)[i]] <- list(changes[[i]]$value)
    for (m in names(methods)) {
      expect_error(methods[[m]](g), changes[[i]]$says, class = "gpustats_error_argument", info = paste(m, names(changes)[i]))
    }
  }
  g <- gb
  g$snapshots[[1]]$keys <- g$snapshots[[1]]$keys[, 1:2]
  expect_error(marginal(g), "keys of 3 columns", class = "gpustats_error_argument")
  # what is not a gbees result at all: the generic's own error, not R's dispatch error
  for (x in list(NULL, 1, list(), unclass(gb), structure(list(), class = "gp_fit"))) {
    expect_error(marginal(x), "must be a `gbees\\(\\)` result", class = "gpustats_error_argument")
  }
  g <- gb
  g$model$par <- 1
  expect_error(print(g), "`x\\$model` is not a valid <gbees_model>: its field par must be 3 finite numbers",
               class = "gpustats_error_argument")
  s <- summary(gb)
  s$cov <- NULL
  expect_error(print(s), "field cov", class = "gpustats_error_argument")
})

test_that("gbees() and gbees_mc() check an altered model before the native code reads it", {
  m <- lorenz63()
  m$par <- 4 # the native code reads three parameters
  expect_error(gbees(m, x0, diag(3), 1, 0.05), "field par must be 3 finite numbers", class = "gpustats_error_argument")
  expect_error(gbees_mc(m, x0, diag(3), 0.05, n = 10), "field par must be 3", class = "gpustats_error_argument")
  m <- lorenz63()
  m$dim <- 4L
  expect_error(gbees_mc(m, c(x0, 1), diag(4), 0.05, n = 10), "field dim must be a whole number of states",
               class = "gpustats_error_argument")
  m <- pcr3bp()
  m$kind <- 99L
  expect_error(print(m), "field kind must be the code of a model kind", class = "gpustats_error_argument")
  user <- gbees_model(c("x2", "-x1"), 2)
  user$source <- NULL
  expect_error(gbees(user, c(0, 0), diag(2), 0.5, 0.1), "a user model needs its field", class = "gpustats_error_argument")
  meas <- gbees_measurements(0.05, -8, 3, 1)
  meas$cov_chol <- NULL
  expect_error(gbees(lorenz63(), x0, diag(3), 1, 0.05, measurements = meas), "field cov_chol",
               class = "gpustats_error_argument")
  expect_error(print(meas), "field cov_chol", class = "gpustats_error_argument")
})

test_that("Monte Carlo results and Bhattacharyya coefficients name an altered field", {
  gb <- gbees(lorenz63(), x0, diag(3), 1, 0.05, threshold = 1e-5, device = "cpu")
  mc <- gbees_mc(lorenz63(), x0, diag(3), 0.05, n = 200, device = "cpu")
  bad <- mc
  bad$samples[[1]] <- bad$samples[[1]][, 1:2]
  expect_error(print(bad), "field samples must be a list of 1 numeric matrix of 200 rows and 3 columns",
               class = "gpustats_error_argument")
  expect_error(bhattacharyya(gb, bad), "`samples` is not a valid <gbees_mc>", class = "gpustats_error_argument")
  bc <- bhattacharyya(gb, mc)
  bc$coefficient <- "high"
  expect_error(print(bc), "field coefficient must be one number", class = "gpustats_error_argument")
  expect_error(as.double(bc), "field coefficient", class = "gpustats_error_argument")
})

test_that("the shipped results of the GBEES vignette are valid objects", {
  shipped <- readRDS(system.file("extdata", "vignette-gbees.rds", package = "gpustats"))
  expect_identical(validate_gbees(shipped$fit, "x", environment()), shipped$fit)
  expect_identical(validate_gbees(shipped$fit_d, "x", environment()), shipped$fit_d)
  expect_identical(validate_gbees_bhattacharyya(shipped$bc_kde, "x", environment()), shipped$bc_kde)
})
