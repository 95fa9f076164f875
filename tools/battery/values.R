# The bad values of the battery, by the role an argument plays.
#
# Each role is a table of values, written as R code evaluated in the case's
# process (after its setup), with two flags:
#   invalid  the value is outside the argument's domain, so a result without
#            a warning is wrong: the call must give an error, or NaN/NA with
#            a warning;
#   na       the value holds NA or NaN, so NA/NaN in the result needs no
#            warning (R's own functions propagate missing values silently);
#   huge     the case asks for more memory or time than any machine has
#            (skipped by --no-huge, e.g. under AddressSanitizer).
# The label names the value in case ids, so it must be unique within a role.

bv <- function(code, invalid = FALSE, na = FALSE, huge = FALSE, label = code) {
  data.frame(label = label, code = code, invalid = invalid, na = na, huge = huge, stringsAsFactors = FALSE)
}

values_table <- function(...) do.call(rbind, list(...))

# Wrong types: never valid where a number, a matrix or a flag is expected.
wrong_types <- function(null_ok = FALSE) {
  values_table(
    bv("'a'", TRUE, label = "character"), bv("list(1)", TRUE, label = "list"),
    bv("factor(1)", TRUE, label = "factor"), bv("1+0i", TRUE, label = "complex"),
    bv("data.frame(v = 1)", TRUE, label = "data.frame"), bv("NULL", !null_ok)
  )
}

# Missing and non-finite numbers.
missing_values <- function(inf_invalid = FALSE, neg_inf_invalid = TRUE) {
  values_table(
    bv("NA", na = TRUE), bv("NaN", na = TRUE),
    bv("Inf", inf_invalid), bv("-Inf", neg_inf_invalid)
  )
}

# Vectorised numeric arguments (recycled, NaN with a warning where invalid).
role_vec_nonneg <- function() {
  values_table(
    missing_values(), bv("-1", TRUE), bv("0"), bv("numeric(0)"), bv("5e-324"), bv("1e-310"),
    bv("1e308"), bv(".Machine$double.xmax", label = "double.xmax"),
    bv("c(1, NA, -1)", TRUE, TRUE), bv("-0"), wrong_types()
  )
}

role_vec_real <- function() {
  values_table(
    missing_values(neg_inf_invalid = FALSE), bv("0"), bv("-1e308"), bv("1e308"), bv("5e-324"),
    bv("numeric(0)"), bv("c(-1, NA, 1)", na = TRUE), wrong_types()
  )
}

role_vec_pos <- function() {
  values_table(
    missing_values(), bv("-1", TRUE), bv("0", TRUE), bv("5e-324"), bv("1e-308"), bv("1e308"),
    bv("numeric(0)"), wrong_types()
  )
}

role_vec_alpha <- function() {
  values_table(
    missing_values(inf_invalid = TRUE), bv("0", TRUE), bv("-1", TRUE), bv("2.5", TRUE),
    bv("2 + 1e-15", TRUE), bv("1e-308"), bv("0.01"), bv("1"), bv("1 + 1e-12"), bv("2"),
    bv("numeric(0)"), wrong_types()
  )
}

role_vec_beta <- function() {
  values_table(
    missing_values(inf_invalid = TRUE), bv("1.5", TRUE), bv("-1.5", TRUE), bv("1 + 1e-15", TRUE),
    bv("1"), bv("-1"), bv("numeric(0)"), wrong_types()
  )
}

role_vec_prob <- function() {
  values_table(
    missing_values(inf_invalid = TRUE), bv("-0.1", TRUE), bv("1.1", TRUE), bv("0"), bv("1"),
    bv("1e-300"), bv("1e-50"), bv("5e-324"), bv("1 - 1e-16"), bv("numeric(0)"), wrong_types()
  )
}

role_flag <- function() {
  values_table(
    bv("NA", TRUE), bv("'TRUE'", TRUE), bv("c(TRUE, FALSE)", TRUE), bv("1", TRUE), bv("NULL", TRUE),
    bv("logical(0)", TRUE), bv("list(TRUE)", TRUE)
  )
}

# A string chosen by match.arg(): NULL picks the default.
role_choice <- function() {
  values_table(
    bv("'bogus'", TRUE), bv("NA_character_", TRUE), bv("character(0)", TRUE), bv("1", TRUE),
    bv("c('bogus', 'other')", TRUE), bv("''", TRUE), bv("NULL")
  )
}

# device = "gpu" is an error here only where no GPU is present.
role_device <- function() {
  values_table(
    bv("'gpu'"), bv("'GPU'", TRUE), bv("'bogus'", TRUE), bv("NA", TRUE), bv("1", TRUE),
    bv("c('cpu', 'gpu')", TRUE), bv("NULL", TRUE), bv("character(0)", TRUE)
  )
}

role_pm <- function() {
  values_table(
    bv("NA", TRUE), bv("2"), bv("-1", TRUE), bv("0.5", TRUE), bv("'0'", TRUE), bv("c(0, 1)", TRUE),
    bv("NULL", TRUE), bv("Inf", TRUE), bv("numeric(0)", TRUE)
  )
}

# rstable's n: a count, zero allowed, length > 1 means its length.
role_count <- function() {
  values_table(
    bv("NA", TRUE), bv("NaN", TRUE), bv("-1", TRUE), bv("1.5", TRUE), bv("Inf", TRUE), bv("0"),
    bv("c(1, 2, 3)"), bv("TRUE"), bv("'5'", TRUE), bv("list(5)", TRUE), bv("factor(5)", TRUE),
    bv("5+0i", TRUE), bv("NULL", TRUE), bv("numeric(0)", TRUE),
    bv("2^31"), bv(".Machine$integer.max", label = "integer.max"),
    bv("1e12", TRUE, huge = TRUE), bv("2^53", TRUE, huge = TRUE), bv("2^64", TRUE, huge = TRUE),
    bv("1e300", TRUE, huge = TRUE)
  )
}

