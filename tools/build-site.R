# Build the reference site of gpustats with pkgdown (_pkgdown.yml), from the
# package installed on the library path (R_LIBS), without the network.
#
#   Rscript tools/build-site.R [destination] [--no-examples]
#
# destination: the site's folder (default: _pkgdown.yml's, site/).
# --no-examples: the reference pages show their examples without running them
# (the site's tests, which check pages and links, not the examples' output).
# Run it from the repository root; `make site` installs into .lib first.

args <- commandArgs(trailingOnly = TRUE)
run_examples <- !"--no-examples" %in% args
destination <- args[!startsWith(args, "--")]
override <- if (length(destination) >= 1L) list(destination = destination[[1L]]) else list()

# pkgdown asks CRAN and Bioconductor whether they carry the package, for a
# link on the home page, unless told there is no internet.
options(pkgdown.internet = FALSE)
# downlit links a function of another package to that package's site, which
# it looks up by downloading the site's pkgdown.yml. A proxy that refuses
# every connection makes those downloads fail at once, so the site comes out
# the same with a network and without one: such functions are not linked.
Sys.setenv(http_proxy = "http://127.0.0.1:9", https_proxy = "http://127.0.0.1:9",
           no_proxy = "")
# The examples run in this process: a progress bar of a long one would be
# written into its page.
options(cli.progress_show_after = Inf)

# install = FALSE: the examples and articles run against the package that is
# installed (a pkgdown install would compile the package again, in a
# temporary library); new_process = FALSE keeps the settings above.
pkgdown::build_site(".", examples = run_examples, override = override, install = FALSE,
                    new_process = FALSE, preview = FALSE)
