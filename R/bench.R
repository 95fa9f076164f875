# Device-side benchmark hooks, used by inst/bench (not exported).

#' Time the Bessel kernel on device-resident random data
#'
#' nu uniform in (0, 20], x log-uniform in \\[1e-3, 140\\], log K; CUDA events,
#' median of `reps` runs after a warm-up.
#' @keywords internal
bench_bessel_k_device <- function(n, reps = 10L, op = "bessel_k_log") {
  id <- resolve_device("gpu", n, "map", environment())
  seconds <- gs_call(.Call(gs_r_bench_map, gs_code("map_op", op), as.double(n), as.integer(reps), id), environment())
  list(n = n, seconds = seconds, evals_per_second = n / seconds)
}

#' Time a stable op on device-resident random data
#'
#' alpha uniform in \\[0.5, 2\\], beta in \\[-1, 1\\], x uniform in
#' \\[-100, 100\\] (p uniform in (0, 1) for "stable_q"); both passes of the
#' element-wise map, CUDA events, median of `reps` runs after a warm-up.
#' @keywords internal
bench_stable_device <- function(n, op = c("stable_d", "stable_p", "stable_q", "stable_r"), reps = 3L) {
  op <- match.arg(op)
  id <- resolve_device("gpu", n, "map", environment())
  seconds <- gs_call(.Call(gs_r_bench_map, gs_code("map_op", op), as.double(n), as.integer(reps), id), environment())
  list(n = n, seconds = seconds, points_per_second = n / seconds)
}

#' Time Matérn covariance generation on the device
#'
#' n random locations in the unit square, range 0.1, the full n x n matrix
#' written to device memory; median of `reps` runs after a warm-up.
#' @keywords internal
bench_matern_cov_device <- function(n, smoothness, reps = 5L) {
  id <- resolve_device("gpu", n, "map", environment())
  seconds <- gs_call(.Call(gs_r_bench_matern_cov, as.double(n), as.double(smoothness), as.integer(reps), id),
                     environment())
  entries <- as.double(n)^2
  list(n = n, entries = entries, seconds = seconds, entries_per_second = entries / seconds)
}