# A positive whole number (nsim, tile, n of gbees_mc, prune_every, ...).
role_count_pos <- function() {
  values_table(
    bv("NA", TRUE), bv("NaN", TRUE), bv("-1", TRUE), bv("0", TRUE), bv("1.5", TRUE), bv("Inf", TRUE),
    bv("'5'", TRUE), bv("NULL", TRUE), bv("numeric(0)", TRUE), bv("c(2, 3)", TRUE), bv("1"),
    bv("2^31", huge = TRUE), bv(".Machine$integer.max", huge = TRUE, label = "integer.max"),
    bv("1e300", huge = TRUE)
  )
}

# Single numbers.
scalar_extremes <- function() values_table(bv("1e-300"), bv("5e-324"), bv("1e300"))

role_scalar_pos <- function() {
  values_table(
    bv("NA", TRUE), bv("NaN", TRUE), bv("Inf", TRUE), bv("-Inf", TRUE), bv("-1", TRUE), bv("0", TRUE),
    scalar_extremes(), bv("numeric(0)", TRUE), bv("c(1, 2)", TRUE), wrong_types()
  )
}

role_scalar_nonneg <- function() {
  values_table(
    bv("NA", TRUE), bv("NaN", TRUE), bv("Inf", TRUE), bv("-Inf", TRUE), bv("-1", TRUE), bv("0"),
    scalar_extremes(), bv("numeric(0)", TRUE), bv("c(1, 2)", TRUE), wrong_types()
  )
}

role_scalar_real <- function() {
  values_table(
    bv("NA", TRUE), bv("NaN", TRUE), bv("Inf", TRUE), bv("-Inf", TRUE), bv("1e300"), bv("-1e300"),
    bv("numeric(0)", TRUE), bv("c(1, 2)", TRUE), wrong_types()
  )
}

role_accuracy <- function() {
  values_table(
    bv("NA", TRUE), bv("0", TRUE), bv("-1", TRUE), bv("1e-16", TRUE), bv("0.2", TRUE), bv("Inf", TRUE),
    bv("'a'", TRUE), bv("NULL", TRUE), bv("c(1e-8, 1e-6)", TRUE), bv("0.1")
  )
}

# Locations (setup: L, 20 x 2). `gp`: for Gaussian-process functions, whose
# covariance must be positive definite (duplicates with no nugget are not)
# and whose y has 20 values. `second`: the second set of a cross-covariance
# (NULL allowed; 1e5 rows against 20 is a matrix that fits).
role_locs <- function(gp = FALSE, second = FALSE) {
  values_table(
    bv("local({L[3, 1] <- NA; L})", TRUE, TRUE, label = "NA coordinate"),
    bv("local({L[3, 1] <- Inf; L})", TRUE, label = "Inf coordinate"),
    bv("L[0, , drop = FALSE]", label = "0 rows"),
    bv("L[, 0, drop = FALSE]", TRUE, label = "0 columns"),
    bv("L[1, , drop = FALSE]", label = "1 row"),
    bv("rbind(L[1:19, ], L[1, ])", gp, label = "duplicated row"),
    bv("matrix(0.5, 20, 2)", gp, label = "all rows equal"),
    bv("L[, 1]", label = "vector"), bv("data.frame(L)", label = "data.frame"),
    bv("data.frame(a = L[, 1], b = letters[1:20])", TRUE, label = "data.frame with text"),
    bv("matrix(letters[1:20], 10)", TRUE, label = "character matrix"),
    bv("as.list(L[, 1])", TRUE, label = "list"),
    bv("L + 0i", TRUE, label = "complex matrix"), bv("array(L, c(10, 2, 2))", TRUE, label = "3-d array"),
    bv("NULL", !second), bv("numeric(0)", gp),
    bv("L * 1e300", label = "coordinates 1e300"), bv("L * 1e-300", label = "coordinates 1e-300"),
    bv("matrix(1:40, 20)", label = "integer matrix"),
    bv("matrix(runif(2e5), ncol = 2)", !second, huge = !second, label = "1e5 rows")
  )
}

# Observations at the 20 locations L (setup: y). `fit`: for a fitter, which
# needs data that varies.
role_obs <- function(fit = FALSE) {
  values_table(
    bv("local({y[2] <- NA; y})", TRUE, TRUE, label = "NA value"),
    bv("local({y[2] <- Inf; y})", TRUE, label = "Inf value"),
    bv("y[-1]", TRUE, label = "19 values"), bv("numeric(0)", TRUE), bv("rep(2, 20)", fit, label = "constant"),
    bv("cbind(y, y)", fit, label = "two columns"), bv("y * 1e300", label = "scale 1e300"),
    bv("y * 1e-300", label = "scale 1e-300"), bv("as.integer(y > 0)", label = "integer"),
    wrong_types()
  )
}

