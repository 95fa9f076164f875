# Models given as expressions on the CPU: compiled at run time with the
# package's field arithmetic, cached per program, with classed errors when
# there is no compiler or the code does not compile.

l63_text <- c("sigma * (x2 - x1)", "-x2 - x1 * x3", "-b * x3 + x1 * x2 - b * r")

test_that("a model made again from the same expressions is not compiled again", {
  skip_if_not(gpustats:::gbees_has_c_compiler(), "no C compiler")
  jit <- gpustats:::gbees_jit
  # a constant no other test uses, so that the first run compiles
  k <- runif(1, 0.1, 0.2)
  text <- c("x2", sprintf("-x1 - %.17g * x2", k))
  before <- jit$compilations
  set.seed(1)
  a <- gbees_mc(gbees_model(text, n = 2), x0 = c(1, 0), cov = diag(0.01, 2), times = 0.5, n = 20, device = "cpu")
  expect_equal(jit$compilations, before + 1L)
  set.seed(1)
  b <- gbees_mc(gbees_model(text, n = 2, name = "again"), x0 = c(1, 0), cov = diag(0.01, 2), times = 0.5, n = 20,
                device = "cpu")
  expect_equal(jit$compilations, before + 1L)
  expect_identical(b$samples, a$samples)
  # the same Runge-Kutta steps through R's arithmetic
  set.seed(1)
  r <- gbees_mc(gbees_model(function(x) cbind(x[, 2], -x[, 1] - k * x[, 2]), n = 2), x0 = c(1, 0),
                cov = diag(0.01, 2), times = 0.5, n = 20, device = "cpu")
  expect_equal(a$samples[[1]], r$samples[[1]], tolerance = 1e-14)
})

test_that("code that does not compile reports the compiler's message and the expression", {
  skip_if_not(gpustats:::gbees_has_c_compiler(), "no C compiler")
  m <- gbees_model(l63_text, n = 3, par = c(sigma = 4, b = 1, r = 48))
  # the checks on the R side let no such expression through, so the source is spoilt by hand
  bad <- sub("(x[1] - x[0])", "(x[1] - undeclared_thing)", m$source, fixed = TRUE)
  expect_false(identical(bad, m$source))
  err <- tryCatch(gpustats:::gbees_compiled_program(bad, m$expressions, 3L, NULL), error = identity)
  expect_s3_class(err, "gpustats_error_compile")
  expect_match(conditionMessage(err), "undeclared_thing", fixed = TRUE)
  expect_match(conditionMessage(err), "component 1: sigma * (x2 - x1)", fixed = TRUE)
  expect_no_match(conditionMessage(err), "component 2", fixed = TRUE)
})

test_that("without R's C compiler a CPU run says which tool is missing", {
  text <- c("x2", sprintf("-x1 + %.17g", runif(1, 0.3, 0.4))) # never compiled before
  m <- gbees_model(text, n = 2)
  path <- Sys.getenv("PATH")
  on.exit(Sys.setenv(PATH = path))
  Sys.setenv(PATH = file.path(tempdir(), "no-such-directory"))
  expect_error(gbees_mc(m, x0 = c(1, 0), cov = diag(0.01, 2), times = 0.5, n = 5, device = "cpu"),
               class = "gpustats_error_no_compiler")
  Sys.setenv(PATH = path)
  expect_false(gpustats:::gbees_has_c_compiler(""))
})
