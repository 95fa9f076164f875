# Shared helpers for the gpustats benchmark scripts in this folder.
#
# Sizes and repeat counts come from (first match wins)
#   1. command-line arguments  --name=value
#   2. environment variables   GPUSTATS_BENCH_NAME=value
#   3. the quick default when GPUSTATS_BENCH_QUICK=1, else the full default.

# Prefer a package library built in the source tree (R CMD INSTALL --library=.lib .)
if (dir.exists(".lib") && !isTRUE(getOption("gpustats.bench.libset"))) {
  .libPaths(c(normalizePath(".lib"), .libPaths()))
  options(gpustats.bench.libset = TRUE)
}
suppressPackageStartupMessages(library(gpustats))

bench_quick <- function() {
  v <- Sys.getenv("GPUSTATS_BENCH_QUICK", "")
  nzchar(v) && !(tolower(v) %in% c("0", "false", "no"))
}

bench_opt <- function(name, default, quick = default) {
  args <- commandArgs(trailingOnly = TRUE)
  key <- paste0("--", name, "=")
  hit <- args[startsWith(args, key)]
  val <- if (length(hit)) {
    substring(hit[length(hit)], nchar(key) + 1L)
  } else {
    Sys.getenv(paste0("GPUSTATS_BENCH_", toupper(gsub("[.-]", "_", name))), "")
  }
  if (!nzchar(val)) return(if (bench_quick()) quick else default)
  if (is.numeric(default)) {
    as.numeric(strsplit(val, ",", fixed = TRUE)[[1]])
  } else {
    val
  }
}

# TRUE when the GPU path can be benchmarked; otherwise prints why not.
bench_gpu_ok <- function(what = "GPU benchmarks") {
  ok <- isTRUE(tryCatch(gpu_available(), error = function(e) FALSE))
  if (!ok) message("note: no GPU available to gpustats; ", what, " skipped")
  ok
}

bench_hook <- function(name) {
  ns <- asNamespace("gpustats")
  if (!exists(name, envir = ns, inherits = FALSE)) {
    message("note: gpustats:::", name, " is not available; skipped")
    return(NULL)
  }
  get(name, envir = ns, inherits = FALSE)
}

bench_cores <- function() {
  n <- parallel::detectCores(logical = TRUE)
  if (is.na(n)) 1L else as.integer(n)
}

bench_cpu_threads <- function() {
  f <- tryCatch(get("cpu_threads", envir = asNamespace("gpustats")),
                error = function(e) NULL)
  n <- if (is.null(f)) NA_integer_ else tryCatch(as.integer(f()), error = function(e) NA_integer_)
  if (is.na(n)) bench_cores() else n
}

# f(i) over the indices 1..n split into one chunk per worker, on `cores`
# forked workers (peers that have no threads of their own); the results in
# index order.
bench_parallel <- function(n, cores, f) {
  if (cores <= 1L) return(f(seq_len(n)))
  r <- parallel::mclapply(parallel::splitIndices(n, cores), f, mc.cores = cores, mc.preschedule = TRUE)
  unlist(r, use.names = FALSE)
}

# Available host memory in bytes (MemAvailable), NA where unknown.
bench_mem_available <- function() {
  if (!file.exists("/proc/meminfo")) return(NA_real_)
  l <- readLines("/proc/meminfo", warn = FALSE)
  l <- l[startsWith(l, "MemAvailable:")]
  if (!length(l)) return(NA_real_)
  as.numeric(gsub("[^0-9]", "", l[1])) * 1024
}

# Median elapsed seconds of `reps` calls of f() after `warmup` calls.
bench_time <- function(f, reps = 3L, warmup = 1L) {
  for (i in seq_len(warmup)) f()
  t <- vapply(seq_len(max(1L, reps)), function(i) {
    invisible(gc(verbose = FALSE))
    system.time(f(), gcFirst = FALSE)[["elapsed"]]
  }, numeric(1))
  stats::median(t)
}

# Random Bessel inputs: nu in (0, 20], x log-uniform in [1e-3, 140].
bench_bessel_inputs <- function(n) {
  list(nu = 20 * (1 - stats::runif(n)),
       x = exp(stats::runif(n, log(1e-3), log(140))))
}