# Samples for stable_fit (setup: s, 200 draws).
role_sample <- function() {
  values_table(
    bv("local({s[3] <- NA; s})", TRUE, TRUE, label = "NA value"),
    bv("local({s[3] <- Inf; s})", TRUE, label = "Inf value"),
    bv("rep(1, 100)", TRUE, label = "constant"), bv("s[1]", TRUE, label = "n = 1"),
    bv("s[1:2]", TRUE, label = "n = 2"), bv("s[1:3]", TRUE, label = "n = 3"),
    bv("s[1:9]", TRUE, label = "n = 9"), bv("s[1:10]", label = "n = 10"),
    bv("c(rep(0, 990), 1:10)", label = "990 ties"),
    bv("c(rep(0, 500), rep(1, 500), 2:4)", label = "two atoms"),
    bv("s * 1e200", label = "scale 1e200"), bv("s * 1e-200", label = "scale 1e-200"),
    bv("list(s, s)", label = "list of samples"), bv("list(s, 'a')", TRUE, label = "list with text"),
    bv("list()", TRUE, label = "empty list"), bv("matrix(s, ncol = 2)", label = "matrix"),
    bv("matrix(numeric(0), 0, 2)", TRUE, label = "0-row matrix"),
    bv("numeric(0)", TRUE), bv("factor(s)", TRUE, label = "factor"), bv("s + 0i", TRUE, label = "complex"),
    bv("as.character(s)", TRUE, label = "character"), bv("NULL", TRUE)
  )
}

# Parameter lists of gp_fit (start, lower, upper, fixed).
role_parlist <- function() {
  values_table(
    bv("list(range = -1)", TRUE), bv("list(range = 0)", TRUE), bv("list(range = NA)", TRUE),
    bv("list(range = Inf)", TRUE), bv("list(range = 1e-300)"), bv("list(bogus = 1)", TRUE),
    bv("list(range = 'a')", TRUE), bv("list(range = c(0.1, 0.2))", TRUE), bv("list(smoothness = -1)", TRUE),
    bv("list(nugget = -1)", TRUE), bv("list(sigma2 = 0)", TRUE), bv("c(range = 0.1)"),
    bv("'a'", TRUE), bv("list(1)", TRUE), bv("list()")
  )
}

role_control <- function() {
  values_table(
    bv("list(trace = FALSE, iter.max = NA)", TRUE), bv("list(trace = FALSE, iter.max = -1)", TRUE),
    bv("list(trace = FALSE, iter.max = 0)", TRUE), bv("list(trace = FALSE, iter.max = 1)"),
    bv("list(trace = FALSE, rel.tol = NA)", TRUE), bv("list(trace = FALSE, rel.tol = -1)", TRUE),
    bv("list(trace = FALSE, hessian = NA)", TRUE), bv("list(trace = FALSE, bogus = 1)", TRUE),
    bv("list(trace = NA)", TRUE), bv("'a'", TRUE), bv("NULL"),
    bv("list(trace = FALSE, loglik.tol = NA)", TRUE), bv("list(trace = FALSE, loglik.tol = -1)", TRUE),
    bv("list(trace = FALSE, loglik.tol = 1)", TRUE), bv("list(trace = FALSE, loglik.tol = 0)"),
    bv("list(trace = FALSE, loglik.tol = c(1e-9, 1e-8))", TRUE), bv("list(trace = FALSE, loglik.tol = 'a')", TRUE),
    bv("list(trace = FALSE, par.tol = NA)", TRUE), bv("list(trace = FALSE, par.tol = Inf)", TRUE),
    bv("list(trace = FALSE, par.tol = 0)"), bv("list(trace = FALSE, par.tol = 1e-300)"),
    bv("list(trace = FALSE, loglik.tol = 0, par.tol = 0)", label = "tolerances 0"),
    bv("list(trace = FALSE, rel.tol = 1e-300)", TRUE), bv("list(trace = FALSE, rel.tol = 1e-16)", TRUE),
    bv("list(trace = FALSE, rel.tol = 1e-15)"),
    bv("list(trace = FALSE, gradient = 'analytic')"), bv("list(trace = FALSE, gradient = 'bogus')", TRUE),
    bv("list(trace = FALSE, gradient = NA)", TRUE), bv("list(trace = FALSE, gradient = c('analytic', 'differences'))", TRUE),
    bv("list(trace = FALSE, gradient = TRUE)", TRUE),
    bv("list(trace = FALSE, gradient = 'analytic', hessian = FALSE)", label = "analytic gradient, no hessian")
  )
}

# Matrices for tile_chol (setup: A, 20 x 20 positive definite; L).
role_spd <- function() {
  values_table(
    bv("diag(c(1, -1))", TRUE, label = "indefinite"), bv("matrix(c(1, 2, 0, 1), 2)", TRUE, label = "not symmetric"),
    bv("local({A[2, 3] <- A[3, 2] <- NA; A})", TRUE, TRUE, label = "NA entry"),
    bv("local({A[2, 3] <- A[3, 2] <- Inf; A})", TRUE, label = "Inf entry"),
    bv("matrix(numeric(0), 0, 0)", TRUE, label = "0 x 0"), bv("matrix(4)", label = "1 x 1"),
    bv("matrix(-4)", TRUE, label = "1 x 1 negative"), bv("A[, 1:3]", TRUE, label = "not square"),
    bv("matrix('a', 2, 2)", TRUE, label = "character matrix"), bv("as.data.frame(A)", TRUE, label = "data.frame"),
    bv("matrix(1, 20, 20)", TRUE, label = "singular"), bv("A * 1e300", label = "scale 1e300"),
    bv("A * 1e-320", label = "scale 1e-320"), bv("diag(20)", label = "identity"),
    bv("matern_spec(rbind(L, L))", TRUE, label = "spec with duplicated locations"),
    bv("matern_spec(L, range = 1e-300)", label = "spec range 1e-300"),
    bv("matern_spec(L, range = 1e300, smoothness = 5)", TRUE, label = "spec numerically singular"),
    bv("matern_spec(matrix(runif(2e6), ncol = 2))", TRUE, huge = TRUE, label = "spec 1e6 x 1e6"),
    bv("list(1)", TRUE, label = "list"), bv("NULL", TRUE), bv("1", TRUE, label = "number")
  )
}

