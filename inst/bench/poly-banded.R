# banded_solve() against the solvers an R user has for the same systems, on
# the CPU, same data, same run: Matrix's sparse LU of the matrix built from
# the diagonals (bandSparse, then solve; and solve alone on the matrix
# built once, which after its first call keeps its LU factorization in the
# matrix, so that this times the two triangular solves alone, where
# banded_solve factors the matrix at every call) and, at small n, base R's
# solve() on the dense matrix (built once). Each time is end to end from R,
# the median of `reps` runs of as many calls as take about 0.1 s. Then the accuracy on ill-conditioned and
# badly scaled systems whose exact solution is known: integer matrices and
# solutions, so that b = A x is exact; rows scaled by powers of two (exact)
# up to 2^+-600.
#
#   Rscript inst/bench/poly-banded.R [--banded_n=100,10000,1000000] [--banded_rhs=1,16]
#     [--banded_dense_max=2000] [--reps=5]
#
# Columns: the matrix (tridiagonal, or bidiagonal with lower = 0), n, the
# right-hand sides, seconds per call of each solver, and the ratio of each
# peer's time to banded_solve's (above 1: banded_solve is faster).

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

# Seconds per call of f: the median of `reps` runs of `inner` calls.
bench_banded_time <- function(f, reps, inner) {
  f()
  t <- vapply(seq_len(reps), function(i) {
    system.time(for (j in seq_len(inner)) f(), gcFirst = FALSE)[["elapsed"]]
  }, 0)
  stats::median(t) / inner
}

# Calls per run: about 0.1 s of a call's time, measured once.
bench_banded_inner <- function(f) {
  t <- system.time(for (j in 1:3) f())[["elapsed"]] / 3
  max(1L, as.integer(0.1 / max(t, 1e-6)))
}

bench_banded_system <- function(n, bandwidth) {
  list(lower = if (bandwidth == "bidiagonal") 0 else stats::runif(n - 1, -1, 1),
       diag = stats::runif(n, 2.5, 4), upper = stats::runif(n - 1, -1, 1))
}

# The sparse matrix of the diagonals, as a user of Matrix would build it.
bench_banded_sparse <- function(s, n) {
  lower <- if (length(s$lower) == 1L) rep(s$lower, n - 1) else s$lower
  Matrix::bandSparse(n, k = -1:1, diagonals = list(lower, s$diag, s$upper))
}

bench_banded_speed <- function(sizes, rhs, dense_max, reps) {
  have_matrix <- requireNamespace("Matrix", quietly = TRUE)
  if (!have_matrix) message("note: Matrix is not installed; its columns are empty")
  rows <- list()
  for (bandwidth in c("tridiagonal", "bidiagonal")) for (n in sizes) for (k in rhs) {
    s <- bench_banded_system(n, bandwidth)
    b <- matrix(stats::rnorm(n * k), n)
    ours <- function() banded_solve(s$lower, s$diag, s$upper, b, device = "cpu")
    inner <- bench_banded_inner(ours)
    row <- data.frame(matrix = bandwidth, n = n, rhs = k, banded_solve = bench_banded_time(ours, reps, inner),
                      matrix_built = NA_real_, matrix_solve = NA_real_, dense_solve = NA_real_)
    if (have_matrix) {
      built <- function() Matrix::solve(bench_banded_sparse(s, n), b)
      A <- bench_banded_sparse(s, n)
      row$matrix_built <- bench_banded_time(built, reps, bench_banded_inner(built))
      prebuilt <- function() Matrix::solve(A, b)
      row$matrix_solve <- bench_banded_time(prebuilt, reps, bench_banded_inner(prebuilt))
      if (n <= dense_max) {
        D <- as.matrix(A)
        dense <- function() solve(D, b)
        row$dense_solve <- bench_banded_time(dense, reps, bench_banded_inner(dense))
      }
    }
    message(sprintf("%s n = %g, %d rhs: banded_solve %s, Matrix (built + solve) %s, Matrix solve %s, dense solve %s",
                    bandwidth, n, k, fmt_sec(row$banded_solve), fmt_sec(row$matrix_built),
                    fmt_sec(row$matrix_solve), fmt_sec(row$dense_solve)))
    rows[[length(rows) + 1L]] <- row
  }
  do.call(rbind, rows)
}

bench_banded_speed_print <- function(d) {
  r <- function(peer) fmt_ratio(peer / d$banded_solve)
  f <- data.frame(matrix = d$matrix, n = d$n, rhs = d$rhs, `banded_solve s` = fmt_sec(d$banded_solve),
                  `Matrix built+solve s` = fmt_sec(d$matrix_built), `x` = r(d$matrix_built),
                  `Matrix solve, LU kept s` = fmt_sec(d$matrix_solve), `x ` = r(d$matrix_solve),
                  `dense solve s` = fmt_sec(d$dense_solve), `x  ` = r(d$dense_solve), check.names = FALSE)
  cat(sprintf("\nbanded_solve() against Matrix and base R, CPU (%d threads): seconds per call; x = peer / banded_solve\n",
              bench_cpu_threads()))
  print(f, row.names = FALSE, right = TRUE)
}

