# One long computation of gpustats, run `rounds` times, each interrupted by
# SIGINT from tools/interrupt/check.sh: prints when each returned and the
# process's resident memory (and the GPU's free memory with device = "gpu")
# after it, against before the first run.
#   Rscript tools/interrupt/child.R CASE DEVICE READY_FILE ROUNDS
args <- commandArgs(TRUE)
what <- args[1]
device <- args[2]
ready <- args[3]
rounds <- as.integer(args[4])
suppressMessages(library(gpustats))
rss_mb <- function() {
  line <- grep("^VmRSS", readLines("/proc/self/status"), value = TRUE)
  as.numeric(sub("VmRSS:[[:space:]]+([0-9]+) kB", "\\1", line)) / 1024
}
gpu_free_mb <- function() if (device == "gpu") gpu_info()$free_memory[1] / 2^20 else NA_real_
set.seed(1)
# A GPU does these far faster: larger problems keep each run going past the signal.
size <- function(cpu, gpu) if (device == "gpu") gpu else cpu
run <- switch(what,
  gp_fit = {
    n <- size(3000, 20000)
    L <- matrix(runif(2 * n), ncol = 2)
    y <- rnorm(n)
    function() gp_fit(y, L, device = device, control = list(trace = FALSE))
  },
  predict = {
    # the kriging of many new locations, with standard errors, after a quick factorization
    n <- size(3000, 40000)
    L <- matrix(runif(2 * n), ncol = 2)
    fit <- gp_fit(rnorm(n), L, fixed = list(sigma2 = 1, range = 0.1, smoothness = 0.5, nugget = 0.01),
                  device = device, control = list(trace = FALSE))
    new <- matrix(runif(2 * size(1e5, 1e6)), ncol = 2)
    function() predict(fit, new, se.fit = TRUE, device = device)
  },
  dstable = {
    x <- runif(size(1e8, 4e8), -10, 10)
    function() dstable(x, 1.3, 0.4, device = device)
  },
  qstable = {
    p <- runif(size(1e6, 4e7))
    function() qstable(p, 1.3, 0.4, device = device)
  },
  stable_fit = {
    # 200 samples of 5,000 fitted in lockstep, and one of 2e6
    xs <- matrix(rstable(1e6, 1.5, 0.3), ncol = 200)
    x <- rstable(2e6, 1.7, -0.2)
    function() {
      stable_fit(xs, device = device, control = list(progress = FALSE))
      stable_fit(x, device = device)
    }
  },
  vecchia_loglik = {
    n <- size(5e5, 4e6)
    L <- matrix(runif(2 * n), ncol = 2)
    y <- rnorm(n)
    function() vecchia_loglik(y, L, 1, 0.05, 1.5, 0.1, m = 30, device = device)
  },
  glmm_vecchia = {
    # a Poisson fit by the Vecchia-Laplace approximation: Newton steps of
    # incomplete Cholesky factorizations between the Vecchia factorizations
    n <- size(2e5, 5e5)
    d <- data.frame(lon = runif(n), lat = runif(n))
    d$y <- rpois(n, 2)
    function() gp_fit(y ~ 1, d, coords = ~ lon + lat, family = poisson(), approx = "vecchia", fixed = list(smoothness = 0.5),
                      device = device, control = list(trace = FALSE))
  },
  tile_chol = {
    A <- matern_cov(matrix(runif(2 * 8000), ncol = 2), range = 0.1, nugget = 0.1, device = "cpu")
    function() tile_chol(A, device = device)
  },
  sht_grid = function() sht_grid(10, nlat = size(2e7, 2e7), nlon = 22),
  sht_analysis = {
    lmax <- size(4095, 8191)
    v <- matrix(rnorm((lmax + 1) * (2 * lmax + 2)), lmax + 1)
    g <- sht_grid(lmax)
    function() sht_analysis(v, grid = g, device = device)
  },
  gbees = function() gbees(lorenz63(), c(-11.5, -10, 9.5), diag(3), 0.5, c(1, 2, 3), threshold = 1e-9, device = device),
  gbees_mc = function() gbees_mc(lorenz63(), c(-11.5, -10, 9.5), diag(3), 5, n = 1e6, device = device),
  legcheb_direct = {
    x <- matrix(rnorm(4e5), 4e4)
    function() legendre_to_chebyshev(x, method = "direct", device = device)
  },
  legcheb_fast = {
    x <- rnorm(size(2^23, 2^26))
    function() legendre_to_chebyshev(x, method = "toeplitz-hankel", device = device)
  },
  stop("unknown case ", what)
)
invisible(gc())
rss0 <- rss_mb()
gpu0 <- gpu_free_mb()
for (k in seq_len(rounds)) {
  writeLines(as.character(k), ready)
  r <- tryCatch(run(), interrupt = function(e) "interrupted")
  back <- as.numeric(Sys.time())
  invisible(gc())
  cat(sprintf("%s %s round %d: %s, returned at %.3f; resident %.0f MB (before %.0f); GPU free %.0f MB (before %.0f)\n",
              what, device, k, if (identical(r, "interrupted")) "interrupted" else "finished first", back,
              rss_mb(), rss0, gpu_free_mb(), gpu0))
}
