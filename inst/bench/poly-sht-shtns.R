# Spherical-harmonic analysis + synthesis of one real field: the package on
# the GPU and on the CPU (all cores) against SHTns, on the same random field,
# with the round-trip errors of each and the differences between the two
# libraries.
#
#   Rscript inst/bench/poly-sht-shtns.R [--option=value ...]
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   sht_lmax       degrees (default 1023,4095; Gauss grid lmax + 1 x 2 (lmax + 1))
#   shtns          a program that runs the SHTns driver, a .sh file run by sh (default:
#                  the environment variable SHTNS_BENCH); without one, SHTns is skipped
#   shtns_threads  threads of SHTns and of the package's CPU path, the same count for
#                  both (default: all cores)
#   shtns_eps      SHTns's polar-optimisation threshold (default 1e-14, its "very safe";
#                  0 turns it off)
#   shtns_gpu      1: also time SHTns's CUDA transforms, data on the device (default 1)
#   shtns_quick    1: SHTns's quick set-up (no timing of its algorithms to choose the
#                  fastest, FFTW_ESTIMATE plans); default 0, the tuned set-up, which times
#                  a few dozen transforms before the timed ones
#   field          "white": standard normal coefficients for every (l, m) (default);
#                  "zonal": for m = 0 only (the orders whose round trip errs most)
#   reps           timed repeats, best kept (default 3)
#   workdir        folder for the exchange files (default a temporary folder)
#
# The SHTns driver is not part of the package: it is built from SHTns's source
# (orthonormal harmonics with the Condon-Shortley phase, Gauss grid, theta
# fastest as R's nlat x nlon matrices) and called as
#   <shtns> lmax threads reps eps coef_in prefix field_in [gpu]
# It reads SHTns's complex coefficients a_lm (m >= 0, m-major), writes the
# field of their synthesis, the analysis of that field and the analysis of
# field_in (the package's field), and prints key=value lines with its best
# synthesis and analysis times (set-up excluded). The package converts
# a_lm = (C_lm - i S_lm) / sqrt(2) (m > 0), a_l0 = C_l0 (?sht_analysis).
#
# The package's times are end to end from R (GPU: host copies included);
# SHTns's CPU times are its transforms on host arrays, its GPU times the
# transforms on device arrays (no copies).

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

# Random coefficients of degree <= lmax (standard normal; zonal: m = 0 only),
# as an sht object.
sht_bench_coef <- function(lmax, grid, zonal = FALSE) {
  L <- lmax + 1
  low <- outer(0:lmax, 0:lmax, ">=") & (!zonal | col(diag(L)) == 1L)
  a <- structure(list(cos = array(stats::rnorm(L * L) * low, c(L, L, 1)),
                      sin = array(stats::rnorm(L * L) * low, c(L, L, 1)), lmax = lmax, grid = grid), class = "sht")
  a$sin[, 1, 1] <- 0
  a
}

# Positions of SHTns's (l, m) order (m-major, l = m..lmax) in the package's
# L x L arrays (entry [l + 1, m + 1]).
shtns_index <- function(lmax) {
  L <- lmax + 1
  unlist(lapply(0:lmax, function(m) (m:lmax) + 1 + L * m), use.names = FALSE)
}

# The package's coefficients as SHTns's complex a_lm, interleaved re, im.
sht_to_shtns <- function(a, idx) {
  m0 <- (idx - 1) %/% (a$lmax + 1) == 0
  s <- ifelse(m0, 1, 1 / sqrt(2))
  as.vector(rbind(a$cos[idx] * s, -a$sin[idx] * s))
}

# SHTns's a_lm (interleaved) back to the package's cos and sin arrays.
shtns_to_sht <- function(q, idx, lmax, grid) {
  L <- lmax + 1
  re <- q[c(TRUE, FALSE)]
  im <- q[c(FALSE, TRUE)]
  s <- ifelse((idx - 1) %/% L == 0, 1, sqrt(2))
  cs <- sn <- array(0, c(L, L, 1))
  cs[idx] <- re * s
  sn[idx] <- -im * s
  sn[, 1, 1] <- 0
  structure(list(cos = cs, sin = sn, lmax = lmax, grid = grid), class = "sht")
}