role_gpus <- function() {
  values_table(bv("-1"), bv("5"), bv("NA"), bv("c(0, 0)"), bv("1.5"), bv("'a'"), bv("NULL"), bv("numeric(0)"))
}

# GBEES: models, initial states and covariances of the 3-state Lorenz '63 base.
role_model <- function() {
  values_table(
    bv("'lorenz63'", TRUE, label = "a string"), bv("NULL", TRUE), bv("list()", TRUE, label = "a list"),
    bv("lorenz96()", TRUE, label = "6 states"),
    bv("gbees_model(function(x) x * 0 + 1e300, 3)", label = "field 1e300"),
    bv("gbees_model(function(x) x * NaN, 3)", TRUE, label = "field NaN"),
    bv("gbees_model(function(x) x[, 1], 3)", TRUE, label = "field of wrong shape"),
    bv("gbees_model(function(x) stop('boom'), 3)", TRUE, label = "field that fails"),
    bv("gbees_model(c('x2', 'x3', '1e300'), 3)", label = "expressions 1e300"),
    bv("gbees_model(c('x2', 'x3', 'x1 / 0'), 3)", label = "expressions x1 / 0"),
    bv("gbees_model(function(x) -x, 3)", label = "field -x")
  )
}

role_x0 <- function() {
  values_table(
    bv("c(NA, -10, 9.5)", TRUE, TRUE, label = "NA"), bv("c(Inf, -10, 9.5)", TRUE, label = "Inf"),
    bv("c(1e300, 0, 0)"), bv("c(1, 2)", TRUE), bv("'a'", TRUE), bv("NULL", TRUE), bv("numeric(0)", TRUE),
    bv("list(1, 2, 3)", TRUE)
  )
}

role_gcov <- function() {
  values_table(
    bv("diag(c(1, 1, -1))", TRUE, label = "indefinite"), bv("matrix(1, 3, 3)", TRUE, label = "singular"),
    bv("local({C <- diag(3); C[1, 2] <- C[2, 1] <- NA; C})", TRUE, TRUE, label = "NA entry"),
    bv("diag(Inf, 3)", TRUE, label = "Inf"), bv("0", TRUE), bv("-1", TRUE), bv("1e300"), bv("1e-300"),
    bv("diag(2)", TRUE, label = "2 x 2"), bv("'a'", TRUE), bv("NULL", TRUE), bv("c(1, 2, 3)"),
    bv("c(1, 2)", TRUE), bv("matrix(c(1, 0.5, 0, 0, 1, 0, 0, 0, 1), 3)", TRUE, label = "not symmetric")
  )
}

# Output times of gbees/gbees_mc (t0 = 0).
role_gtimes <- function() {
  values_table(
    bv("NA", TRUE), bv("NaN", TRUE), bv("Inf", TRUE), bv("-Inf", TRUE), bv("1e300"), bv("c(0.1, 0.05)", TRUE),
    bv("-1", TRUE), bv("numeric(0)", TRUE), bv("'a'", TRUE), bv("NULL", TRUE), bv("c(0.05, 0.05)", TRUE),
    bv("0")
  )
}

role_measurements <- function() {
  values_table(
    bv("gbees_measurements(0.05, -8, 3, 1)", label = "valid"),
    bv("gbees_measurements(0.05, 1e300, 3, 1)", TRUE, label = "impossible observation"),
    bv("gbees_measurements(0.05, -8, 4, 1)", TRUE, label = "state 4 of 3"),
    bv("gbees_measurements(0.05, -8, function(x, t) stop('h'), 1)", TRUE, label = "h fails"),
    bv("gbees_measurements(0.05, -8, function(x, t) x, 1)", TRUE, label = "h of wrong shape"),
    bv("gbees_measurements(1e300, -8, 3, 1)", label = "time 1e300"),
    bv("list()", TRUE, label = "a list"), bv("'a'", TRUE)
  )
}

role_mtime <- function() {
  values_table(
    bv("NA", TRUE), bv("Inf", TRUE), bv("numeric(0)", TRUE), bv("c(2, 1)", TRUE), bv("c(1, 1)", TRUE),
    bv("'a'", TRUE), bv("NULL", TRUE)
  )
}

role_my <- function() {
  values_table(bv("NA", TRUE), bv("Inf", TRUE), bv("'a'", TRUE), bv("NULL", TRUE), bv("c(1, 2)", TRUE),
               bv("numeric(0)", TRUE), bv("1e300"))
}

role_hfun <- function() {
  values_table(
    bv("0", TRUE), bv("4"), bv("NA", TRUE), bv("'a'", TRUE), bv("NULL", TRUE), bv("c(1, 2)", TRUE),
    bv("1.5", TRUE), bv("-1", TRUE), bv("list(1)", TRUE), bv("function(x, t) stop('h')")
  )
}

role_mcov <- function() {
  values_table(
    bv("NA", TRUE), bv("Inf", TRUE), bv("-1", TRUE), bv("0", TRUE), bv("matrix(1, 2, 2)", TRUE),
    bv("'a'", TRUE), bv("NULL", TRUE), bv("1e300"), bv("1e-300"), bv("c(1, 2)", TRUE)
  )
}

