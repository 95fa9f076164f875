# A Vecchia test case (test-vecchia*.R): n uniform locations, a Matérn
# draw with the given nugget, its parameters and a 3-column design.
vecchia_case <- function(n, seed = 1, nugget = 0.1) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- gp_simulate(locs, 1.3, 0.15, 0.9, nugget = nugget, device = "cpu")
  list(locs = locs, y = y, params = c(sigma2 = 1.3, range = 0.15, smoothness = 0.9, nugget = nugget), X = cbind(1, locs[, 1], sin(3 * locs[, 2])))
}
