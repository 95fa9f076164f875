# The GBEES runs of vignettes/gbees.Rmd that take more than a few seconds,
# which the vignette shows the code of and reads from
# inst/extdata/vignette-gbees.rds. From the package source:
#
#   Rscript inst/scripts/vignette-data.R gbees
#
# (about three minutes on one CPU core).

## ---- l63 ----
meas <- gbees_measurements(time = 1, y = -8, h = 3, cov = 1)
fit <- gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5,
             times = c(0.25, 0.5, 1, 2), measurements = meas, threshold = 1e-7)

## ---- mc ----
set.seed(1)
mc <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = 1, n = 1e5)
# the histograms of the samples' marginals, on the grid's cells
mc_hist <- lapply(1:3, function(d) {
  m <- marginal(fit, dims = d, time = 1, posterior = FALSE)
  hist(mc$samples[[1]][, d], breaks = seq(min(m[[1]]) - 0.25, max(m[[1]]) + 0.25, by = 0.5),
       plot = FALSE)
})

## ---- bc ----
set.seed(2)
bc_kde <- bhattacharyya(fit, mc, time = 1)
bc <- t(sapply(c(1, 2, 4, 8), function(b) {
  r <- bhattacharyya(fit, mc, time = 1, method = "bins", bin = b)
  c(bin = b, coefficient = r$coefficient, reference = r$reference)
}))

## ---- convergence-setup ----
pendulum <- gbees_model(c("omega", "-sin(theta)"), n = 2, state_names = c("theta", "omega"),
                        name = "pendulum")
x0 <- c(1, 0)
S <- diag(0.15^2, 2)
t_end <- 3
flow_back <- function(x, t, h = 0.005) {
  f <- function(x) cbind(-x[, 2], sin(x[, 1]))
  for (k in seq_len(round(t / h))) {
    k1 <- f(x); k2 <- f(x + h / 2 * k1); k3 <- f(x + h / 2 * k2); k4 <- f(x + h * k3)
    x <- x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
  }
  x
}
p0 <- function(x) {
  z <- (x - rep(x0, each = nrow(x))) %*% solve(chol(S))
  exp(-rowSums(z^2) / 2) / (2 * pi * sqrt(det(S)))
}
exact_mass <- function(centers, dx) {
  node <- c(-sqrt(3 / 5), 0, sqrt(3 / 5)) / 2
  weight <- c(5, 8, 5) / 18
  mass <- 0
  for (a in 1:3) for (b in 1:3) {
    x <- cbind(centers[, 1] + node[a] * dx, centers[, 2] + node[b] * dx)
    mass <- mass + weight[a] * weight[b] * dx^2 * p0(flow_back(x, t_end))
  }
  mass
}
l1_error <- function(dx, cfl) {
  fit <- gbees(pendulum, x0, S, dx, times = t_end, threshold = 1e-10, cfl = cfl)
  s <- fit$snapshots[[1]]
  exact <- exact_mass(s$keys * dx + rep(x0, each = nrow(s$keys)), dx)
  c(cells = nrow(s$keys), steps = fit$info$steps, L1 = sum(abs(s$prob - exact)) + max(0, 1 - sum(exact)))
}

## ---- convergence ----
study <- expand.grid(dx = c(0.2, 0.1, 0.05), cfl = c(1, 0.5))
study <- cbind(study, t(mapply(l1_error, study$dx, study$cfl)))

## ---- duffing ----
duffing <- gbees_model(c("v", "-delta * v + x - x^3 + g * cos(w * t)"), n = 2, state_names = c("x", "v"),
                       par = c(delta = 0.25, g = 0.3, w = 1), name = "Duffing")
fit_d <- gbees(duffing, x0 = c(0, 0.2), cov = diag(c(0.01, 0.01)), dx = 0.02, times = c(2, 4, 6),
               threshold = 1e-7)

## ---- store ----
vignette_data <- list(fit = fit, mc_hist = mc_hist, bc_kde = bc_kde, bc = bc, study = study, fit_d = fit_d)
