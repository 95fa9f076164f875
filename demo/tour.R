# A tour of gpustats: Bessel K, its log, scaled form and derivatives, the
# Matern correlation and covariance matrices, a Gaussian-process analysis
# (simulate, fit, krige), a Vecchia fit at scale, alpha-stable laws (d/p/q/r
# and a fit), spherical-harmonic and polynomial transforms, a tile Cholesky
# factorization and a GBEES density propagation, on the GPU when one is
# present.
#
#   Rscript demo/tour.R [OUTDIR]        (or demo("tour", package = "gpustats"))
#
# Writes eight PNG plots into OUTDIR (default "demo-output").

library(gpustats)

outdir <- commandArgs(trailingOnly = TRUE)[1]
if (is.na(outdir) || !nzchar(outdir)) outdir <- "demo-output"
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)

rule <- function(title) cat("\n==", title, strrep("=", max(0, 66 - nchar(title))), "\n")

rule("Devices")
has_gpu <- gpu_available()
cat("GPU available:", has_gpu, "\n")
info <- gpu_info()
if (nrow(info)) {
  info$total_memory <- sprintf("%.1f GiB", info$total_memory / 2^30)
  info$free_memory <- sprintf("%.1f GiB", info$free_memory / 2^30)
  print(info, row.names = FALSE)
} else {
  cat("no GPU: every function runs on the CPU path\n")
}
threads <- cpu_threads()
cat("CPU threads used by gpustats:", threads, "\n")

rule("K_nu(x) against base R besselK")
x <- c(0.001, 0.1, 1, 5, 20, 100)
nu <- c(0.3, 1, 2.5, 7.2, 12, 19.5)
tab <- data.frame(x = x, nu = nu,
                  gpustats = bessel_k(x, nu),
                  base_R = besselK(x, nu))
tab$rel_diff <- tab$gpustats / tab$base_R - 1
print(tab, digits = 10, row.names = FALSE)

rule("log and exponentially scaled forms")
tab <- data.frame(x = x, nu = nu,
                  log_K = bessel_k(x, nu, log = TRUE),
                  base_R_log = log(besselK(x, nu)),
                  scaled = bessel_k(x, nu, expon_scaled = TRUE),
                  base_R_scaled = besselK(x, nu, expon.scaled = TRUE))
print(tab, digits = 10, row.names = FALSE)
cat("\nWhere K itself leaves the double range, its logarithm does not:\n")
big <- data.frame(x = c(1e-300, 1e-10, 800, 5000), nu = c(3, 40, 0.5, 2))
big$K <- bessel_k(big$x, big$nu)
big$log_K <- bessel_k(big$x, big$nu, log = TRUE)
print(big, digits = 10, row.names = FALSE)

rule("Derivatives of log K against central differences")
h <- 1e-6
xd <- c(0.05, 0.7, 3, 25); nud <- c(0.4, 1.6, 4.5, 10)
dnu <- bessel_k_deriv(xd, nud, wrt = "nu")
dx <- bessel_k_deriv(xd, nud, wrt = "x")
fd_nu <- (log(besselK(xd, nud + h)) - log(besselK(xd, nud - h))) / (2 * h)
fd_x <- (log(besselK(xd * (1 + h), nud)) - log(besselK(xd * (1 - h), nud))) / (2 * h * xd)
print(data.frame(x = xd, nu = nud, dlogK_dnu = dnu, finite_diff_nu = fd_nu,
                 dlogK_dx = dx, finite_diff_x = fd_x), digits = 8, row.names = FALSE)

rule("Matern correlation at closed-form orders")
z <- c(0, 1e-6, 0.01, 0.5, 1, 3, 10)
closed <- data.frame(
  d = z,
  nu_0.5 = matern(z, smoothness = 0.5),
  nu_1.5 = matern(z, smoothness = 1.5),
  nu_2.5 = matern(z, smoothness = 2.5))
