# Run the gpustats testthat suite against the package installed in .lib (or in
# the library named by GPUSTATS_LIB), as `make test` does.
#
#   Rscript tools/run-tests.R [filter]
#
# filter: a regular expression matched against the test file names (as in
# testthat::test_dir()); also read from GPUSTATS_TEST_FILTER.
# The last line printed is the summary `N passed, N failed, N skipped`
# (failed counts failed expectations and errors); the exit status is 1 when any
# test failed or errored.

summary_line <- function(passed, failed, skipped) {
  cat(sprintf("\n%d passed, %d failed, %d skipped\n", passed, failed, skipped))
}

args <- commandArgs(trailingOnly = TRUE)
filter <- if (length(args) >= 1L) args[[1L]] else Sys.getenv("GPUSTATS_TEST_FILTER")
if (!nzchar(filter)) filter <- NULL

lib <- Sys.getenv("GPUSTATS_LIB", ".lib")
if (!file.exists(file.path(lib, "gpustats", "DESCRIPTION"))) {
  cat("gpustats is not installed in '", lib, "'; run `make test`, or install with\n",
      "  R CMD INSTALL --library=", lib, " .\n", sep = "")
  summary_line(0L, 1L, 0L)
  quit(status = 1L)
}
lib <- normalizePath(lib)
.libPaths(c(lib, .libPaths()))
if (!nzchar(Sys.getenv("NOT_CRAN"))) Sys.setenv(NOT_CRAN = "true")
options(testthat.progress.max_fails = 1e6, warn = 1)

suppressPackageStartupMessages(library(testthat))
suppressPackageStartupMessages(library(gpustats, lib.loc = lib))

ns <- asNamespace("gpustats")
gpu <- if (exists("gpu_available", envir = ns, inherits = FALSE)) {
  tryCatch(isTRUE(get("gpu_available", envir = ns)()), error = function(e) NA)
} else NA
cat(sprintf("gpustats %s (library %s); GPU available: %s; GPUSTATS_REQUIRE_GPU=%s\n",
            utils::packageVersion("gpustats", lib.loc = lib), lib,
            if (is.na(gpu)) "unknown" else gpu,
            Sys.getenv("GPUSTATS_REQUIRE_GPU", "")))

test_path <- file.path("tests", "testthat")
if (!dir.exists(test_path)) {
  cat("no tests found in ", test_path, "\n", sep = "")
  summary_line(0L, 1L, 0L)
  quit(status = 1L)
}

crashed <- NULL
results <- tryCatch(
  testthat::test_dir(test_path, filter = filter, package = "gpustats",
                     load_package = "installed",
                     reporter = ProgressReporter$new(show_praise = FALSE,
                                                    update_interval = 1e9),
                     stop_on_failure = FALSE, stop_on_warning = FALSE),
  error = function(e) {
    crashed <<- conditionMessage(e)
    NULL
  })

passed <- failed <- skipped <- warned <- 0L
for (test in results) {
  for (e in test$results) {
    if (inherits(e, "expectation_success")) {
      passed <- passed + 1L
    } else if (inherits(e, "expectation_failure") || inherits(e, "expectation_error")) {
      failed <- failed + 1L
    } else if (inherits(e, "expectation_skip")) {
      skipped <- skipped + 1L
    } else if (inherits(e, "expectation_warning")) {
      warned <- warned + 1L
    }
  }
}
if (!is.null(crashed)) {
  cat("\nThe test run stopped with an error:\n", crashed, "\n", sep = "")
  failed <- failed + 1L
}
if (warned > 0L) cat(sprintf("\n%d warning(s) in tests\n", warned))

summary_line(passed, failed, skipped)
quit(status = if (failed > 0L) 1L else 0L)
