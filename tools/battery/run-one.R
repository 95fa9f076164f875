# Runs one battery case in this fresh R process and prints its record:
#
#   Rscript tools/battery/run-one.R LIB CASE.rds
#   Rscript tools/battery/run-one.R LIB 'case id regex'   (the first case whose id matches)
#
# The battery uses it to learn how a case that killed its process ended
# (exit status, R's last words on stderr).

args <- commandArgs(TRUE)
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])))
for (f in c("values.R", "cases.R", "checks.R", "child.R")) source(file.path(here, f))
lib <- normalizePath(args[[1L]])
.libPaths(c(lib, .libPaths()))
suppressPackageStartupMessages(library(gpustats, lib.loc = lib))
case <- if (file.exists(args[[2L]])) {
  readRDS(args[[2L]])
} else {
  Filter(function(k) grepl(args[[2L]], k$id), battery_cases())[[1L]]
}
cat("case:", case$id, "\n", case_code(case), "\n")
str(run_case(case))