sht_rel_l2 <- function(b, a) sqrt(sum((b$cos - a$cos)^2 + (b$sin - a$sin)^2) / sum(a$cos^2 + a$sin^2))

sht_max_diff <- function(b, a) max(abs(b$cos - a$cos), abs(b$sin - a$sin)) / max(abs(a$cos), abs(a$sin))

# Best of reps timed synthesis and analysis on one device; the last results too.
sht_bench_package <- function(a, device, reps) {
  if (device == "gpu") sht_analysis(sht_synthesis(a, device = "gpu"), grid = a$grid, device = "gpu") # context, plans
  ts <- ta <- Inf
  for (r in seq_len(reps)) {
    invisible(gc(verbose = FALSE))
    ts <- min(ts, system.time(v <- sht_synthesis(a, device = device), gcFirst = FALSE)[["elapsed"]])
    ta <- min(ta, system.time(b <- sht_analysis(v, grid = a$grid, device = device), gcFirst = FALSE)[["elapsed"]])
  }
  list(synthesis = ts, analysis = ta, field = v, coef = b)
}

# Runs the SHTns driver on the package's coefficients `a` and field `v`.
sht_bench_shtns <- function(prog, a, v, threads, reps, eps, gpu, quick, dir) {
  idx <- shtns_index(a$lmax)
  tag <- file.path(dir, sprintf("l%d%s", a$lmax, if (gpu) "-gpu" else ""))
  coef_in <- paste0(tag, "-coef-in.bin")
  field_in <- paste0(tag, "-field-in.bin")
  writeBin(sht_to_shtns(a, idx), coef_in)
  writeBin(as.vector(v), field_in)
  script <- grepl("[.]sh$", prog) # run by sh: a carried file may have lost its execute bit
  args <- c(if (script) prog, a$lmax, threads, reps, format(eps), coef_in, tag, field_in, if (gpu) "gpu")
  out <- system2(if (script) "sh" else prog, args, stdout = TRUE, stderr = TRUE,
                 env = sprintf("SHTNS_QUICK=%d", as.integer(quick)))
  kv <- grep("^[a-z_]+=", out, value = TRUE)
  val <- stats::setNames(sub("^[^=]*=", "", kv), sub("=.*", "", kv))
  if (!all(c("synthesis_seconds", "analysis_seconds") %in% names(val)) || (gpu && val[["cuda_error"]] != "no error")) {
    message("note: the SHTns driver failed:\n", paste(utils::tail(out, 20), collapse = "\n"))
    return(NULL)
  }
  nlm <- length(idx)
  rd <- function(suffix, n) readBin(paste0(tag, suffix), "double", n)
  res <- list(synthesis = as.numeric(val[["synthesis_seconds"]]), analysis = as.numeric(val[["analysis_seconds"]]),
              init = as.numeric(val[["init_seconds"]]), threads = as.integer(val[["threads"]]),
              binary = if ("binary" %in% names(val)) val[["binary"]] else NA_character_,
              field = matrix(rd("_field.bin", length(v)), nrow(v), ncol(v)),
              coef = shtns_to_sht(rd("_coef.bin", 2 * nlm), idx, a$lmax, a$grid),
              coef_of_field = shtns_to_sht(rd("_coef_of_field.bin", 2 * nlm), idx, a$lmax, a$grid))
  unlink(paste0(tag, c("-coef-in.bin", "-field-in.bin", "_field.bin", "_coef.bin", "_coef_of_field.bin")))
  res
}

# The package's GPU transforms with the data on the device (cuFFT and the
# Legendre sums, CUDA events; random coefficients on the same grid), and the
# host copies that sht_synthesis() and sht_analysis() add: two rows.
sht_bench_device <- function(lmax, reps) {
  hook <- bench_hook("gs_r_bench_sht")
  if (is.null(hook)) return(NULL)
  r <- .Call(hook, as.integer(lmax), as.integer(max(reps, 3)), as.integer(getOption("gpustats.gpus", 0L)[1L]))
  data.frame(lmax = lmax, what = c("gpustats GPU, data on the device", "gpustats GPU, host copies alone"),
             threads = NA, synthesis_s = r[c(1, 3)], analysis_s = r[c(2, 4)], total_s = c(r[1] + r[2], r[3] + r[4]),
             rel_l2 = c(r[5], NA))
}

