# The lm-like workflow around gp_fit(): update(), formula(), terms(),
# model.frame(), model.matrix() and nobs() for fits of the formula form (data
# frames, sf), of the matrix form and of replicates, and anova() of a term
# added by update().

quiet <- list(trace = FALSE)

meuse_frame <- function() {
  skip_if_not_installed("sp")
  e <- new.env()
  utils::data("meuse", package = "sp", envir = e)
  e$meuse
}

test_that("a term added by update() is tested by anova(); the methods need no data", {
  m <- meuse_frame()
  f <- gp_fit(log(zinc) ~ sqrt(dist), m, coords = ~ x + y, cov = "exponential", method = "ml", control = quiet,
              device = "cpu")
  expect_identical(f$call$data, quote(m)) # given as the second argument, kept by its name
  expect_identical(formula(f), log(zinc) ~ sqrt(dist), ignore_formula_env = TRUE)
  expect_identical(attr(terms(f), "term.labels"), "sqrt(dist)")
  expect_identical(nobs(f), 155L)
  expect_identical(names(model.frame(f)), c("log(zinc)", "sqrt(dist)"))
  X <- model.matrix(f)
  expect_identical(colnames(X), c("(Intercept)", "sqrt(dist)"))
  expect_identical(attr(X, "assign"), 0:1)
  expect_equal(unname(X[, 2]), sqrt(m$dist))
  f2 <- update(f, . ~ . + ffreq)
  expect_identical(formula(f2), log(zinc) ~ sqrt(dist) + ffreq, ignore_formula_env = TRUE)
  direct <- gp_fit(log(zinc) ~ sqrt(dist) + ffreq, m, coords = ~ x + y, cov = "exponential", method = "ml",
                   control = quiet, device = "cpu")
  expect_identical(f2$loglik, direct$loglik)
  expect_identical(attr(model.matrix(f2), "contrasts"), list(ffreq = "contr.treatment"))
  a <- anova(f, f2)
  expect_equal(a$Chisq[2], 2 * (f2$loglik - f$loglik), tolerance = 1e-12)
  expect_identical(a$`Chi Df`[2], 2)
  # other arguments change as in update() of lm; NULL removes one
  expect_identical(update(f, method = "reml")$method, "reml")
  expect_identical(update(f, method = NULL, evaluate = FALSE)$method, NULL)
  m2 <- m
  m2$zinc <- rev(m2$zinc)
  expect_identical(update(f, data = m2)$y, log(m2$zinc))
  # the model frame and design of a fit made where its data were local
  fit_locally <- function() {
    local_data <- m
    gp_fit(log(zinc) ~ sqrt(dist), local_data, coords = ~ x + y, cov = "exponential", method = "ml",
           control = quiet, device = "cpu")
  }
  g <- fit_locally()
  expect_identical(model.matrix(g), X)
  expect_equal(model.frame(g), model.frame(f), ignore_formula_env = TRUE)
  # rows dropped for a missing value are named in the frame, as lm() does
  m$zinc[c(3, 9)] <- NA
  h <- suppressMessages(gp_fit(log(zinc) ~ sqrt(dist), data = m, coords = ~ x + y, cov = "exponential",
                               control = quiet, device = "cpu"))
  expect_identical(nrow(model.frame(h)), 153L)
  expect_identical(nrow(model.matrix(h)), 153L)
  expect_identical(unclass(attr(model.frame(h), "na.action")), c(`3` = 3L, `9` = 9L))
  # and the design has columns for the levels of the rows fitted only
  m$zone <- factor(ifelse(seq_len(155) %% 2 == 0, "a", "b"), levels = c("a", "b", "dropped", "unused"))
  m$zone[3] <- "dropped"
  h2 <- suppressMessages(update(h, . ~ . + zone))
  expect_identical(colnames(model.matrix(h2)), c("(Intercept)", "sqrt(dist)", "zoneb"))
  expect_identical(h2$xlevels, list(zone = c("a", "b")))
})

