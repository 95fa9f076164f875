# The slower results of vignettes/gaussian-processes.Rmd (profile confidence
# intervals, conditional simulations on meuse.grid), which shows the code of
# the sections below and reads their results from
# inst/extdata/vignette-gaussian-processes.rds. From the package source:
#
#   Rscript inst/scripts/vignette-data.R gaussian-processes
#
# (about half a minute on one CPU core). The fits themselves run live in the
# vignette; `fit` below is the same call as its fit of the trend sqrt(dist).

## ---- meuse ----
library(sp)
data(meuse, meuse.grid, package = "sp")

## ---- fit-dist ----
fit <- gp_fit(log(zinc) ~ sqrt(dist), meuse, coords = ~ x + y, cov = "exponential",
              control = list(trace = FALSE))

## ---- confint ----
t_confint <- system.time(ci <- confint(fit))[["elapsed"]]

## ---- simulate ----
t_simulate <- system.time(sims <- simulate(fit, nsim = 4, newdata = meuse.grid, seed = 1))[["elapsed"]]

## ---- store ----
# the estimates let the vignette check that its live fit is this one
vignette_data <- list(coef = coef(fit), ci = ci, sims = sims,
                      seconds = c(confint = t_confint, simulate = t_simulate))