sht_bench_row <- function(lmax, what, threads, r, a) {
  data.frame(lmax = lmax, what = what, threads = threads, synthesis_s = r$synthesis, analysis_s = r$analysis,
             total_s = r$synthesis + r$analysis, rel_l2 = sht_rel_l2(r$coef, a))
}

bench_poly_sht_shtns <- function(lmaxes = bench_opt("sht_lmax", c(1023, 4095), 63),
                                 prog = bench_opt("shtns", Sys.getenv("SHTNS_BENCH", "")),
                                 threads = bench_opt("shtns_threads", bench_cores()),
                                 eps = bench_opt("shtns_eps", 1e-14), shtns_gpu = bench_opt("shtns_gpu", 1),
                                 quick = bench_opt("shtns_quick", 0), field = bench_opt("field", "white"),
                                 reps = bench_opt("reps", 3, 1), dir = bench_opt("workdir", tempdir())) {
  gpu <- bench_gpu_ok("the package's GPU transforms")
  old <- options(gpustats.threads = threads)
  on.exit(options(old), add = TRUE)
  if (nzchar(prog) && !file.exists(prog)) stop("no SHTns driver at ", prog)
  if (!nzchar(prog)) message("note: no SHTns driver given (--shtns= or SHTNS_BENCH); SHTns skipped")
  rows <- list()
  cmp <- list()
  for (lmax in lmaxes) {
    set.seed(lmax)
    a <- sht_bench_coef(lmax, sht_grid(lmax), zonal = field == "zonal")
    cpu <- sht_bench_package(a, "cpu", reps)
    rows[[length(rows) + 1L]] <- sht_bench_row(lmax, "gpustats CPU", bench_cpu_threads(), cpu, a)
    message(sprintf("lmax %d: gpustats CPU %s + %s s", lmax, fmt_sec(cpu$synthesis), fmt_sec(cpu$analysis)))
    if (gpu) {
      g <- sht_bench_package(a, "gpu", reps)
      rows[[length(rows) + 1L]] <- sht_bench_row(lmax, "gpustats GPU", NA, g, a)
      message(sprintf("lmax %d: gpustats GPU %s + %s s", lmax, fmt_sec(g$synthesis), fmt_sec(g$analysis)))
      cmp[[length(cmp) + 1L]] <- data.frame(lmax = lmax, pair = "gpustats GPU - CPU",
                                            field_max_rel = max(abs(g$field - cpu$field)) / max(abs(cpu$field)),
                                            coef_max_rel = sht_max_diff(g$coef, cpu$coef))
      g$field <- NULL
      dev <- sht_bench_device(lmax, reps)
      if (!is.null(dev)) {
        rows[[length(rows) + 1L]] <- dev
        message(sprintf("lmax %d: gpustats GPU, data on the device %s + %s s", lmax, fmt_sec(dev$synthesis_s[1]),
                        fmt_sec(dev$analysis_s[1])))
      }
    }
    if (nzchar(prog)) {
      for (on_gpu in c(FALSE, if (gpu && shtns_gpu) TRUE)) {
        s <- sht_bench_shtns(prog, a, cpu$field, threads, reps, eps, on_gpu, quick, dir)
        if (is.null(s)) next
        what <- if (on_gpu) "SHTns CUDA (device arrays)" else sprintf("SHTns CPU (%s)", s$binary)
        rows[[length(rows) + 1L]] <- sht_bench_row(lmax, what, if (on_gpu) NA else s$threads, s, a)
        message(sprintf("lmax %d: %s %s + %s s (%s set-up %s s)", lmax, what, fmt_sec(s$synthesis),
                        fmt_sec(s$analysis), if (quick) "quick" else "tuned", fmt_sec(s$init)))
        # the same coefficients synthesised, and the same field (the package's) analysed
        cmp[[length(cmp) + 1L]] <- data.frame(lmax = lmax, pair = paste(what, "- gpustats CPU"),
                                              field_max_rel = max(abs(s$field - cpu$field)) / max(abs(cpu$field)),
                                              coef_max_rel = sht_max_diff(s$coef_of_field, cpu$coef))
      }
    }
    rm(a, cpu)
    invisible(gc(verbose = FALSE))
  }
  list(times = do.call(rbind, rows), compare = do.call(rbind, cmp), field = field)
}