# Systems with an exact solution x (integers): the 1-D Laplacian
# (2, -1, -1; condition number about 4 n^2 / pi^2), one that needs pivoting
# (small diagonal, large off-diagonals), and the Laplacian with its rows
# scaled by 2^e, e up to +-600 (exact, b scaled with them), whose
# elimination without row scaling under- or overflows.
bench_banded_accuracy_cases <- function(n) {
  x <- matrix(stats::runif(n * 4, -100, 100), n)
  x <- round(x)
  lap <- list(lower = rep(-1, n - 1), diag = rep(2, n), upper = rep(-1, n - 1))
  piv <- list(lower = round(stats::runif(n - 1, 5, 20)), diag = round(stats::runif(n, -1, 1)),
              upper = round(stats::runif(n - 1, 5, 20)))
  e <- round(stats::runif(n, -600, 600))
  scaled <- list(lower = 2^e[-1] * lap$lower, diag = 2^e * lap$diag, upper = 2^e[-n] * lap$upper)
  list(list(name = "Laplacian", s = lap, x = x, rowscale = rep(1, n)),
       list(name = "needs pivoting", s = piv, x = x, rowscale = rep(1, n)),
       list(name = "Laplacian, rows scaled 2^+-600", s = scaled, x = x, rowscale = 2^e))
}

# A x for the diagonals s, exact where the entries and x are small integers.
bench_banded_apply <- function(s, x) {
  n <- nrow(x)
  y <- s$diag * x
  y[-n, ] <- y[-n, ] + s$upper * x[-1, , drop = FALSE]
  y[-1, ] <- y[-1, ] + s$lower * x[-n, , drop = FALSE]
  y
}

bench_banded_accuracy <- function(n) {
  have_matrix <- requireNamespace("Matrix", quietly = TRUE)
  rows <- lapply(bench_banded_accuracy_cases(n), function(case) {
    b <- bench_banded_apply(case$s, case$x)
    # the backward error in the unscaled rows (the row scales are exact)
    norm_a <- max(bench_banded_apply(lapply(case$s, abs), matrix(1, n, 1)) / case$rowscale)
    backward <- function(x) {
      if (is.null(x) || any(!is.finite(x))) return(NA_real_)
      r <- (bench_banded_apply(case$s, x) - b) / case$rowscale
      max(abs(r)) / (norm_a * max(abs(x)) + max(abs(b / case$rowscale)))
    }
    forward <- function(x) if (is.null(x) || any(!is.finite(x))) NA_real_ else max(abs(x - case$x)) / max(abs(case$x))
    ours <- tryCatch(banded_solve(case$s$lower, case$s$diag, case$s$upper, b, device = "cpu"),
                     error = function(e) NULL)
    peer <- if (have_matrix) {
      tryCatch(as.matrix(Matrix::solve(bench_banded_sparse(case$s, n), b)), error = function(e) NULL)
    }
    data.frame(system = case$name, n = n, banded_forward = forward(ours), banded_backward = backward(ours),
               matrix_forward = forward(peer), matrix_backward = backward(peer))
  })
  do.call(rbind, rows)
}

bench_banded_accuracy_print <- function(d) {
  f <- data.frame(system = d$system, n = d$n, `banded_solve forward` = fmt_g(d$banded_forward, 2),
                  `backward` = fmt_g(d$banded_backward, 2), `Matrix forward` = fmt_g(d$matrix_forward, 2),
                  `backward ` = fmt_g(d$matrix_backward, 2), check.names = FALSE)
  cat("\nAccuracy against the exact solution (4 right-hand sides): forward = max |x - x*| / max |x*|,\n",
      "backward = max |b - A x| / (||A|| max |x| + max |b|), in the unscaled rows\n", sep = "")
  print(f, row.names = FALSE, right = TRUE)
}

if (sys.nframe() == 0L) {
  set.seed(1)
  reps <- bench_opt("reps", 5, 3)
  speed <- bench_banded_speed(sizes = bench_opt("banded_n", c(100, 1e4, 1e6), c(100, 1e4)),
                              rhs = bench_opt("banded_rhs", c(1, 16), 1),
                              dense_max = bench_opt("banded_dense_max", 2000), reps = reps)
  bench_banded_speed_print(speed)
  acc <- do.call(rbind, lapply(c(1000, 1e5), bench_banded_accuracy))
  bench_banded_accuracy_print(acc)
}
