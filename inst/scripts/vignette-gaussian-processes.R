# The fits and the kriging surface of vignettes/gaussian-processes.Rmd, which
# shows the code of the sections below and reads their results from
# inst/extdata/vignette-gaussian-processes.rds. From the package source:
#
#   Rscript inst/scripts/vignette-data.R gaussian-processes
#
# (some minutes on one CPU core; the vignette itself then builds in seconds).

## ---- simulate ----
set.seed(42)
n <- 900
locs <- matrix(runif(2 * n), ncol = 2)
y <- gp_simulate(locs, sigma2 = 1, range = 0.1, smoothness = 1, nugget = 0.05)

## ---- fit ----
fit <- gp_fit(y, locs, nugget = TRUE, control = list(trace = FALSE))

## ---- fields ----
suppressPackageStartupMessages(library(fields))
fit_exp <- gp_fit(y, locs, nugget = TRUE, fixed = list(smoothness = 0.5), control = list(trace = FALSE))
sp <- spatialProcess(locs, y, mKrig.args = list(m = 0),
                     cov.args = list(Covariance = "Matern", smoothness = 0.5), verbose = FALSE)

## ---- predict ----
g <- seq(0, 1, length.out = 60)
grid <- as.matrix(expand.grid(g, g))
pr <- predict(fit, grid, se.fit = TRUE)

## ---- holdout-data ----
set.seed(7)
all <- matrix(runif(2 * 1100), ncol = 2)
z <- gp_simulate(all, sigma2 = 1, range = 0.1, smoothness = 1, nugget = 0.05)
train <- 1:900
test <- 901:1100

## ---- holdout-fit ----
f <- gp_fit(z[train], all[train, ], nugget = TRUE, control = list(trace = FALSE))

## ---- store ----
# y and z let the vignette check that its live simulations match these fits;
# of the fields fit, the vignette prints only the summary
vignette_data <- list(y = y, fit = fit, fit_exp = fit_exp, sp = list(summary = sp$summary),
                      pr = pr, z = z, f = f)
