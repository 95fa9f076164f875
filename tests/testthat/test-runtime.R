# The runtime policy: threads, host memory, status kinds, interrupts and
# progress output.

# Runs an R script in a child process (Rscript), so that a crash or an abort
# cannot end the test run. Returns the exit status and the output (stdout and
# stderr together).
run_child <- function(lines, timeout = 120) {
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  writeLines(lines, script)
  libs <- paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep))
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), shQuote(script), stdout = TRUE,
                                  stderr = TRUE, env = libs, timeout = timeout))
  status <- attr(out, "status")
  list(status = if (is.null(status)) 0L else status, output = paste(out, collapse = "\n"))
}

# Evaluates expr with the gpustats.threads option set to n.
with_threads <- function(n, expr) {
  old <- options(gpustats.threads = n)
  on.exit(options(old))
  expr
}

# Evaluates expr with the environment variables `vars` (a named character
# vector) set, restoring them afterwards.
with_env <- function(vars, expr) {
  old <- Sys.getenv(names(vars), unset = NA, names = TRUE)
  on.exit({
    for (v in names(old)) if (is.na(old[[v]])) Sys.unsetenv(v) else do.call(Sys.setenv, as.list(old[v]))
  })
  do.call(Sys.setenv, as.list(vars))
  expr
}

test_that("R's table of status kinds is the core's, and each kind reaches R as its class", {
  kinds <- gpustats:::gs_table("status")
  expect_identical(kinds, .Call(gpustats:::gs_r_tables)$status)
  expect_identical(unname(kinds), seq_along(kinds) - 1L)
  expect_identical(anyDuplicated(names(kinds)), 0L)
  expect_true(all(c("ok", "argument", "memory", "no_gpu", "cuda", "interrupted", "not_pd") %in% names(kinds)))
  raise <- function(kind) {
    gpustats:::gs_call(.Call(gpustats:::gs_r_status_raise, kinds[[kind]], "what went wrong {here}"), environment())
  }
  for (kind in setdiff(names(kinds), c("ok", "interrupted"))) {
    e <- tryCatch(raise(kind), error = identity)
    expect_s3_class(e, paste0("gpustats_error_", kind))
    expect_s3_class(e, "gpustats_error")
    expect_match(conditionMessage(e), "what went wrong {here}", fixed = TRUE)
  }
  # an interrupt is R's own condition, which try() does not catch
  expect_identical(tryCatch(raise("interrupted"), interrupt = function(e) class(e)), c("interrupt", "condition"))
  expect_identical(tryCatch(try(raise("interrupted"), silent = TRUE), interrupt = function(e) "interrupt"), "interrupt")
})

test_that("an invalid gpustats.threads option is a clear error, not all cores", {
  for (bad in list("2", 1.5, -1, NA, NA_integer_, NaN, Inf, c(1, 2), TRUE, list(2))) {
    expect_error(with_threads(bad, gpustats:::cpu_threads()), "gpustats.threads", class = "gpustats_error_argument")
  }
  expect_error(with_threads("4", bessel_k(1, 1, device = "cpu")), "gpustats.threads", class = "gpustats_error_argument")
  expect_error(with_threads(-1, matern_cov(matrix(1:4, 2), device = "cpu")), class = "gpustats_error_argument")
  expect_error(with_threads(0.5, dstable(1, 1.5, 0, device = "cpu")), class = "gpustats_error_argument")
})

test_that("the thread count is capped by the cores, OMP_THREAD_LIMIT and OMP_NUM_THREADS", {
  all <- with_threads(NULL, gpustats:::cpu_threads())
  expect_gte(all, 1L)
  expect_lte(all, parallel::detectCores())
  expect_identical(with_threads(1, gpustats:::cpu_threads()), 1L)
  expect_identical(with_threads(0, gpustats:::cpu_threads()), all)
  expect_identical(with_threads(1e6, gpustats:::cpu_threads()), with_threads(1e9, gpustats:::cpu_threads()))
  expect_lte(with_threads(1e6, gpustats:::cpu_threads()), parallel::detectCores())
  two <- with_threads(2L, gpustats:::cpu_threads())
  expect_identical(two, min(2L, with_threads(1e6, gpustats:::cpu_threads())))
  # OMP_THREAD_LIMIT (CRAN's way) binds even an explicit option
  expect_identical(with_env(c(OMP_THREAD_LIMIT = "1"), with_threads(2L, gpustats:::cpu_threads())), 1L)
  # OMP_NUM_THREADS sets the default; the option overrides it
  expect_identical(with_env(c(OMP_NUM_THREADS = "1"), with_threads(NULL, gpustats:::cpu_threads())), 1L)
  expect_identical(with_env(c(OMP_NUM_THREADS = "1,1"), with_threads(NULL, gpustats:::cpu_threads())), 1L)
  expect_identical(with_env(c(OMP_NUM_THREADS = "1"), with_threads(2L, gpustats:::cpu_threads())), two)
  expect_identical(with_env(c(OMP_NUM_THREADS = "junk"), with_threads(NULL, gpustats:::cpu_threads())), all)
})