role_field <- function() {
  values_table(
    bv("'x2 +'", TRUE, label = "syntax error"), bv("'system(\"true\")'", TRUE, label = "system call"),
    bv("c('x1', 'x2')", TRUE, label = "2 expressions for 3 states"), bv("'foo(x1)'", TRUE, label = "unknown function"),
    bv("NA_character_", TRUE), bv("NULL", TRUE), bv("1", TRUE), bv("function(x) x", label = "function"),
    bv("function() 1", TRUE, label = "function of nothing"), bv("c('x2', 'x3', 'x4')", TRUE, label = "unknown state"),
    bv("c('x2', 'x3', 'q')", TRUE, label = "unknown symbol")
  )
}

role_state_names <- function() {
  values_table(bv("c('a', 'a', 'b')", TRUE), bv("NA", TRUE), bv("character(0)", TRUE), bv("1:3"),
               bv("c('a', 'b')", TRUE), bv("c('x', 'y', 't')"), bv("c('a', 'b', '')", TRUE))
}

role_par <- function() {
  values_table(bv("c(a = NA)", TRUE), bv("1", TRUE), bv("'a'", TRUE), bv("list(a = 1)"), bv("c(a = Inf)", TRUE),
               bv("c(x1 = 1)", TRUE), bv("c(t = 1)", TRUE))
}

# A label: one string.
role_name <- function() {
  values_table(bv("NA", TRUE), bv("1", TRUE), bv("NULL", TRUE), bv("character(0)", TRUE), bv("c('a', 'b')", TRUE))
}

# A gbees result where one is expected (setup: gb, fit).
role_gbees_object <- function() {
  values_table(bv("NULL", TRUE), bv("list()", TRUE, label = "a list"), bv("fit", TRUE, label = "a gp_fit"),
               bv("unclass(gb)", TRUE, label = "unclassed"), bv("1", TRUE))
}

role_time_select <- function() {
  values_table(bv("99", TRUE), bv("NA", TRUE), bv("'a'", TRUE), bv("c(0.05, 0.05)", TRUE), bv("-Inf", TRUE),
               bv("numeric(0)", TRUE), bv("NULL"))
}

role_dims <- function() {
  values_table(bv("0", TRUE), bv("4", TRUE), bv("NA", TRUE), bv("c(1, 1)", TRUE), bv("1:3", TRUE), bv("'a'", TRUE),
               bv("NULL", TRUE), bv("1.5", TRUE), bv("-1", TRUE))
}

# Monte Carlo samples for bhattacharyya (setup: mc, 3 states at time 0.05).
role_samples <- function() {
  values_table(
    bv("mc"), bv("mc$samples[[1]]", label = "matrix"), bv("mc$samples[[1]][, 1:2]", TRUE, label = "2 columns"),
    bv("local({x <- mc$samples[[1]]; x[1, 1] <- NA; x})", label = "NA row"),
    bv("matrix(numeric(0), 0, 3)", TRUE, label = "0 rows"), bv("'a'", TRUE), bv("NULL", TRUE),
    bv("gbees_mc(lorenz63(), c(-11.5, -10, 9.5), diag(3), 0.1, n = 100)", TRUE, label = "other time")
  )
}

# Right-hand sides of solve(tile_chol) (setup: tc, 20 x 20).
role_rhs <- function() {
  values_table(
    bv("rep(1, 20)"), bv("c(NA, rep(1, 19))", na = TRUE, label = "NA"), bv("c(Inf, rep(1, 19))", label = "Inf"),
    bv("rep(1, 19)", TRUE, label = "19 values"), bv("matrix(0, 20, 0)", label = "20 x 0"),
    bv("numeric(0)", TRUE), bv("rep('a', 20)", TRUE, label = "character"), bv("NULL", TRUE),
    bv("list(1)", TRUE, label = "list")
  )
}

role_seed <- function() values_table(bv("NA"), bv("'a'", TRUE), bv("1.5"), bv("c(1, 2)"), bv("-1"))

# Values of the package's options, set before a call.
role_threads_option <- function() {
  values_table(bv("1e6"), bv(".Machine$integer.max", label = "integer.max"), bv("1000"), bv("-1"), bv("NA"),
               bv("'a'"), bv("2.5"), bv("Inf"), bv("1e300"), bv("c(1, 2)"), bv("0"))
}

role_device_option <- function() values_table(bv("'gpu'"), bv("'bogus'", TRUE), bv("NA", TRUE), bv("1", TRUE))

role_gpus_option <- function() values_table(bv("-1"), bv("5"), bv("NA"), bv("'a'"), bv("1e10"))

# vecchia_neighbors() structures given as the locations (setup: L, nb, made
# with m = 5; the base call gives m = 5 too).
role_vecchia_structure <- function() {
  values_table(
    bv("nb", label = "structure"), bv("vecchia_neighbors(L, 3)", TRUE, label = "structure with m = 3"),
    bv("vecchia_neighbors(L, 5, group = TRUE)", label = "grouped structure"),
    bv("vecchia_neighbors(L, 5, distance = 'great_circle')", label = "great-circle structure"),
    bv("unclass(nb)", TRUE, label = "unclassed structure"),
    bv("{k <- nb; k$order <- NULL; k}", TRUE, label = "structure without order"),
    bv("{k <- nb; k$locs[3, 1] <- NA; k}", TRUE, TRUE, label = "structure with an NA coordinate"),
    bv("{k <- nb; k$neighbors[5, 2] <- 99L; k}", TRUE, label = "structure with neighbour 99 of 20"),
    bv("{k <- nb; k$neighbors[5, 2] <- 5L; k}", TRUE, label = "structure with a point its own neighbour"),
    bv("{k <- nb; attr(k, 'engine') <- NULL; k}", TRUE, label = "structure without engine"),
    bv("unserialize(serialize(nb, NULL))", label = "reloaded structure")
  )
}