exact <- cbind(exp(-z), (1 + z) * exp(-z), (1 + z + z^2 / 3) * exp(-z))
print(closed, digits = 15, row.names = FALSE)
cat("largest difference from exp(-d), (1 + d) exp(-d), (1 + d + d^2/3) exp(-d):",
    format(apply(abs(as.matrix(closed[, -1]) - exact), 2, max), digits = 3), "\n")
cat("sigma2 = 2, nugget = 0.1 at d = 0 and d = 0.3:",
    format(matern(c(0, 0.3), sigma2 = 2, range = 0.5, smoothness = 1.3, nugget = 0.1)), "\n")

rule("A Matern covariance matrix for 2,000 random points")
set.seed(1)
n <- 2000
locs <- matrix(runif(2 * n), ncol = 2)
locs <- locs[order(locs[, 1]), ]
elapsed <- function(expr) system.time(expr)[["elapsed"]]
t_cpu <- elapsed(K_cpu <- matern_cov(locs, range = 0.1, smoothness = 1.3, device = "cpu"))
cat(sprintf("CPU: %d x %d matrix in %.3f s (%.3g entries/s)\n", n, n, t_cpu, n^2 / t_cpu))
if (has_gpu) {
  invisible(matern_cov(locs[1:100, ], range = 0.1, smoothness = 1.3, device = "gpu"))  # warm-up
  t_gpu <- elapsed(K_gpu <- matern_cov(locs, range = 0.1, smoothness = 1.3, device = "gpu"))
  cat(sprintf("GPU: %d x %d matrix in %.3f s (%.3g entries/s), %.1f times the CPU\n",
              n, n, t_gpu, n^2 / t_gpu, t_cpu / t_gpu))
  cat("largest |GPU - CPU|:", format(max(abs(K_gpu - K_cpu)), digits = 3), "\n")
} else {
  cat("GPU: not available, skipped\n")
}
cat("symmetric:", isSymmetric(K_cpu), "  diagonal:", format(range(diag(K_cpu))), "\n")

rule("A Gaussian-process analysis: simulate, fit, krige")
set.seed(11)
n_gp <- if (has_gpu) 5000 else 800
gp_locs <- matrix(runif(2 * n_gp), ncol = 2)
gp_y <- gp_simulate(gp_locs, sigma2 = 1, range = 0.1, smoothness = 1, nugget = 0.02)
cat(sprintf("simulated %d observations: sigma2 = 1, range = 0.1, smoothness = 1, nugget = 0.02\n", n_gp))
gp_time <- system.time(gp_model <- gp_fit(gp_y, gp_locs, nugget = TRUE, control = list(trace = FALSE)))
print(summary(gp_model))
g <- seq(0, 1, length.out = 80)
gp_grid <- as.matrix(expand.grid(g, g))
gp_pred <- predict(gp_model, gp_grid, se.fit = TRUE)
cat(sprintf("kriged %d grid points; prediction standard error from %.3f to %.3f\n", nrow(gp_grid),
            min(gp_pred$se.fit), max(gp_pred$se.fit)))

rule("A Vecchia fit at scale")
n_vc <- if (has_gpu) 1e6 else 1e4
set.seed(13)
vc_locs <- matrix(runif(2 * n_vc), ncol = 2)
vc_y <- 2 + gp_simulate(vc_locs, sigma2 = 1, range = 0.05, smoothness = 0.8, nugget = 0.1, approx = "vecchia")
vc_time <- system.time(vc_model <- gp_fit(vc_y, vc_locs, approx = "vecchia", m = 30, control = list(trace = FALSE)))
cat(sprintf("Vecchia fit (m = 30, free smoothness and nugget) of %s points in %.1f s:\n",
            format(n_vc, big.mark = ",", scientific = FALSE), vc_time[["elapsed"]]))
print(round(vc_model$covariance, 4))