test_that("the data of a formula are given once; update() and the methods refuse what they do not take", {
  m <- meuse_frame()
  expect_error(gp_fit(log(zinc) ~ 1, m, data = m, coords = ~ x + y, control = quiet), "given twice",
               class = "gpustats_error_argument")
  f <- gp_fit(log(zinc) ~ 1, m, coords = ~ x + y, cov = "exponential", method = "ml", control = quiet, device = "cpu")
  expect_error(update(f, . ~ ., "reml"), "must be named", class = "gpustats_error_argument")
  expect_error(update(f, evaluate = NA), "TRUE or FALSE", class = "gpustats_error_argument")
  expect_error(model.frame(f, data = m), "unknown argument", class = "gpustats_error_argument")
  expect_error(model.matrix(f, 1), "unnamed argument", class = "gpustats_error_argument")
})

test_that("a fit of the matrix form is the model y ~ X - 1 and updates its arguments", {
  m <- meuse_frame()
  y <- log(m$zinc)
  locs <- m[, c("x", "y")]
  X <- cbind(`(Intercept)` = 1, sqrt_dist = sqrt(m$dist))
  f <- gp_fit(y, locs, X = X, cov = "exponential", method = "ml", control = quiet, device = "cpu")
  expect_identical(formula(f), y ~ X - 1, ignore_formula_env = TRUE)
  expect_identical(nobs(f), 155L)
  frame <- model.frame(f)
  expect_identical(names(frame), c("y", "X"))
  expect_identical(frame$y, y)
  expect_identical(model.matrix(f), X)
  expect_equal(model.matrix(terms(f), frame), X, ignore_attr = TRUE)
  expect_error(update(f, . ~ . + ffreq), "matrix form", class = "gpustats_error_argument")
  # the trend dropped by update(), tested by anova()
  f0 <- suppressWarnings(update(f, X = NULL))
  expect_identical(colnames(model.matrix(f0)), "(Intercept)")
  expect_equal(anova(f0, f)$Chisq[2], 2 * (f$loglik - f0$loglik), tolerance = 1e-12)
  # a zero-mean model: y ~ 0, a frame of y alone
  z <- suppressWarnings(update(f, y = y - mean(y), X = matrix(0, 155, 0)))
  expect_identical(formula(z), y ~ 0, ignore_formula_env = TRUE)
  expect_identical(names(model.frame(z)), "y")
  expect_identical(dim(model.matrix(z)), c(155L, 0L))
})

test_that("sf data and replicates: the frame, the design and update()", {
  set.seed(4)
  n <- 30L
  df <- data.frame(a = rnorm(n), b = rnorm(n), x = runif(n), y = runif(n))
  fixed <- list(range = 0.3, smoothness = 0.5)
  r <- gp_fit(cbind(a, b) ~ 1, df, coords = ~ x + y, fixed = fixed, control = quiet, device = "cpu")
  expect_identical(nobs(r), 2L * n)
  expect_identical(dim(model.frame(r)[["cbind(a, b)"]]), c(n, 2L))
  r2 <- update(r, . ~ . + x)
  expect_identical(colnames(model.matrix(r2)), c("(Intercept)", "x"))
  expect_identical(r2$replicates, 2L)
  rm <- gp_fit(cbind(df$a, df$b), df[, c("x", "y")], fixed = fixed, control = quiet, device = "cpu")
  expect_identical(nobs(rm), 2L * n)
  expect_identical(dim(model.frame(rm)$y), c(n, 2L))
  expect_equal(update(rm, X = cbind(1, df$x))$loglik, r2$loglik, tolerance = 1e-10)
  skip_if_not_installed("sf")
  m <- meuse_frame()
  s <- sf::st_as_sf(m, coords = c("x", "y"))
  f <- gp_fit(log(zinc) ~ sqrt(dist), s, cov = "exponential", method = "ml", control = quiet, device = "cpu")
  expect_identical(names(model.frame(f)), c("log(zinc)", "sqrt(dist)"))
  expect_identical(nobs(f), 155L)
  f2 <- update(f, . ~ . + ffreq)
  expect_identical(ncol(model.matrix(f2)), 4L)
  expect_identical(anova(f, f2)$`Chi Df`[2], 2)
})
