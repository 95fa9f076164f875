# Shared by the test files.

read_fixture <- function(name) {
  utils::read.csv(test_path("fixtures", name), colClasses = "numeric",
                  stringsAsFactors = FALSE, check.names = FALSE)
}

besselk_reference <- function() {
  ref <- utils::read.csv(test_path("fixtures", "besselk.csv"), stringsAsFactors = FALSE)
  ref
}

# GPU tests run where a GPU is present; with GPUSTATS_REQUIRE_GPU=1 (make
# gpu-check) a missing GPU is a failure, not a skip.
skip_without_gpu <- function() {
  if (gpu_available()) return(invisible())
  if (nzchar(Sys.getenv("GPUSTATS_REQUIRE_GPU"))) {
    testthat::fail("GPUSTATS_REQUIRE_GPU is set but no GPU is available")
  }
  testthat::skip("no GPU")
}

max_rel_err <- function(x, ref) max(abs(x / ref - 1))