# Points and grids at which to predict from a fit of an sf object in UTM 32N
# (setup: d, the fit's 20 points, and grd, a 4 x 3 grid over them).
role_spatial_newdata <- function() {
  values_table(
    bv("d[0, ]", label = "sf of 0 rows"),
    bv("sf::st_transform(d, 4326)", TRUE, label = "sf in longitude and latitude"),
    bv("sf::st_transform(d, 3857)", TRUE, label = "sf in another projected CRS"),
    bv("sf::st_set_crs(d, NA)", label = "sf without CRS"),
    bv("sf::st_buffer(d, 10)", TRUE, label = "sf of polygons"),
    bv("sf::st_sf(z = 1, geometry = sf::st_sfc(sf::st_point(), crs = 32632))", TRUE, label = "sf of an empty point"),
    bv("sf::st_sf(geometry = sf::st_sfc(sf::st_point(c(5e5, 5e6, 10)), crs = 32632))", TRUE, label = "sf of a 3-D point"),
    bv("sf::st_geometry(d)", TRUE, label = "sfc"),
    bv("sf::as_Spatial(d)", label = "sp points"),
    bv("sf::as_Spatial(sf::st_transform(d, 4326))", TRUE, label = "sp points in longitude and latitude"),
    bv("sf::as_Spatial(sf::st_buffer(d, 10))", TRUE, label = "sp polygons"),
    bv("grd", label = "stars grid"),
    bv("sf::st_transform(grd, 4326)", TRUE, label = "stars curvilinear grid in longitude and latitude"),
    bv("stars::st_warp(grd, crs = 4326)", TRUE, label = "stars grid in longitude and latitude"),
    bv("c(grd, grd, along = 3)", TRUE, label = "stars grid of 3 dimensions"),
    bv("{g <- grd; g[[1]][] <- NA; g}", label = "stars grid of missing cells"),
    bv("grd[, 1, 1]", label = "stars grid of one cell")
  )
}

# Counts for a Poisson fit (setup: cnt, 20 counts at L).
role_counts <- function() {
  values_table(
    bv("-cnt", TRUE, label = "negative"), bv("cnt + 0.5", TRUE, label = "fractional"),
    bv("rep(0, 20)", TRUE, label = "all 0"), bv("local({cnt[2] <- Inf; cnt})", TRUE, label = "Inf count"),
    bv("local({cnt[2] <- NA; cnt})", na = TRUE, label = "NA count"),
    bv("cnt * 1e300", TRUE, label = "counts 1e300"), bv("cnt * 2^53", TRUE, label = "counts above 2^53"), bv("cbind(cnt, cnt)", TRUE, label = "two columns"),
    bv("cnt > 3", label = "logical"), bv("factor(cnt)", TRUE, label = "factor")
  )
}

# 0/1 responses of a binomial fit (setup: cnt).
role_binary <- function() {
  values_table(
    bv("cnt", TRUE, label = "counts"), bv("rep(1, 20)", TRUE, label = "all 1"), bv("rep(0, 20)", TRUE, label = "all 0"),
    bv("cnt / max(cnt)", TRUE, label = "proportions"), bv("cbind(cnt, 10 - cnt)", label = "successes and failures"),
    bv("cbind(cnt, -1)", TRUE, label = "negative failures"), bv("cbind(cnt, 0 * cnt)", TRUE, label = "no failures"),
    bv("cbind(cnt, 0)[, c(1, 2, 2)]", TRUE, label = "three columns"), bv("cbind(cnt, NA)", TRUE, TRUE, label = "NA failures"),
    bv("cnt > 3", label = "logical"), bv("local({z <- as.integer(cnt > 3); z[2] <- NA; z})", na = TRUE, label = "NA value")
  )
}

# The family of gp_fit().
role_family <- function() {
  values_table(
    bv("poisson"), bv("'poisson'"), bv("poisson('identity')", TRUE), bv("Gamma()", TRUE), bv("quasipoisson()", TRUE),
    bv("MASS::negative.binomial(2)"), bv("MASS::negative.binomial(2, link = 'sqrt')", TRUE), bv("mgcv::nb()"),
    bv("mgcv::nb(link = 'sqrt')", TRUE), bv("gaussian('log')", TRUE), bv("binomial('probit')", TRUE),
    bv("'bogus'", TRUE), bv("NULL", TRUE), bv("1", TRUE), bv("c('poisson', 'binomial')", TRUE),
    bv("list(family = 'poisson', link = 'log')", TRUE, label = "a list like a family")
  )
}

# The parameters of confint() (setup: fit, sigma2 its one free parameter).
role_parm <- function() {
  values_table(bv("'sigma2'"), bv("'bogus'", TRUE), bv("99", TRUE), bv("NA", TRUE), bv("character(0)", TRUE),
               bv("0", TRUE), bv("-1", TRUE), bv("c('sigma2', 'sigma2')"), bv("TRUE", TRUE), bv("list('sigma2')", TRUE))
}

# A cluster of the parallel package where one is expected (NULL: none).
role_cluster <- function() {
  values_table(
    bv("NULL"), bv("'a'", TRUE), bv("1", TRUE), bv("list()", TRUE, label = "an empty list"),
    bv("structure(list(), class = 'cluster')", TRUE, label = "a cluster of no workers"),
    bv("structure(list(1), class = c('SOCKcluster', 'cluster'))", TRUE, label = "a cluster of a number"),
    bv("{cl <- parallel::makeCluster(1L); parallel::stopCluster(cl); cl}", TRUE, label = "a stopped cluster"),
    bv("TRUE", TRUE)
  )
}