# A long-form result row (bench.csv).
bench_row <- function(benchmark, size, device, seconds, rate) {
  data.frame(benchmark = benchmark, size = size, device = device,
             seconds = signif(seconds, 6), rate = signif(rate, 6), stringsAsFactors = FALSE)
}

fmt_g <- function(x, digits = 3) {
  out <- ifelse(is.na(x), "-", trimws(formatC(x, digits = digits, format = "g")))
  out <- sub("e\\+0?", "e", out)
  sub("e-0?", "e-", out)
}

fmt_rate <- function(x) fmt_g(x, 3)

fmt_sec <- function(x) {
  trimws(ifelse(is.na(x), "-", ifelse(x < 0.01, formatC(x, digits = 2, format = "e"),
                                      formatC(x, digits = 3, format = "fg"))))
}

fmt_ratio <- function(x) {
  ifelse(is.na(x) | !is.finite(x), "-",
         trimws(ifelse(x >= 100, formatC(x, digits = 0, format = "f"),
                       formatC(x, digits = 2, format = "fg"))))
}

fmt_n <- function(n) {
  vapply(n, function(v) {
    if (is.na(v)) return("-")
    p <- floor(log10(v))
    if (v >= 1e5 && v == 10^p) sprintf("1e%d", p)
    else if (v >= 1e5 && (v / 10^p) == round(v / 10^p)) sprintf("%de%d", v / 10^p, p)
    else format(v, big.mark = ",", scientific = FALSE, trim = TRUE)
  }, character(1))
}

# A data frame as a markdown (pipe) table; `align` e.g. "lrr".
md_table <- function(df, align = NULL) {
  df[] <- lapply(df, as.character)
  if (is.null(align)) align <- paste(rep("l", ncol(df)), collapse = "")
  al <- strsplit(align, "")[[1]]
  al <- rep(al, length.out = ncol(df))
  sep <- ifelse(al == "r", "---:", ifelse(al == "c", ":---:", "---"))
  lines <- c(paste0("| ", paste(names(df), collapse = " | "), " |"),
             paste0("|", paste(sep, collapse = "|"), "|"))
  if (nrow(df)) {
    body <- do.call(paste, c(lapply(df, identity), sep = " | "))
    lines <- c(lines, paste0("| ", body, " |"))
  }
  paste(lines, collapse = "\n")
}

# A titled markdown table with a note under it.
md_section <- function(title, df, align, note) {
  paste(c(paste("##", title), "", md_table(df, align), "", note, ""), collapse = "\n")
}

bench_gpu_name <- function() {
  g <- tryCatch(gpu_info(), error = function(e) NULL)
  if (is.null(g) || !nrow(g)) return("none")
  paste(unique(sprintf("%s (%.0f GiB, compute capability %s)", g$name,
                       g$total_memory / 2^30, g$compute_capability)),
        collapse = "; ")
}

bench_cpu_name <- function() {
  if (!file.exists("/proc/cpuinfo")) return(NA_character_)
  l <- readLines("/proc/cpuinfo", warn = FALSE)
  l <- l[startsWith(l, "model name")]
  if (!length(l)) return(NA_character_)
  trimws(sub("^[^:]*:", "", l[1]))
}

# Directory of the script being run (Rscript --file=...), or `fallback`.
bench_script_dir <- function(fallback = "inst/bench") {
  a <- commandArgs(trailingOnly = FALSE)
  f <- sub("^--file=", "", a[startsWith(a, "--file=")])
  if (length(f)) dirname(normalizePath(f[1])) else fallback
}

# The rate of the largest size among the rows of `res` whose benchmark and
# device match the two regular expressions (NA when none does).
bench_pick <- function(res, pattern, dev_pattern) {
  i <- which(grepl(pattern, res$benchmark) & grepl(dev_pattern, res$device))
  if (!length(i)) return(NA_real_)
  res$rate[i[which.max(res$size[i])]]
}

# The model the Gaussian-process benchmarks have timed since their first
# figures: mean zero, maximum likelihood, a nugget only where asked for.
gp_fit_zero_mean <- function(y, locs, nugget = FALSE, ...) {
  gp_fit(y, locs, X = matrix(0, length(y), 0), method = "ml", nugget = nugget, ...)
}
