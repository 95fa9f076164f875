# GBEES measurement updates computed in the native code: a measurement
# function given as C expressions against the same function in R and against
# Bayes' rule written out, measurements of states as the linear special
# case, non-finite values of h, and input errors.

l63_args <- list(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5, times = 0.05,
                 threshold = 1e-6, device = "cpu")
l63_centers <- function(keys) keys * 0.5 + rep(c(-11.5, -10, 9.5), each = nrow(keys))

# The posterior of snapshot k + 1 against the prior of snapshot k times the
# likelihood of residuals r (one row per prior cell) under covariance S.
expect_bayes <- function(prior, post, r, S) {
  like <- exp(-0.5 * rowSums((r %*% solve(S)) * r))
  like[!is.finite(like)] <- 0
  bayes <- prior$prob * like
  at <- match(paste(post$keys[, 1], post$keys[, 2], post$keys[, 3]),
              paste(prior$keys[, 1], prior$keys[, 2], prior$keys[, 3]))
  expect_false(anyNA(at))
  expect_equal(post$prob, bayes[at] / sum(bayes[at]), tolerance = 1e-12)
}

expect_same_cells <- function(a, b, tol = 1e-12) {
  expect_equal(length(a$snapshots), length(b$snapshots))
  for (k in seq_along(a$snapshots)) {
    expect_identical(a$snapshots[[k]]$keys, b$snapshots[[k]]$keys)
    expect_lte(max(abs(a$snapshots[[k]]$prob - b$snapshots[[k]]$prob)), tol)
  }
}

# range and bearing, the range drifting with time
range_bearing <- c("sqrt(x1*x1 + x2*x2) + k * t", "atan2(x2, x1)")

test_that("a measurement function given as expressions updates as the same R function does, and as Bayes' rule", {
  skip_if_not(gpustats:::gbees_has_c_compiler(), "no C compiler")
  times <- c(0.05, 0.06)
  y <- rbind(c(16, -2.4), c(15, -2.5))
  S <- matrix(c(2, 0.3, 0.3, 0.05), 2)
  expr <- gbees_measurements(times, y, range_bearing, S, par = c(k = 3))
  in_r <- gbees_measurements(times, y, function(x, t) cbind(sqrt(x[, 1]^2 + x[, 2]^2) + 3 * t, atan2(x[, 2], x[, 1])),
                             S)
  args <- modifyList(l63_args, list(times = times))
  a <- do.call(gbees, c(args, list(measurements = expr)))
  b <- do.call(gbees, c(args, list(measurements = in_r)))
  expect_same_cells(a, b)
  for (k in 1:2) {
    x <- l63_centers(a$snapshots[[2 * k - 1]]$keys)
    r <- cbind(sqrt(x[, 1]^2 + x[, 2]^2) + 3 * times[k], atan2(x[, 2], x[, 1])) - rep(y[k, ], each = nrow(x))
    expect_bayes(a$snapshots[[2 * k - 1]], a$snapshots[[2 * k]], r, S)
  }
  expect_output(print(expr), "h2 = atan2\\(x2, x1\\)")
})

test_that("an expression linear in the states gives the measurement of those states", {
  skip_if_not(gpustats:::gbees_has_c_compiler(), "no C compiler")
  y <- c(-9, 7)
  S <- matrix(c(2, 0.6, 0.6, 1), 2)
  a <- do.call(gbees, c(l63_args, list(measurements = gbees_measurements(0.05, y, c("x1", "x3"), S))))
  b <- do.call(gbees, c(l63_args, list(measurements = gbees_measurements(0.05, y, c(1, 3), S))))
  expect_same_cells(a, b, tol = 1e-15)
  # the state names of the model, here those of gbees_model(), reach the expressions as they do its field
  expect_equal(gbees_measurements(0.05, y, c("u", "w"), S, state_names = c("u", "v", "w"))$states, 3L)
})

