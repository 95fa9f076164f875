# The fast part of the bad-input battery (tools/bad-input-battery.R, run in
# full by `make check-hard`): one case per function, argument and outcome
# among those that run in well under a second, evaluated in this process and
# checked for the outcome the battery recorded: an error of the package's
# classes, or a value with R's usual warning, or a value.
#
# The fixture is written by the battery; after a fix, rerun it and the cases
# that became clean join the fixture:
#   Rscript tools/bad-input-battery.R --write-fast tests/testthat/fixtures/bad-input-fast.csv
#
# Open cases: not clean on the code of this fixture, so left out (they
# crash, hang, give an obscure error or a silent wrong value; the battery's
# summary.txt says how). The battery writes this list.
# OPEN-CASES-BEGIN
#   r_error: predict | object | a stable_fit
#   r_error: marginal | object | a list
#   r_error: marginal | object | a gp_fit
#   r_error: marginal | object | unclassed
#   r_error: marginal | object | 1
#   r_error: marginal | object | NULL
# OPEN-CASES-END

bad_input_cases <- utils::read.csv(test_path("fixtures", "bad-input-fast.csv"), stringsAsFactors = FALSE)

# Evaluates a case's setup and call in a fresh environment; the random number
# stream of the tests around is left as it was.
run_bad_input <- function(case) {
  if (exists(".Random.seed", globalenv())) {
    seed <- get(".Random.seed", globalenv())
    on.exit(assign(".Random.seed", seed, globalenv()))
  }
  grDevices::pdf(NULL) # the cases that plot draw nowhere (no Rplots.pdf)
  on.exit(grDevices::dev.off(), add = TRUE)
  env <- new.env(parent = globalenv())
  if (nzchar(case$setup)) eval(parse(text = case$setup), env)
  eval(parse(text = case$call), env)
}

test_that("the fast bad-input cases cover every exported function", {
  exported <- getNamespaceExports("gpustats")
  tested <- unique(bad_input_cases$call)
  called <- unique(sub("\\(.*$", "", tested))
  expect_true(nrow(bad_input_cases) >= 50)
  expect_true(all(c("bessel_k", "matern", "dstable", "pstable", "qstable", "rstable") %in% called))
  expect_true(all(called %in% c(exported, "plot", "predict", "simulate", "solve", "determinant", "print",
                                "summary", "as.matrix", "as.data.frame")))
})

test_that("bad input gives a classed error, or a value with R's usual warning", {
  for (i in seq_len(nrow(bad_input_cases))) {
    case <- bad_input_cases[i, ]
    info <- paste0(case$id, ": ", case$call)
    if (case$expect == "warning") {
      expect_warning(run_bad_input(case), info = info)
    } else if (case$expect == "value") {
      expect_error(suppressWarnings(run_bad_input(case)), NA, info = info)
    } else {
      expect_error(run_bad_input(case), class = case$expect, info = info)
    }
  }
})
