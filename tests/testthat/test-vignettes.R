# Every vignette is knitted (its code run, to Markdown: rendering it needs
# pandoc, which the tests do without) against the installed package, so that
# a vignette cannot fall behind the functions it shows.
test_that("every vignette knits", {
  skip_if_not_installed("knitr")
  # knitr draws the figures with the png() device, which R lacks where it was
  # built without X11 and cairo (a GPU server, say)
  skip_if_not(capabilities("png"), "R has no PNG device here (capabilities(\"png\") is FALSE): vignettes not knitted")
  dir <- normalizePath(file.path(test_path(), "..", "..", "vignettes"), mustWork = FALSE)
  skip_if(!dir.exists(dir), "no vignette sources here")
  out <- tempfile("vignettes")
  dir.create(out)
  old <- setwd(out)
  on.exit({
    setwd(old)
    unlink(out, recursive = TRUE)
  }, add = TRUE)
  knitr::opts_knit$set(root.dir = dir)
  knitr::opts_chunk$set(error = FALSE)
  on.exit(knitr::opts_knit$restore(), add = TRUE)
  on.exit(knitr::opts_chunk$restore(), add = TRUE)
  for (rmd in list.files(dir, pattern = "[.]Rmd$", full.names = TRUE)) {
    md <- sub("[.]Rmd$", ".md", basename(rmd))
    expect_no_error(suppressMessages(knitr::knit(rmd, output = md, quiet = TRUE, envir = new.env(parent = globalenv()))),
                    message = basename(rmd))
    expect_true(file.exists(md), label = basename(rmd))
  }
})
