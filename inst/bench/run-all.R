# All gpustats benchmarks and accuracy tables in one run.
#
#   Rscript inst/bench/run-all.R OUTDIR        (from the package source root)
#
# Writes OUTDIR/bench.md (all tables with the machine description),
# OUTDIR/bench.csv (long form: benchmark, size, device, seconds, rate) and
# OUTDIR/accuracy.md, and prints the tables with a compact summary last.
# Sizes: see bessel.R, matern.R, gp.R, gp-predict.R, stable.R, tile_chol.R and gbees.R; GPUSTATS_BENCH_QUICK=1 for a quick run.

for (s in c("common.R", "accuracy.R", "bessel.R", "matern.R", "gp.R", "gp-predict.R", "stable.R", "tile_chol.R",
            "gbees.R")) {
  source(file.path("inst", "bench", s))
}

run_all <- function(outdir, root = bench_opt("root", ".")) {
  dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
  t0 <- proc.time()[["elapsed"]]
  gpu <- bench_gpu_ok("GPU benchmarks")
  quick <- bench_quick()

  env <- Sys.getenv()
  env <- env[startsWith(names(env), "GPUSTATS_BENCH_")]
  args <- commandArgs(trailingOnly = TRUE)
  cmd <- paste(c(if (length(env)) paste0(names(env), "=", env),
                 "Rscript inst/bench/run-all.R", args), collapse = " ")

  pkg_ver <- as.character(utils::packageVersion("gpustats"))
  header <- c(
    "# gpustats benchmarks", "",
    sprintf("- date: %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z")),
    sprintf("- gpustats %s, %s", pkg_ver, R.version.string),
    sprintf("- GPU: %s", bench_gpu_name()),
    sprintf("- CPU: %s; %d cores; gpustats CPU path uses %d OpenMP threads",
            if (is.na(bench_cpu_name())) "unknown" else bench_cpu_name(),
            bench_cores(), bench_cpu_threads()),
    sprintf("- command: `%s`", cmd),
    if (quick) "- quick mode (tiny sizes): figures are not representative",
    "")

  message("== accuracy")
  acc <- tryCatch(accuracy_report(root = root, gpu = gpu),
                  error = function(e) paste("accuracy tables failed:", conditionMessage(e)))
  message("== Bessel K")
  bes <- tryCatch(bench_bessel(gpu = gpu), error = function(e) {
    message("Bessel benchmarks failed: ", conditionMessage(e)); NULL })
  message("== Matern")
  mat <- tryCatch(bench_matern(gpu = gpu), error = function(e) {
    message("Matern benchmarks failed: ", conditionMessage(e)); NULL })

  message("== Gaussian processes")
  gpr <- tryCatch(rbind(bench_gp(gpu = gpu), bench_gp_predict(), bench_gp_fields()), error = function(e) {
    message("Gaussian-process benchmarks failed: ", conditionMessage(e)); NULL })

  message("== alpha-stable laws")
  stb <- tryCatch(bench_stable(gpu = gpu), error = function(e) {
    message("stable benchmarks failed: ", conditionMessage(e)); NULL })

  message("== tile Cholesky")
  tch <- tryCatch(bench_tile_chol(gpu = gpu, trace_file = file.path(outdir, "tile_chol_trace.csv")), error = function(e) {
    message("tile Cholesky benchmarks failed: ", conditionMessage(e)); NULL })

  message("== GBEES")
  gbs <- tryCatch(bench_gbees(), error = function(e) {
    message("GBEES benchmarks failed: ", conditionMessage(e)); NULL })

  bt <- if (!is.null(bes)) bessel_tables(bes) else NULL
  mt <- if (!is.null(mat)) matern_tables(mat) else NULL
  st <- if (!is.null(stb)) stable_tables(stb) else NULL
  long <- rbind(bes, mat, gpr, stb, tch, if (!is.null(gbs)) gbees_long(gbs))
  if (!is.null(long)) {
    utils::write.csv(long, file.path(outdir, "bench.csv"), row.names = FALSE)
  }

  summ <- summary_table(bt$rates, mt$rates, st$rates, acc_core = attr(acc, "core"))
  elapsed <- proc.time()[["elapsed"]] - t0
  md <- c(header,
          if (!gpu) c("No GPU was available to gpustats in this run: GPU rows are absent.", ""),
          if (!is.null(bt)) bt$md else "Bessel benchmarks failed (see the log).", "",
          if (!is.null(mt)) mt$md else "Matern benchmarks failed (see the log).", "",
          if (!is.null(gpr)) gp_tables(gpr) else "Gaussian-process benchmarks failed (see the log).", "",
          if (!is.null(st)) st$md else "Stable benchmarks failed (see the log).", "",
          if (!is.null(tch)) tile_chol_tables(tch) else "Tile Cholesky benchmarks failed (see the log).", "",
          if (!is.null(gbs)) gbees_tables(gbs) else "GBEES benchmarks failed (see the log).", "",
          "## Summary", "", summ, "",
          sprintf("Total run time %.0f s. Accuracy tables: accuracy.md.", elapsed), "")
  writeLines(md, file.path(outdir, "bench.md"))
  writeLines(c(header[1:6], "", acc), file.path(outdir, "accuracy.md"))

  cat(acc, "\n\n")
  cat(paste(md, collapse = "\n"), "\n")
  cat(sprintf("wrote %s\n", paste(file.path(outdir, c("bench.md", "bench.csv", "accuracy.md")),
                                  collapse = ", ")))
  invisible(list(bessel = bes, matern = mat, stable = stb, tile_chol = tch, gbees = gbs, accuracy = acc))
}

