# Replicate study of stable_fit("mle"): `reps` samples of n = 1,000 from
# each of six standard laws (gamma = 1, delta = 0) across the alpha range,
# symmetric and skewed; all samples fitted in one batched call, all four
# parameters estimated.
#
#   Rscript inst/bench/stable-replicates.R OUTFILE [--stable_reps=100] [--stable_rep_n=1000]
#
# Writes one row per fit (setting, replicate, estimates, standard errors,
# log-likelihood, iterations, convergence) to OUTFILE (csv); the vignette
# plots the copy in inst/extdata/stable_replicates.csv.

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

stable_replicates <- function(reps = bench_opt("stable_reps", 100, 3),
                              n = bench_opt("stable_rep_n", 1000, 500), seed = 20261121) {
  settings <- data.frame(alpha = c(0.8, 0.8, 1.2, 1.5, 1.8, 1.95),
                         beta = c(0, 0.5, 0, 0.5, -0.5, 0))
  set.seed(seed)
  k <- rep(seq_len(nrow(settings)), each = reps)
  samples <- vapply(k, function(i) rstable(n, settings$alpha[i], settings$beta[i]), numeric(n))
  device <- if (bench_gpu_ok("the GPU fit")) "gpu" else "cpu"
  t <- system.time(fits <- stable_fit(samples, device = device))[["elapsed"]]
  message(sprintf("%d samples of n = %d fitted in %.2f s (%s)", length(k), n, t, device))
  data.frame(true_alpha = settings$alpha[k], true_beta = settings$beta[k],
             replicate = rep(seq_len(reps), nrow(settings)), fits, row.names = NULL,
             batch_seconds = t, device = device)
}

if (sys.nframe() == 0L) {
  out <- commandArgs(trailingOnly = TRUE)
  out <- out[!startsWith(out, "--")]
  res <- stable_replicates()
  if (length(out)) utils::write.csv(res, out[1], row.names = FALSE)
  print(aggregate(cbind(alpha, beta, gamma, delta) ~ true_alpha + true_beta, res,
                  function(v) c(mean = mean(v), sd = stats::sd(v))))
}