# Covariance family names (setup: L, 2-D). `invalid` for a call that gives
# no shape parameters: the families with a free shape need it there (a fit
# searches it, see the specs' `valid`).
role_cov_name <- function() {
  values_table(
    bv("'spherical'"), bv("'Sph'"), bv("'SPH'"), bv("'gaussian'"), bv("'Gau'"), bv("'Exp'"),
    bv("'matern32'"), bv("'powexp'", TRUE), bv("'cauchy'", TRUE), bv("'wendland'", TRUE), bv("'matern'", TRUE),
    bv("'matern_aniso'", TRUE), bv("'Nug'", TRUE), bv("'Lin'", TRUE), bv("'bogus'", TRUE), bv("NA_character_", TRUE),
    bv("''", TRUE), bv("c('Sph', 'Gau')", TRUE), bv("character(0)", TRUE), bv("1", TRUE), bv("NULL", TRUE)
  )
}

# The power of the powered exponential and the Cauchy: (0, 2].
role_cov_power <- function() {
  values_table(
    bv("2"), bv("1e-300"), bv("0", TRUE), bv("-1", TRUE), bv("2 + 1e-12", TRUE), bv("2.5", TRUE), bv("NA", TRUE),
    bv("NaN", TRUE), bv("Inf", TRUE), bv("'a'", TRUE), bv("c(1, 2)", TRUE), bv("numeric(0)", TRUE)
  )
}

# The Wendland's kappa: 0, 1 or 2.
role_cov_kappa <- function() {
  values_table(bv("0"), bv("2"), bv("3", TRUE), bv("1.5", TRUE), bv("-1", TRUE), bv("NA", TRUE), bv("'1'", TRUE),
               bv("c(0, 1)", TRUE))
}

# The Wendland's mu in 2-D with kappa 1 (base): at least 3/2 + 1.
role_cov_mu <- function() {
  values_table(bv("2.5"), bv("2.4", TRUE), bv("0", TRUE), bv("-1", TRUE), bv("1e300"), bv("NA", TRUE), bv("Inf", TRUE),
               bv("'a'", TRUE))
}

# Shape parameters of a fit (start, lower, upper, fixed) of the Cauchy in
# 2-D; parameters of other families are errors.
role_cov_shape_list <- function() {
  values_table(
    bv("list(power = 1)"), bv("list(power = 0)", TRUE), bv("list(power = 2.5)", TRUE), bv("list(power = NA)", TRUE),
    bv("list(tail = 0)", TRUE), bv("list(tail = Inf)", TRUE), bv("list(tail = -1)", TRUE),
    bv("list(mu = 3)", TRUE), bv("list(kappa = 1)", TRUE), bv("list(smoothness = 1)", TRUE),
    bv("list(power = 'a')", TRUE), bv("list(power = c(1, 2))", TRUE)
  )
}

# Positive responses of a Gamma fit (setup: y).
role_positive <- function() {
  values_table(
    bv("exp(y)", label = "positive"), bv("local({z <- exp(y); z[2] <- 0; z})", TRUE, label = "a zero"),
    bv("-exp(y)", TRUE, label = "negative"), bv("local({z <- exp(y); z[2] <- NA; z})", na = TRUE, label = "NA value"),
    bv("local({z <- exp(y); z[2] <- Inf; z})", TRUE, label = "Inf value"), bv("rep(2, 20)", label = "constant"),
    bv("exp(y) * 1e300", label = "scale 1e300"), bv("exp(y) * 1e-300", label = "scale 1e-300"),
    bv("cbind(exp(y), exp(y))", TRUE, label = "two columns"), bv("as.character(exp(y))", TRUE, label = "character")
  )
}

# Prior weights of a fit (setup: 20 observations).
role_weights <- function() {
  values_table(
    bv("rep(2, 20)"), bv("rep(1, 19)", TRUE, label = "19 weights"), bv("c(-1, rep(1, 19))", TRUE, label = "negative"),
    bv("c(NA, rep(1, 19))", TRUE, TRUE, label = "NA"), bv("c(Inf, rep(1, 19))", TRUE, label = "Inf"),
    bv("rep(0, 20)", TRUE, label = "all 0"), bv("'a'", TRUE), bv("NULL")
  )
}

# Banded systems of order 5 (setup: none).
role_band <- function() {
  values_table(
    bv("c(NA, -1, -1, -1)", TRUE, TRUE, label = "NA"), bv("c(Inf, -1, -1, -1)", TRUE, label = "Inf"),
    bv("rep(-1, 3)", TRUE, label = "3 values"), bv("rep(-1, 5)", TRUE, label = "5 values"), bv("0", label = "0"),
    bv("numeric(0)", TRUE), bv("matrix(-1, 4, 2)", label = "4 x 2"), bv("matrix(-1, 4, 3)", TRUE, label = "4 x 3"),
    bv("rep(1e300, 4)", label = "1e300"), wrong_types()
  )
}

role_band_diag <- function() {
  values_table(
    bv("c(NA, 2, 2, 2, 2)", TRUE, TRUE, label = "NA"), bv("rep(0, 5)", TRUE, label = "zero diagonal"),
    bv("rep(2, 4)", TRUE, label = "4 values"), bv("numeric(0)", TRUE), bv("matrix(2, 5, 3)", TRUE, label = "5 x 3"),
    wrong_types()
  )
}

