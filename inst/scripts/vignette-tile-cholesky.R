# The factorizations of vignettes/tile-cholesky.Rmd that take more than a few
# seconds on the CPU, and the tile plan's traffic, which the vignette reads
# from inst/extdata/vignette-tile-cholesky.rds. From the package source:
#
#   Rscript inst/scripts/vignette-data.R tile-cholesky
#
# (about two minutes on one CPU core).

## ---- plan ----
# Tiles loaded by the GPU tile cache for a matrix of 32 x 32 tiles against the
# number of tiles the device holds: the plan is plain C, run here through the
# package's internal interface to it.
nt <- 32
tiles <- nt * (nt + 1) / 2
slots <- unique(round(tiles * c(0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1)))
slots <- slots[slots >= 3]
loads <- sapply(slots, function(s) sum(gpustats:::tile_plan_ops(nt, s)$op == "load"))
plan <- data.frame(nt = nt, tiles = tiles, slots = slots, loads = loads)

## ---- mixed ----
set.seed(3)
pts <- matrix(runif(2 * 4000), ncol = 2)
pts <- pts[morton_order(pts), ]
ranges <- c(weak = 0.02627, medium = 0.078809, strong = 0.210158)
maps <- lapply(ranges, function(r) {
  spec <- matern_spec(pts, range = r, smoothness = 0.5)
  mixed <- tile_chol(spec, tile = 200, precision = "mixed", accuracy = 1e-5)
  exact <- tile_chol(spec, tile = 200)
  list(map = mixed$precision,
       kl = (determinant(mixed)$modulus - determinant(exact)$modulus) / 2)
})

## ---- gp-data ----
set.seed(1)
locs <- matrix(runif(2 * 2000), ncol = 2)

## ---- gp ----
set.seed(4)
y <- gp_simulate(locs, sigma2 = 1, range = 0.1, smoothness = 1.5, nugget = 0.01)
dense <- gp_loglik(y, locs, 1, 0.1, 1.5, 0.01)
old <- options(gpustats.gp_tiles = TRUE)
tiled <- gp_loglik(y, locs, 1, 0.1, 1.5, 0.01)
options(old)

## ---- store ----
# locs lets the vignette check that its live locations match these results
vignette_data <- list(plan = plan, maps = maps, locs = locs, y = y, dense = dense, tiled = tiled)
