# gp_fit(approx = "vecchia", cluster = cl) end to end, against the same fit in
# one process, on the same data and machine in one run; and the set-up at
# scale (vecchia_neighbors(): the maxmin ordering and the conditioning sets).
#
#   Rscript inst/bench/gp-vecchia-cluster.R [--gpvc_n=1e5] [--gpvc_workers=1,2,4] [--gpvc_device=cpu]
#                                           [--gpvc_setup_n=1e6,1e7]
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gpvc_n        sizes of the fits (default 1e5; 0: none)
#   gpvc_workers  PSOCK workers of the cluster fits (default 1,2; on one GPU
#                 they share it)
#   gpvc_device   device of every fit and worker (default gpu where there is
#                 one, else cpu)
#   gpvc_setup_n  sizes of the timed vecchia_neighbors() (m = 30, maxmin
#                 ordering; default 1e6,1e7; 0: none)
#   gpvc_setup_grouped  1 to time the grouped structure too (default 1)
#
# The data are those of gp-vecchia-fit.R (a draw of the Vecchia law: constant
# mean, sigma2 1, range 0.05, smoothness 0.8, nugget 0.1; m = 30, grouped).
# A cluster fit's time includes the cutting of the blocks and the sending of
# the pieces (the workers are started before the clock); its line also
# gives that opening alone and one evaluation over the cluster (diagnostics).

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))
if (!exists("gpv_data", mode = "function")) source(file.path(bench_script_dir(), "gp-vecchia-fit.R"))

gpvc_cluster <- function(k) {
  cl <- parallel::makeCluster(k)
  # evaluated on the workers: base::.libPaths itself would go as a copy, setting the copy's paths only
  parallel::clusterCall(cl, base::eval, call(".libPaths", .libPaths()))
  cl
}

bench_gp_vecchia_cluster <- function(sizes = bench_opt("gpvc_n", 1e5, 5000),
                                     workers = bench_opt("gpvc_workers", c(1, 2), 2),
                                     dev = bench_opt("gpvc_device", if (gpu_available()) "gpu" else "cpu")) {
  ns <- asNamespace("gpustats")
  p <- c(sigma2 = 1, range = 0.05, smoothness = 0.8, nugget = 0.1)
  quiet <- list(trace = FALSE)
  rows <- NULL
  for (n in Filter(function(n) n > 0, sizes)) {
    d <- gpv_data(n, dev)
    X <- matrix(1, n, 1)
    fit <- function(cl) gp_fit(d$y, d$locs, approx = "vecchia", m = 30, device = dev, control = quiet, cluster = cl)
    t_one <- system.time(one <- fit(NULL))[["elapsed"]]
    message(sprintf("gp_fit Vecchia m = 30 grouped, n = %s, %s, one process: %.2f s, %d evaluations, logLik %.3f",
                    fmt_n(n), dev, t_one, one$evaluations, one$loglik))
    rows <- rbind(rows, data.frame(n = n, device = dev, workers = 0, seconds = t_one, ratio = 1, evaluations = one$evaluations,
                                   open_s = NA, evaluation_s = NA, loglik_diff = 0))
    for (k in workers) {
      cl <- gpvc_cluster(k)
      t_k <- system.time(split <- fit(cl))[["elapsed"]]
      nb <- vecchia_neighbors(d$locs, 30, group = TRUE)
      t_open <- system.time(engine <- ns$vecchia_cluster_open(cl, nb, d$y, X, TRUE, dev, environment()))[["elapsed"]]
      t_eval <- min(replicate(3, system.time(ns$vecchia_loglik_grad_info(engine, p, d$y, X))[["elapsed"]]))
      ns$vecchia_close(engine)
      parallel::stopCluster(cl)
      message(sprintf(paste("gp_fit Vecchia m = 30 grouped, n = %s, %s, cluster of %d: %.2f s (%.3fx one process),",
                            "%d evaluations, logLik - one process's %.2g; opening %.2f s, one evaluation %.4f s"),
                      fmt_n(n), dev, k, t_k, t_k / t_one, split$evaluations, split$loglik - one$loglik, t_open, t_eval))
      rows <- rbind(rows, data.frame(n = n, device = dev, workers = k, seconds = t_k, ratio = t_k / t_one,
                                     evaluations = split$evaluations, open_s = t_open, evaluation_s = t_eval,
                                     loglik_diff = split$loglik - one$loglik))
    }
  }
  rows
}

# The set-up of a fit at scale: vecchia_neighbors() as a user calls it
# (maxmin ordering, m = 30 nearest earlier neighbours, grouped), on every
# core, at uniform locations.
bench_vecchia_setup <- function(sizes = bench_opt("gpvc_setup_n", c(1e6, 1e7), 1e5),
                                grouped = bench_opt("gpvc_setup_grouped", 1) == 1) {
  rows <- NULL
  for (n in Filter(function(n) n > 0, sizes)) {
    set.seed(1)
    locs <- matrix(runif(2 * n), ncol = 2)
    t_plain <- system.time(nb <- vecchia_neighbors(locs, 30))[["elapsed"]]
    ordering <- nb$ordering
    rm(nb)
    invisible(gc())
    t_group <- if (grouped) system.time(vecchia_neighbors(locs, 30, group = TRUE))[["elapsed"]] else NA
    message(sprintf("vecchia_neighbors, n = %s, m = 30, %s ordering, %d threads: %.1f s, grouped %.1f s",
                    fmt_n(n), ordering, bench_cpu_threads(), t_plain, t_group))
    rows <- rbind(rows, data.frame(n = n, ordering = ordering, threads = bench_cpu_threads(), seconds = t_plain,
                                   grouped_seconds = t_group))
    rm(locs)
    invisible(gc())
  }
  rows
}

if (sys.nframe() == 0L) {
  print(bench_vecchia_setup())
  print(bench_gp_vecchia_cluster())
}