summary_table <- function(b, m, s, acc_core = NULL) {
  g <- function(v, k) if (is.null(v) || is.na(v[k])) NA_real_ else unname(v[k])
  rows <- data.frame(
    figure = c("Bessel log K: GPU kernel (evals/s)",
               "Bessel log K: GPU end to end (evals/s)",
               "Bessel log K: gpustats CPU (evals/s)",
               "Bessel: base R besselK all cores (evals/s)",
               "Bessel: gsl bessel_Knu all cores (evals/s)",
               "Bessel: base R besselK 1 core (evals/s)",
               "Bessel: GPU kernel / gpustats CPU",
               "Bessel: GPU end to end / gpustats CPU",
               "Bessel: GPU end to end / base R all cores",
               "Matern nu=1.3: GPU kernel (entries/s)",
               "Matern nu=1.3: GPU end to end (entries/s)",
               "Matern nu=1.3: gpustats CPU (entries/s)",
               "Matern: base R dist() + besselK (entries/s)",
               "Matern: GPU end to end / gpustats CPU",
               "Matern: GPU end to end / base R",
               "dstable: GPU kernel (points/s)",
               "pstable: GPU kernel (points/s)",
               "qstable: GPU kernel (points/s)",
               "dstable: GPU end to end (points/s)",
               "dstable: gpustats CPU (points/s)",
               "dstable: stabledist all cores (points/s)",
               "dstable: GPU end to end / stabledist all cores"),
    value = c(fmt_rate(c(g(b, "kernel"), g(b, "gpu"), g(b, "cpu"), g(b, "base_all"),
                         g(b, "gsl_all"), g(b, "base_1"))),
              fmt_ratio(c(g(b, "kernel") / g(b, "cpu"), g(b, "gpu") / g(b, "cpu"),
                          g(b, "gpu") / g(b, "base_all"))),
              fmt_rate(c(g(m, "kernel"), g(m, "gpu"), g(m, "cpu"), g(m, "peer"))),
              fmt_ratio(c(g(m, "gpu") / g(m, "cpu"), g(m, "gpu") / g(m, "peer"))),
              fmt_rate(c(g(s, "d_kernel"), g(s, "p_kernel"), g(s, "q_kernel"), g(s, "d_gpu"),
                         g(s, "d_cpu"), g(s, "d_peer"))),
              fmt_ratio(g(s, "d_gpu") / g(s, "d_peer"))),
    stringsAsFactors = FALSE)
  if (length(acc_core)) {
    rows <- rbind(rows, data.frame(
      figure = paste0("log K worst abs. error, core region: ", names(acc_core)),
      value = fmt_g(acc_core, 2), stringsAsFactors = FALSE))
  }
  md_table(rows, "lr")
}

if (sys.nframe() == 0L) {
  args <- commandArgs(trailingOnly = TRUE)
  args <- args[!startsWith(args, "--")]
  outdir <- if (length(args)) args[1] else "bench-output"
  run_all(outdir)
}