rule("Alpha-stable laws")
xs <- c(-50, -2, 0, 0.5, 3, 100)
st <- data.frame(x = xs, density = dstable(xs, alpha = 1.5, beta = 0.5),
                 lower = pstable(xs, alpha = 1.5, beta = 0.5),
                 upper = pstable(xs, alpha = 1.5, beta = 0.5, lower.tail = FALSE))
print(st, digits = 10, row.names = FALSE)
if (requireNamespace("stabledist", quietly = TRUE)) {
  cat("largest relative difference from stabledist's density:",
      format(max(abs(st$density / stabledist::dstable(xs, alpha = 1.5, beta = 0.5) - 1)), digits = 3), "\n")
}
ps <- c(1e-10, 0.01, 0.5, 0.99)
cat("qstable then pstable gives p back:", format(pstable(qstable(ps, 1.5, 0.5), 1.5, 0.5) / ps - 1, digits = 3), "\n")
set.seed(5)
heavy <- rstable(1000, alpha = 1.3, beta = -0.4, gamma = 2, delta = 1)
stable_model <- stable_fit(heavy, method = "mle")
cat("maximum-likelihood fit of 1,000 draws (alpha 1.3, beta -0.4, gamma 2, delta 1):\n")
print(summary(stable_model))

rule("Spherical-harmonic and polynomial transforms")
lmax <- 255
set.seed(14)
sh_grid <- sht_grid(lmax)
# a random field with a power-law spectrum: white noise's coefficients of degree l scaled by l^-1.5
sh_coef <- sht_analysis(matrix(rnorm(sh_grid$nlat * sh_grid$nlon), sh_grid$nlat), grid = sh_grid)
decay <- pmax(0:lmax, 1)^-1.5
sh_coef$cos <- sh_coef$cos * decay
sh_coef$sin <- sh_coef$sin * decay
sh_field <- sht_synthesis(sh_coef)
sh_back <- sht_analysis(sh_field, grid = sh_grid)
cat("spherical harmonics, lmax", lmax, "- analysis after synthesis gives the coefficients back to",
    format(max(abs(sh_back$cos - sh_coef$cos), abs(sh_back$sin - sh_coef$sin)), digits = 2), "\n")
cheb <- legendre_to_chebyshev(1 / (1:1000)^2)
cat("Legendre to Chebyshev and back, 1,000 coefficients:",
    format(max(abs(chebyshev_to_legendre(cheb) - 1 / (1:1000)^2)), digits = 2), "\n")
nb <- 1000
bx <- banded_solve(rep(-1, nb - 1), rep(4, nb), rep(-1, nb - 1), rep(1, nb))
cat("tridiagonal solve of order", nb, "- residual", format(max(abs(4 * bx - c(0, bx[-nb]) - c(bx[-1], 0) - 1)),
                                                            digits = 2), "\n")

rule("A tile Cholesky factorization")
n_tc <- if (has_gpu) 20000 else 3000
set.seed(12)
tc_spec <- matern_spec(matrix(runif(2 * n_tc), ncol = 2), range = 0.1, smoothness = 1, nugget = 0.01)
tc <- tile_chol(tc_spec)
print(tc)
if (n_tc <= 5000) {
  ref <- chol(matern_cov(tc_spec$locs, range = 0.1, smoothness = 1, nugget = 0.01, device = "cpu"))
  cat("log-determinant:", format(determinant(tc)$modulus, digits = 15), " chol():",
      format(2 * sum(log(diag(ref))), digits = 15), "\n")
}

rule("Propagating a density through Lorenz '63 (GBEES)")
l63 <- gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = c(0.5, 1),
             measurements = gbees_measurements(time = 1, y = -8, h = 3, cov = 1), threshold = 1e-6)
print(l63)
cat("mass change in one flux update, at most:", format(l63$info$mass_error, digits = 2), "\n")

rule("Plots")
files <- file.path(outdir, c("matern-correlation.png", "matern-covariance.png",
                             "log-besselk.png", "gp-kriging.png", "stable-densities.png", "gbees-lorenz63.png",
                             "vecchia-map.png", "sht-field.png"))