test_that("huge thread requests neither crash nor abort R", {
  # each of these ended the R process before the request was capped
  r <- run_child(c(
    "suppressPackageStartupMessages(library(gpustats))",
    "for (t in list(1e6, .Machine$integer.max, 1000)) {",
    "  options(gpustats.threads = t)",
    "  cat(sprintf('%.17g %.17g %d\\n', bessel_k(1, 1), sum(matern_cov(matrix(1:200, 100), range = 30)),",
    "              gpustats:::cpu_threads()))",
    "}",
    "cat('finished\\n')"
  ))
  expect_identical(r$status, 0L)
  expect_match(r$output, "finished")
  lines <- grep("^[0-9.e+-]+ [0-9.e+-]+ [0-9]+$", strsplit(r$output, "\n")[[1]], value = TRUE)
  expect_length(lines, 3L)
  fields <- do.call(rbind, strsplit(lines, " "))
  expect_equal(as.numeric(fields[, 1]), rep(besselK(1, 1), 3), tolerance = 1e-14)
  expect_identical(length(unique(fields[, 2])), 1L)
  expect_true(all(as.integer(fields[, 3]) <= parallel::detectCores()))
})

test_that("results do not depend on the thread count", {
  skip_if(with_threads(2L, gpustats:::cpu_threads()) < 2L, "fewer than two cores")
  set.seed(40)
  x <- exp(runif(2e4, -6, 6))
  nu <- runif(2e4, 0, 40)
  locs <- matrix(runif(1200), ncol = 2)
  q <- rnorm(2000, sd = 5)
  alpha <- runif(2000, 0.3, 2)
  beta <- runif(2000, -1, 1)
  run <- function(threads) {
    with_threads(threads, list(
      bessel_k = bessel_k(x, nu, device = "cpu"),
      bessel_k_log = bessel_k(x, nu, log = TRUE, device = "cpu"),
      matern_cov = matern_cov(locs, range = 0.2, smoothness = 1.3, nugget = 0.1, device = "cpu"),
      dstable = dstable(q, alpha, beta, device = "cpu"),
      pstable = pstable(q, alpha, beta, device = "cpu")
    ))
  }
  one <- run(1L)
  two <- run(2L)
  for (f in names(one)) expect_identical(two[[f]], one[[f]], label = paste(f, "with 2 threads"))
})

test_that("memory refusals compare against the available memory, not the physical", {
  skip_if_not(file.exists("/proc/meminfo"), "no /proc/meminfo")
  meminfo <- readLines("/proc/meminfo")
  kb <- function(field) as.numeric(sub("^[^:]+: *([0-9]+) kB$", "\\1", grep(paste0("^", field, ":"), meminfo,
                                                                            value = TRUE)))
  total <- 1024 * kb("MemTotal")
  available <- 1024 * kb("MemAvailable")
  skip_if(total - available < 1e9, "too little memory in use to fall between available and total")
  # a matrix larger than what is available but smaller than the machine
  n <- ceiling(sqrt((available + (total - available) / 2) / 8))
  e <- tryCatch(gpustats:::check_matrix_size(n, n, environment()), error = identity)
  expect_s3_class(e, "gpustats_error_memory")
  expect_match(conditionMessage(e), "would need [0-9.]+ GB of memory; [0-9.]+ GB is available to this process")
  expect_null(gpustats:::check_matrix_size(100, 100, environment()))
})

test_that("memory checks count the process's own limit (ulimit -v), not only the host's free memory", {
  skip_on_os(c("windows", "mac"))
  skip_if(grepl("asan", Sys.getenv("LD_PRELOAD")), "AddressSanitizer reserves more address space than the limit")
  lib <- dirname(find.package("gpustats"))
  code <- sprintf(paste0(".libPaths(c('%s', .libPaths())); library(gpustats); ",
                         "e <- tryCatch(rstable(2^31, 1.5, 0), error = identity); ",
                         "cat(class(e)[1], conditionMessage(e))"), lib)
  rscript <- file.path(R.home("bin"), "Rscript")
  # 8 GB of address space: the CUDA libraries alone map several; the draw asks for 17 GB
  out <- system2("sh", c("-c", shQuote(sprintf("ulimit -v 8000000 && %s -e %s", shQuote(rscript), shQuote(code)))),
                 stdout = TRUE, stderr = TRUE)
  out <- paste(out, collapse = " ")
  expect_match(out, "gpustats_error_memory")
  expect_match(out, "GB is available to this process")
})