# The markdown tables: times and errors, the GPU's speed-ups, the differences.
bench_poly_sht_shtns_print <- function(res) {
  t <- res$times
  speed <- do.call(rbind, lapply(split(t, t$lmax), function(d) {
    tot <- function(what) { x <- d$total_s[d$what == what]; if (length(x)) x[1] else NA_real_ }
    shtns <- function(p) { x <- d$total_s[startsWith(d$what, p)]; if (length(x)) x[1] else NA_real_ } # binary named after p
    data.frame(lmax = d$lmax[1], shtns_cpu_over_gpu = shtns("SHTns CPU") / tot("gpustats GPU"),
               shtns_cpu_over_device = shtns("SHTns CPU") / tot("gpustats GPU, data on the device"),
               cpu_over_gpu = tot("gpustats CPU") / tot("gpustats GPU"),
               shtns_cuda_over_gpu = shtns("SHTns CUDA") / tot("gpustats GPU"))
  }))
  cat(sprintf("\nCPU: %s, %d cores; GPU: %s; %s field\n\n", bench_cpu_name(), bench_cores(), bench_gpu_name(),
              res$field))
  shown <- data.frame(lmax = t$lmax, what = t$what, threads = ifelse(is.na(t$threads), "-", t$threads),
                      `synthesis s` = fmt_sec(t$synthesis_s), `analysis s` = fmt_sec(t$analysis_s),
                      `total s` = fmt_sec(t$total_s), `round-trip rel. L2` = fmt_g(t$rel_l2), check.names = FALSE)
  cat(md_section("Spherical-harmonic synthesis + analysis of one real field (Gauss grid)", shown, "lllrrrr",
                 "Best of the repeats. gpustats: end to end from R (GPU: host copies included); gpustats GPU, data on the device: cuFFT and the Legendre sums timed with CUDA events (median), random coefficients; host copies alone: what the R functions copy to and from the device (median); SHTns CPU: its transforms on host arrays; SHTns CUDA: on device arrays."))
  sp <- data.frame(lmax = speed$lmax, `SHTns CPU / gpustats GPU` = fmt_ratio(speed$shtns_cpu_over_gpu),
                   `SHTns CPU / gpustats GPU, data on the device` = fmt_ratio(speed$shtns_cpu_over_device),
                   `gpustats CPU / gpustats GPU` = fmt_ratio(speed$cpu_over_gpu),
                   `SHTns CUDA / gpustats GPU` = fmt_ratio(speed$shtns_cuda_over_gpu), check.names = FALSE)
  cat("\n", md_section("Speed-up of the gpustats GPU transforms (ratio of total times)", sp, "lrrrr", "Above 1: the GPU is faster."),
      sep = "")
  if (!is.null(res$compare)) {
    cm <- data.frame(lmax = res$compare$lmax, pair = res$compare$pair, `field max rel. diff.` = fmt_g(res$compare$field_max_rel),
                     `coefficient max rel. diff.` = fmt_g(res$compare$coef_max_rel), check.names = FALSE)
    cat("\n", md_section("Differences between the libraries", cm, "llrr",
                         "Field: synthesis of the same coefficients; coefficients: analysis of the same field (gpustats CPU's synthesis); both relative to the largest value."),
        sep = "")
  }
  invisible(res)
}

if (sys.nframe() == 0L) bench_poly_sht_shtns_print(bench_poly_sht_shtns())
