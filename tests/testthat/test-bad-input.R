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
#   suspicious_value: gp_fit | y,locs | n = 1
#   suspicious_value: gp_fit | y,locs | n = 2
#   suspicious_value: gp_fit | y,locs | n = 3
#   suspicious_value: gp_fit | y,locs | n = 30, constant y
#   suspicious_value: matern_cov | locs,range | 1e-200 apart, range 1e-200
#   suspicious_value: matern | d,range | d / range 1.6e9
#   suspicious_value: gbees | times,t0 | t0 1e15
#   hang: gbees_mc | times,n | times 1e6, n 10
#   hang: stable_fit | x | rstable(2000, 0.3, 0.9)
#   obscure_error: solve | a | reloaded factor
#   obscure_error: as.matrix | x | reloaded factor
#   r_error: predict | object | a stable_fit
#   crash: bessel_k | option gpustats.threads | 1e6
#   crash: bessel_k | option gpustats.threads | integer.max
#   crash: bessel_k | option gpustats.threads | 1000
#   obscure_error: bessel_k | option gpustats.threads | Inf
#   obscure_error: bessel_k | option gpustats.threads | 1e300
#   crash: dstable | option gpustats.threads | 1e6
#   crash: dstable | option gpustats.threads | integer.max
#   crash: dstable | option gpustats.threads | 1000
#   obscure_error: dstable | option gpustats.threads | Inf
#   obscure_error: dstable | option gpustats.threads | 1e300
#   crash: rstable | option gpustats.threads | 1e6
#   crash: rstable | option gpustats.threads | integer.max
#   crash: rstable | option gpustats.threads | 1000
#   obscure_error: rstable | option gpustats.threads | Inf
#   obscure_error: rstable | option gpustats.threads | 1e300
#   crash: matern_cov | option gpustats.threads | 1e6
#   crash: matern_cov | option gpustats.threads | integer.max
#   crash: matern_cov | option gpustats.threads | 1000
#   obscure_error: matern_cov | option gpustats.threads | Inf
#   obscure_error: matern_cov | option gpustats.threads | 1e300
#   crash: gp_loglik | option gpustats.threads | 1e6
#   crash: gp_loglik | option gpustats.threads | integer.max
#   crash: gp_loglik | option gpustats.threads | 1000
#   obscure_error: gp_loglik | option gpustats.threads | Inf
#   obscure_error: gp_loglik | option gpustats.threads | 1e300
#   crash: tile_chol | option gpustats.threads | 1e6
#   crash: tile_chol | option gpustats.threads | integer.max
#   crash: tile_chol | option gpustats.threads | 1000
#   obscure_error: tile_chol | option gpustats.threads | Inf
#   obscure_error: tile_chol | option gpustats.threads | 1e300
#   crash: gbees_mc | option gpustats.threads | 1e6
#   crash: gbees_mc | option gpustats.threads | integer.max
#   crash: gbees_mc | option gpustats.threads | 1000
#   obscure_error: gbees_mc | option gpustats.threads | Inf
#   obscure_error: gbees_mc | option gpustats.threads | 1e300
#   crash: stable_fit | option gpustats.threads | 1e6
#   crash: stable_fit | option gpustats.threads | integer.max
#   crash: stable_fit | option gpustats.threads | 1000
#   obscure_error: stable_fit | option gpustats.threads | Inf
#   obscure_error: stable_fit | option gpustats.threads | 1e300
#   suspicious_value: stable_fit | option gpustats.device | 'bogus'
#   suspicious_value: stable_fit | option gpustats.device | NA
#   suspicious_value: stable_fit | option gpustats.device | 1
#   suspicious_value: bessel_k | option gpustats.gpus | 'a'
#   suspicious_value: bessel_k | option gpustats.gpus | 1e10
#   suspicious_value: dstable | option gpustats.gpus | 'a'
#   suspicious_value: dstable | option gpustats.gpus | 1e10
#   suspicious_value: rstable | option gpustats.gpus | 'a'
#   suspicious_value: rstable | option gpustats.gpus | 1e10
#   suspicious_value: matern_cov | option gpustats.gpus | 'a'
#   suspicious_value: matern_cov | option gpustats.gpus | 1e10
#   suspicious_value: gp_loglik | option gpustats.gpus | 'a'
#   suspicious_value: gp_loglik | option gpustats.gpus | 1e10
#   suspicious_value: tile_chol | option gpustats.gpus | 'a'
#   suspicious_value: tile_chol | option gpustats.gpus | 1e10
#   suspicious_value: gbees_mc | option gpustats.gpus | 'a'
#   suspicious_value: gbees_mc | option gpustats.gpus | 1e10
#   r_error: bessel_k_deriv | wrt | 'bogus'
#   r_error: bessel_k_deriv | wrt | NA_character_
#   r_error: bessel_k_deriv | wrt | character(0)
#   r_error: bessel_k_deriv | wrt | 1
#   r_error: bessel_k_deriv | wrt | c('bogus', 'other')
#   r_error: bessel_k_deriv | wrt | ''
#   suspicious_value: matern | range | 1e-308
#   suspicious_value: matern_cov | locs2 | 1e5 rows
#   suspicious_value: matern_cov | range | 1e-300
#   suspicious_value: matern_cov | range | 5e-324
#   r_error: matern_cov | distance | 'bogus'
#   r_error: matern_cov | distance | NA_character_
#   r_error: matern_cov | distance | character(0)
#   r_error: matern_cov | distance | 1
#   r_error: matern_cov | distance | c('bogus', 'other')
#   r_error: matern_cov | distance | ''
#   r_error: marginal | object | a list
#   obscure_error: determinant | logarithm | NA
#   r_error: marginal | object | a gp_fit
#   suspicious_value: determinant | logarithm | 'TRUE'
#   suspicious_value: morton_order | locs | 0 rows
#   r_error: marginal | object | unclassed
#   obscure_error: predict | newlocs | 0 rows
#   suspicious_value: solve | b | Inf
#   obscure_error: determinant | logarithm | c(TRUE, FALSE)
#   hang: gbees | model | field 1e300
#   r_error: marginal | object | 1
#   suspicious_value: determinant | logarithm | 1
#   suspicious_value: gp_simulate | locs | 1 row
#   suspicious_value: gp_fit | y | constant
#   obscure_error: determinant | logarithm | logical(0)
#   obscure_error: determinant | logarithm | list(TRUE)
#   suspicious_value: gp_loglik | y | scale 1e300
#   suspicious_value: plot | dims | 1.5
#   suspicious_value: gbees_model | f | function of nothing
#   hang: gbees | model | expressions 1e300
#   obscure_error: stable_fit | x | 990 ties
#   suspicious_value: bhattacharyya | samples | 0 rows
#   hang: stable_fit | x | two atoms
# OPEN-CASES-END

bad_input_cases <- utils::read.csv(test_path("fixtures", "bad-input-fast.csv"), stringsAsFactors = FALSE)

# Evaluates a case's setup and call in a fresh environment; the random number
# stream of the tests around is left as it was.
run_bad_input <- function(case) {
  if (exists(".Random.seed", globalenv())) {
    seed <- get(".Random.seed", globalenv())
    on.exit(assign(".Random.seed", seed, globalenv()))
  }
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
