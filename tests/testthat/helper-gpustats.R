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

# What an interruptible computation ended with: after its cleanup, an
# interrupted one signals R's own interrupt condition.
interrupt_outcome <- function(expr) tryCatch({ expr; "finished" }, interrupt = function(e) "interrupt")

# The tests that send this process SIGINT from a progress callback expect it
# at once; under valgrind (tools/sanitize.sh sets GPUSTATS_UNDER_VALGRIND) it
# comes when valgrind next schedules the process, after the call it was to
# interrupt has returned, and halts the run.
skip_if_signals_late <- function() {
  skip_if(nzchar(Sys.getenv("GPUSTATS_UNDER_VALGRIND")), "valgrind delivers a self-sent interrupt late")
}

max_rel_err <- function(x, ref) max(abs(x / ref - 1))

# A weakly correlated Gaussian process (range 0.03, smoothness 0.5) at n
# random points, its exact log-likelihood and the first-order bound on the
# error of a mixed-precision one: the tiles move S by at most accuracy
# ||S||_F, which moves the log-likelihood by at most
# 0.5 accuracy ||S||_F (||S^-1||_F + ||S^-1 y||^2).
mixed_loglik_case <- function(n, seed) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- gp_simulate(locs, 1, 0.03, 0.5, device = "cpu")
  S <- matern_cov(locs, range = 0.03, smoothness = 0.5, device = "cpu")
  Si <- chol2inv(chol(S))
  list(locs = locs, y = y, exact = gp_loglik(y, locs, 1, 0.03, 0.5, device = "cpu"),
       bound = function(accuracy) 0.5 * accuracy * norm(S, "F") * (norm(Si, "F") + sum((Si %*% y)^2)),
       mixed = function(accuracy, device) {
         gp_loglik(y, locs, 1, 0.03, 0.5, precision = "mixed", accuracy = accuracy, device = device)
       })
}

# Stable probabilities (both tails, relative) and log densities (relative, or
# absolute below 1) on the GPU within tol of the CPU's.
expect_stable_gpu_equal_cpu <- function(x, alpha, beta, tol) {
  for (lt in c(TRUE, FALSE)) {
    g <- pstable(x, alpha, beta, lower.tail = lt, device = "gpu")
    c <- pstable(x, alpha, beta, lower.tail = lt, device = "cpu")
    testthat::expect_lt(max(abs(g / c - 1)[c > 1e-300]), tol)
  }
  g <- dstable(x, alpha, beta, log = TRUE, device = "gpu")
  c <- dstable(x, alpha, beta, log = TRUE, device = "cpu")
  testthat::expect_lt(max(abs(g - c) / pmax(1, abs(c))), tol)
}

# Each field of `object` in the validator's field rules `rules`, removed or
# set to `wrong` (a value of the wrong type for every field), makes the
# methods (functions of the object, taken in turn: all call the same
# validator, and expect_empty_refused() tries each) stop with an error of
# class gpustats_error_argument that names the field. The fields in
# `optional` may be absent (NULL), so only their wrong type is tried.
expect_fields_validated <- function(object, rules, methods, optional = character(), wrong = list(1)) {
  turn <- 0L
  for (name in names(rules)) {
    for (value in c(if (!name %in% optional) list(NULL), list(wrong))) {
      changed <- object
      changed[name] <- list(value)
      turn <- turn %% length(methods) + 1L
      testthat::expect_error(methods[[turn]](changed), paste0("field ", name, " must be"),
                             class = "gpustats_error_argument",
                             info = paste(names(methods)[turn], name, if (is.null(value)) "removed" else "of the wrong type"))
    }
  }
}

# An empty object of class `cls` is refused by each of `methods` as not a
# valid object of its class.
expect_empty_refused <- function(cls, methods) {
  empty <- structure(list(), class = cls)
  for (m in names(methods)) {
    testthat::expect_error(methods[[m]](empty), paste0("not a valid <", cls[[1L]], ">"),
                           class = "gpustats_error_argument", info = m)
  }
}