test_that("where h is not finite the likelihood is zero, as for an R function; nowhere finite is an error", {
  skip_if_not(gpustats:::gbees_has_c_compiler(), "no C compiler")
  # NaN for the cells with x1 < -9, 1/0 = Inf at x1 = -9: together more than half of the prior's mass
  expr <- gbees_measurements(0.05, 1, "sqrt(x1 + 9) + 0.1 / (x1 + 9)", 1)
  in_r <- gbees_measurements(0.05, 1, function(x) suppressWarnings(sqrt(x[, 1] + 9) + 0.1 / (x[, 1] + 9)), 1)
  a <- do.call(gbees, c(l63_args, list(measurements = expr)))
  expect_same_cells(a, do.call(gbees, c(l63_args, list(measurements = in_r))))
  prior <- a$snapshots[[1]]
  x1 <- l63_centers(prior$keys)[, 1]
  expect_gt(sum(prior$prob[x1 <= -9]), 0.5)
  r <- suppressWarnings(sqrt(x1 + 9) + 0.1 / (x1 + 9)) - 1
  expect_bayes(prior, a$snapshots[[2]], cbind(r), diag(1))
  post_x1 <- l63_centers(a$snapshots[[2]]$keys)[, 1]
  expect_equal(sum(a$snapshots[[2]]$prob[post_x1 <= -9]), 0)
  # where h is finite, y is too far for the likelihood not to underflow
  nowhere <- gbees_measurements(0.05, 1e6, "sqrt(x1 + 9) + 0.1 / (x1 + 9)", 1)
  expect_error(do.call(gbees, c(l63_args, list(measurements = nowhere))), "measurement is impossible",
               class = "gpustats_error_argument")
})

test_that("expressions that do not compile name the component; bad expressions and sizes are argument errors", {
  skip_if_not(gpustats:::gbees_has_c_compiler(), "no C compiler")
  meas <- gbees_measurements(0.05, c(16, -2.4), range_bearing, c(1, 0.1), par = c(k = 3))
  # the checks on the R side let no such expression through, so the source is spoilt by hand
  bad <- sub("atan2(x[1], x[0])", "atan2(x[1], undeclared_thing)", meas$source, fixed = TRUE)
  expect_false(identical(bad, meas$source))
  err <- tryCatch(gpustats:::gbees_compiled_program(bad, meas$expressions, 3L, NULL, kind = "measurement"),
                  error = identity)
  expect_s3_class(err, "gpustats_error_compile")
  expect_match(conditionMessage(err), "measurement's expressions do not compile", fixed = TRUE)
  expect_match(conditionMessage(err), "component 2: atan2(x2, x1)", fixed = TRUE)
  expect_no_match(conditionMessage(err), "component 1", fixed = TRUE)

  expect_error(gbees_measurements(0.05, c(1, 2), "x1", 1), "1 expression and `y` 2 columns",
               class = "gpustats_error_argument")
  expect_error(gbees_measurements(0.05, 1, c("x1", "x2"), 1), "2 expressions and `y` 1 column",
               class = "gpustats_error_argument")
  expect_error(gbees_measurements(0.05, 1, "foo(x1)", 1), "Component 1 of `h`.*'foo' is not an allowed function",
               class = "gpustats_error_argument")
  expect_error(gbees_measurements(0.05, 1, "x1 +", 1), "does not parse", class = "gpustats_error_argument")
  expect_error(gbees_measurements(0.05, 1, NA_character_, 1), "must not hold NA", class = "gpustats_error_argument")
  expect_error(gbees_measurements(0.05, 1, "k * x1", 1), "unknown name 'k'", class = "gpustats_error_argument")
  expect_error(gbees_measurements(0.05, 1, 1, 1, par = c(k = 1)), "for expressions", class = "gpustats_error_argument")
  expect_error(gbees_measurements(0.05, matrix(0, 1, 9), paste0("x", rep(1:3, 3)), 1), "at most 8 quantities",
               class = "gpustats_error_argument")
  expect_error(do.call(gbees, c(l63_args, list(measurements = gbees_measurements(0.05, 1, "x4", 1)))),
               "observes state 4; the model has 3", class = "gpustats_error_argument")
  named <- gbees_measurements(0.05, 1, "p", 1, state_names = c("p", "q", "r"))
  expect_error(do.call(gbees, c(l63_args, list(measurements = named))), "names the states",
               class = "gpustats_error_argument")
})