test_that("an interrupt inside the progress bar's update leaves no cli error behind", {
  skip_on_os("windows") # no SIGINT to send
  # the interrupt arrives while cli draws the bar for the first time; it used
  # to surface as "Error in a deferred on.exit() clause"
  r <- run_child(c(
    "suppressPackageStartupMessages(library(gpustats))",
    "options(cli.progress_show_after = 0)",
    "trace('cli_status', where = asNamespace('cli'), print = FALSE,",
    "      tracer = quote({ tools::pskill(Sys.getpid(), tools::SIGINT); x <- 0; for (i in 1:3e6) x <- x + 1 }))",
    "set.seed(1)",
    "locs <- matrix(runif(6000), ncol = 2)",
    "outcome <- tryCatch({ matern_cov(locs, range = 0.1, smoothness = 1.5, device = 'cpu'); 'finished' },",
    "                    interrupt = function(e) 'interrupt', error = function(e) conditionMessage(e))",
    "cat('outcome:', outcome, '\\n')",
    "cat('next call:', dim(matern_cov(locs[1:5, ], range = 0.1)), '\\n')"
  ))
  expect_identical(r$status, 0L)
  expect_match(r$output, "outcome: interrupt", fixed = TRUE)
  expect_no_match(r$output, "deferred", fixed = TRUE)
  expect_match(r$output, "next call: 5 5", fixed = TRUE)
})

test_that("progress bars print few lines where the output cannot be redrawn", {
  # a bar that cli redraws every 5 ms: one line per redraw in a log before
  r <- run_child(c(
    "Sys.setenv(CLI_TICK_TIME = '5')",
    "suppressPackageStartupMessages(library(gpustats))",
    "options(cli.progress_show_after = 0)",
    "work <- function() {",
    "  bar <- gpustats:::gs_progress_bar(1e7, 'progress_test', environment())",
    "  for (i in 1:199) { Sys.sleep(0.006); bar(i / 200) }",
    "}",
    "work()",
    "cat('finished\\n')"
  ))
  expect_identical(r$status, 0L)
  expect_match(r$output, "finished")
  bar_lines <- grep("progress_test", strsplit(r$output, "\n")[[1]], value = TRUE)
  expect_gte(length(bar_lines), 2L)
  expect_lte(length(bar_lines), 11L)
})

test_that("a progress bar of native work leaves the other bars of its frame open", {
  # cli closes a frame's current bar when the next starts: a fit's status
  # line and the bars of its evaluations share the caller's frame
  work <- function() {
    status <- gpustats:::fit_progress(TRUE, environment())
    status(1, -1, list(geom = c(range = 1), smoothness = 0.5, ratio = 0))
    for (k in 2:3) {
      bar <- gpustats:::gs_progress_bar(1e7, "evaluation", environment())
      bar(0.5)
      bar(1)
      status(k, -1, list(geom = c(range = 1), smoothness = 0.5, ratio = 0))
    }
    TRUE
  }
  expect_true(work())
  # as in gp_fit(approx = "vecchia"): n (m + 1)^2 >= 1e6 gives each
  # evaluation a bar beside the default status line (trace = TRUE)
  set.seed(3)
  locs <- matrix(runif(2 * 1100), ncol = 2)
  fit <- suppressWarnings(gp_fit(1 + rnorm(1100), locs, approx = "vecchia", m = 30, fixed = list(smoothness = 0.5),
                                 device = "cpu", control = list(iter.max = 3)))
  expect_s3_class(fit, "gp_fit")
})

test_that("a gpustats.gpus option that is not a whole-number id gets a clear error", {
  for (bad in list("a", 1.5, -1, NA_real_, 1e10)) {
    withr::local_options(gpustats.gpus = bad)
    expect_error(matern(0.5, 1, 1, device = "auto"), "gpustats.gpus", class = "gpustats_error_argument")
  }
  withr::local_options(gpustats.gpus = NULL)
  expect_equal(matern(0.5, 1, 1, 0.5, device = "auto"), exp(-0.5))
})
