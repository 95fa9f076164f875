# A local stand-in for the CRAN and Bioconductor indexes that
# R CMD check --as-cran reads (orphaned dependencies in CRAN's package
# database, repository indexes for suggested packages that are not installed,
# such as GpGp), made from the installed packages, so that `make check` runs
# without a network and without warnings from unreachable repositories.
#   Rscript tools/check-offline-repos.R DIR
# then R_CRAN_WEB=file://DIR and R_REPOSITORIES=DIR/repositories.
# made before its path is normalized: normalizePath() leaves a path that does
# not exist relative, and file://RELATIVE is no repository
dir <- commandArgs(TRUE)[1]
for (d in file.path(dir, c("src/contrib", "web/packages"))) dir.create(d, recursive = TRUE, showWarnings = FALSE)
dir <- normalizePath(dir)
contrib <- file.path(dir, "src", "contrib")
web <- file.path(dir, "web", "packages")
ip <- installed.packages(fields = "Maintainer")
ip <- ip[!duplicated(ip[, "Package"]), , drop = FALSE]
saveRDS(data.frame(Package = ip[, "Package"], Maintainer = ip[, "Maintainer"]), file.path(web, "packages.rds"))
write.dcf(ip[, c("Package", "Version")], file.path(contrib, "PACKAGES"))
url <- paste0("file://", dir)
repos <- data.frame(menu_name = c("CRAN", "BioCsoft", "BioCann", "BioCexp"), URL = url, default = c(TRUE, FALSE, FALSE, FALSE),
                    source = TRUE, win.binary = FALSE, mac.binary = FALSE,
                    row.names = c("CRAN", "BioCsoft", "BioCann", "BioCexp"))
utils::write.table(repos, file.path(dir, "repositories"), sep = "\t", quote = FALSE)
