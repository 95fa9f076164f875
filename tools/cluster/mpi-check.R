# The Vecchia likelihood and fit over an MPI cluster (Rmpi and snow, with
# OpenMPI) against one process: prints the largest relative differences and
# whether they are within their bars (1e-10 for the likelihood,
# gradient and information, 1e-6 for the fit; Rmpi's mpi.quit() takes no
# status, so a caller reads the line). Run in its own process, as the MPI
# run time ends the R session that started it:
#   Rscript tools/cluster/mpi-check.R [workers]
# (as root, OpenMPI needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;
# with more workers than cores, OMPI_MCA_rmaps_base_oversubscribe=1).
args <- commandArgs(trailingOnly = TRUE)
workers <- if (length(args)) as.integer(args[[1L]]) else 2L
suppressPackageStartupMessages(library(gpustats))
# the workers find gpustats where this session does
Sys.setenv(R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep))
cl <- parallel::makeCluster(workers, type = "MPI")
set.seed(47)
n <- 1500
locs <- matrix(runif(2 * n), ncol = 2)
y <- gp_simulate(locs, 1.3, 0.15, 0.9, nugget = 0.1, device = "cpu")
X <- cbind(1, locs[, 1])
params <- c(sigma2 = 1.3, range = 0.15, smoothness = 0.9, nugget = 0.1)
relative <- function(a, b) max(abs(a - b)) / max(abs(b))
worst <- c(likelihood = 0, fit = 0)
for (group in c(TRUE, FALSE)) {
  nb <- vecchia_neighbors(locs, m = 12, group = group)
  vc <- gpustats:::vecchia_open(locs, 12, device = "cpu", group = group)
  one <- gpustats:::vecchia_loglik_grad_info(vc, params, y, X)
  engine <- gpustats:::vecchia_cluster_open(cl, nb, y, X, group, "cpu", environment())
  split <- gpustats:::vecchia_loglik_grad_info(engine, params, y, X)
  gpustats:::vecchia_close(engine)
  worst[["likelihood"]] <- max(worst[["likelihood"]], abs(split$loglik / one$loglik - 1), relative(split$grad, one$grad),
                               relative(split$info, one$info))
}
quiet <- list(trace = FALSE)
fit_one <- gp_fit(y, locs, X = X, approx = "vecchia", m = 12, device = "cpu", control = quiet)
fit_mpi <- gp_fit(y, locs, X = X, approx = "vecchia", m = 12, device = "cpu", control = quiet, cluster = cl)
worst[["fit"]] <- relative(coef(fit_mpi), coef(fit_one))
ok <- worst[["likelihood"]] <= 1e-10 && worst[["fit"]] <= 1e-6
cat(sprintf("MPI cluster of %d workers: largest relative difference %.3g (likelihood, gradient, information), %.3g (fit): %s\n",
            workers, worst[["likelihood"]], worst[["fit"]], if (ok) "within the bars" else "ABOVE THE BARS"))
# (snow's stopCluster() of an MPI cluster can hang; mpi.quit() ends the workers too)
Rmpi::mpi.quit(save = "no")