# Right-hand sides of a banded system of order 5.
role_band_rhs <- function() {
  values_table(
    bv("c(NA, 1, 1, 1, 1)", TRUE, TRUE, label = "NA"), bv("c(Inf, 1, 1, 1, 1)", TRUE, label = "Inf"),
    bv("rep(1, 4)", TRUE, label = "4 values"), bv("matrix(1, 5, 2)", label = "5 x 2"), bv("matrix(1, 5, 0)", label = "5 x 0"),
    bv("rep(1e300, 5)", label = "1e300"), bv("numeric(0)", TRUE), wrong_types()
  )
}

# Polynomial coefficients, lowest degree first.
role_coefficients <- function() {
  values_table(
    bv("c(1, NA, 0.25)", TRUE, TRUE, label = "NA"), bv("c(1, Inf, 0.25)", TRUE, label = "Inf"), bv("numeric(0)"),
    bv("1"), bv("matrix(1, 3, 0)", label = "3 x 0"), bv("matrix(1, 0, 2)", label = "0 x 2"),
    bv("c(1e308, 1e308, 1e308)", label = "1e308"), bv("array(1, c(2, 2, 2))", TRUE, label = "3-d array"), wrong_types()
  )
}

# Degrees and sizes of the Jacobi-Bessel transforms (whole numbers >= 0).
role_degree <- function() {
  values_table(bv("0"), bv("NA", TRUE), bv("-1", TRUE), bv("1.5", TRUE), bv("Inf", TRUE), bv("'a'", TRUE),
               bv("c(1, 2)", TRUE), bv("NULL", TRUE), bv("1e6", TRUE, huge = TRUE), bv("2^31", TRUE, huge = TRUE))
}

# Lists of matrices for a jwt plan (setup: plan, n 4, lmax 2, nr 5).
role_plan_list <- function(rows) {
  values_table(
    bv(sprintf("rep(list(matrix(1, %d, 1)), 2)", rows), TRUE, label = "2 of 3 degrees"),
    bv(sprintf("rep(list(matrix(1, %d, 1)), 3)", rows + 1L), TRUE, label = "a row too many"),
    bv(sprintf("c(rep(list(matrix(1, %d, 1)), 2), list(matrix(NA, %d, 1)))", rows, rows), TRUE, TRUE, label = "NA"),
    bv(sprintf("c(rep(list(matrix(1, %d, 1)), 2), list('a'))", rows), TRUE, label = "text"),
    bv(sprintf("c(rep(list(matrix(1, %d, 1)), 2), list(matrix(1, %d, 2)))", rows, rows), label = "unequal columns"),
    bv(sprintf("rep(list(rep(1, %d)), 3)", rows), label = "vectors"),
    bv("list()", TRUE, label = "empty list"), bv("1", TRUE), bv("NULL", TRUE)
  )
}

role_plan <- function() {
  values_table(bv("unclass(plan)", TRUE, label = "unclassed"), bv("{p <- plan; p$n <- 99L; p}", TRUE, label = "n 99"),
               bv("unserialize(serialize(plan, NULL))", label = "reloaded"), bv("list()", TRUE, label = "a list"),
               bv("NULL", TRUE), bv("sht_grid(4)", TRUE, label = "an sht grid"))
}

# Field values on an sht grid (setup: sg, sht_grid(4)).
role_sht_values <- function() {
  values_table(
    bv("matrix(1, sg$nlat, sg$nlon)", label = "constant"), bv("local({v <- matrix(1, sg$nlat, sg$nlon); v[2] <- NA; v})", TRUE, TRUE, label = "NA"),
    bv("local({v <- matrix(1, sg$nlat, sg$nlon); v[2] <- Inf; v})", TRUE, label = "Inf"),
    bv("matrix(1, sg$nlat, sg$nlon - 1)", TRUE, label = "a column short"), bv("matrix(1, 0, 0)", TRUE, label = "0 x 0"),
    bv("array(1, c(sg$nlat, sg$nlon, 2))", label = "two fields"), bv("array(1, c(sg$nlat, sg$nlon, 0))", label = "no fields"),
    bv("rep(1, 10)", TRUE, label = "vector"), wrong_types()
  )
}

role_sht_grid <- function() {
  values_table(bv("sht_grid(2)", TRUE, label = "too coarse a grid"), bv("sht_grid(4, 'equiangular')", label = "equiangular grid"),
               bv("unclass(sg)", TRUE, label = "unclassed"), bv("{g <- sg; g$nlat <- 99L; g}", TRUE, label = "nlat 99"),
               bv("list()", TRUE, label = "a list"), bv("1", TRUE), bv("NULL"))
}

# Values for gp_anisotropy().
role_anisotropy <- function() {
  values_table(
    bv("c(range1 = 1, range2 = 0.5, angle = 0.3)"), bv("c(range = 1, angle = 30, ratio = 0.5)"),
    bv("c(range1 = 1, range2 = -0.5, angle = 0.3)", TRUE, label = "negative range2"),
    bv("c(range = 1, angle = 30, ratio = 0)", TRUE, label = "ratio 0"),
    bv("c(range = 1, angle = NA, ratio = 0.5)", TRUE, label = "NA angle"),
    bv("c(range = 1, angle = Inf, ratio = 0.5)", TRUE, label = "Inf angle"),
    bv("c(range1 = 1, range2 = 0.5, angle = 0.3, range = 1, ratio = 0.5)", TRUE, label = "both conventions"),
    bv("c(range1 = 1, range2 = 0.5)", TRUE, label = "no angle"), bv("fit", TRUE, label = "an isotropic fit"),
    bv("list(range = '1', angle = 30, ratio = 0.5)", TRUE, label = "text range"), bv("NULL", TRUE), bv("1", TRUE)
  )
}