png(files[1], width = 900, height = 600, res = 120)
dd <- seq(0, 0.6, length.out = 400)
nus <- c(0.25, 0.5, 1, 1.5, 2.5, 5, 10)
cols <- hcl.colors(length(nus), "Dark 3")
plot(NA, xlim = range(dd), ylim = c(0, 1), xlab = "distance d", ylab = "correlation",
     main = "Matern correlation, range = 0.1")
for (i in seq_along(nus)) {
  lines(dd, matern(dd, range = 0.1, smoothness = nus[i]), col = cols[i], lwd = 2)
}
legend("topright", legend = paste("nu =", nus), col = cols, lwd = 2, bty = "n")
invisible(dev.off())

png(files[2], width = 700, height = 700, res = 120)
m <- 400
idx <- round(seq(1, n, length.out = m))
par(mar = c(1, 1, 3, 1))
image(K_cpu[idx, rev(idx)], col = hcl.colors(64, "Viridis"), axes = FALSE, asp = 1,
      main = sprintf("Matern covariance (nu = 1.3, range = 0.1)\n%d of %d points, sorted by x", m, n))
invisible(dev.off())

png(files[3], width = 900, height = 600, res = 120)
nu_seq <- seq(0, 20, length.out = 401)
xv <- c(0.001, 0.1, 1, 10, 100)
cols <- hcl.colors(length(xv), "Dark 3")
lk <- sapply(xv, function(xx) bessel_k(xx, nu_seq, log = TRUE))
matplot(nu_seq, lk, type = "l", lty = 1, lwd = 2, col = cols, xlab = expression(nu),
        ylab = expression(log ~ K[nu](x)), main = "log K over the order")
legend("topleft", legend = paste("x =", format(xv, scientific = FALSE, drop0trailing = TRUE)),
       col = cols, lwd = 2, bty = "n")
invisible(dev.off())

png(files[4], width = 1300, height = 560, res = 120)
plot(gp_map(gp_model, n = 80))
invisible(dev.off())

png(files[5], width = 900, height = 600, res = 120)
xx <- seq(-6, 6, length.out = 600)
alphas <- c(0.7, 1, 1.5, 1.9)
cols <- hcl.colors(length(alphas), "Dark 3")
dens <- sapply(alphas, function(a) dstable(xx, alpha = a, beta = 0.5))
matplot(xx, dens, type = "l", lty = 1, lwd = 2, col = cols, xlab = "x", ylab = "density",
        main = "Alpha-stable densities, beta = 0.5 (S0)")
legend("topright", legend = paste("alpha =", alphas), col = cols, lwd = 2, bty = "n")
invisible(dev.off())

png(files[6], width = 1300, height = 420, res = 120)
plot(l63, dims = c(1, 3))
invisible(dev.off())

png(files[7], width = 1300, height = 560, res = 120)
plot(gp_map(vc_model, n = 150))
invisible(dev.off())

png(files[8], width = 1000, height = 560, res = 120)
layout(matrix(1:2, 1), widths = c(1, 0.2))
par(mar = c(4, 4, 2.5, 0.5))
sh_cols <- hcl.colors(64, "Blue-Red 3")
image(sh_grid$lon, rev(sh_grid$lat), t(sh_field[rev(seq_along(sh_grid$lat)), ]), col = sh_cols,
      xlab = "longitude", ylab = "latitude", main = sprintf("a random field on the sphere, lmax %d", lmax))
par(mar = c(4, 0.5, 2.5, 4.5))
at <- seq(min(sh_field), max(sh_field), length.out = 65)
image(1, (at[-1] + at[-65]) / 2, matrix(1:64, 1), col = sh_cols, axes = FALSE, xlab = "", ylab = "")
axis(4, las = 1)
invisible(dev.off())

cat("wrote:\n", paste0("  ", normalizePath(files), "\n"), sep = "")
