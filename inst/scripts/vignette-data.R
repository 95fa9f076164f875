# Precompute the heavy results of the vignettes (fits, factorizations, GBEES
# runs) so that the vignettes build in seconds. From the package source, with
# the package installed:
#
#   Rscript inst/scripts/vignette-data.R [NAME ...]     (or: make vignette-data)
#
# For each NAME (default: every inst/scripts/vignette-NAME.R), runs
# inst/scripts/vignette-NAME.R in a fresh environment on the CPU path and saves
# the list `vignette_data` it builds into inst/extdata/vignette-NAME.rds.
# vignettes/NAME.Rmd shows the code of that script's sections (knitr::read_chunk)
# and reads the results; it stops with a message naming this command when the
# data it computes live no longer match the shipped results.

dir <- file.path("inst", "scripts")
out <- file.path("inst", "extdata")
if (!dir.exists(dir) || !dir.exists(out)) stop("run this from the package source (the folder holding inst/)")
names <- commandArgs(trailingOnly = TRUE)
if (!length(names)) names <- sub("^vignette-(.*)[.]R$", "\\1", list.files(dir, "^vignette-.+[.]R$"))
names <- setdiff(names, "data")
suppressPackageStartupMessages(library(gpustats))
options(gpustats.device = "cpu", cli.progress_show_after = Inf)

for (name in names) {
  script <- file.path(dir, paste0("vignette-", name, ".R"))
  if (!file.exists(script)) stop("no ", script)
  env <- new.env(parent = globalenv())
  t <- system.time(sys.source(script, envir = env))[["elapsed"]]
  if (!is.list(env$vignette_data)) stop(script, " did not build the list `vignette_data`")
  file <- file.path(out, paste0("vignette-", name, ".rds"))
  saveRDS(env$vignette_data, file, compress = "xz")
  message(sprintf("%s: %.0f s, %s (%.0f KB)", name, t, file, file.size(file) / 1024))
}
