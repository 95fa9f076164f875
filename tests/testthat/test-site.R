# The reference site: tools/build-site.R, which `make site` runs, builds it
# from the installed package into a temporary folder (the examples shown but
# not run: other tests run them); every topic and every article has its page,
# listed in its index, and every link of a page to the site's own files
# resolves, anchors included.

# The links of the site's pages to its own files (href and src values that
# name no scheme, such as https: or mailto:) that lead to no file, or to a
# page without the anchor they name; each as "page -> link".
broken_links <- function(site) {
  site <- normalizePath(site)
  pages <- normalizePath(list.files(site, pattern = "[.]html$", recursive = TRUE, full.names = TRUE))
  docs <- lapply(pages, xml2::read_html)
  anchors <- lapply(docs, function(doc) xml2::xml_attr(xml2::xml_find_all(doc, "//*[@id]"), "id"))
  names(anchors) <- pages
  broken <- character()
  for (i in seq_along(pages)) {
    links <- unique(xml2::xml_text(xml2::xml_find_all(docs[[i]], "//@href | //@src")))
    own <- links[!grepl("^[A-Za-z][A-Za-z0-9+.-]*:", links) & !startsWith(links, "//")]
    for (link in own) {
      file <- utils::URLdecode(sub("[?#].*$", "", link))
      anchor <- if (grepl("#", link, fixed = TRUE)) utils::URLdecode(sub("^[^#]*#", "", link)) else ""
      target <- if (nzchar(file)) file.path(dirname(pages[[i]]), file) else pages[[i]]
      if (dir.exists(target)) target <- file.path(target, "index.html")
      target <- normalizePath(target, mustWork = FALSE)
      found <- file.exists(target) &&
        (!nzchar(anchor) || !target %in% pages || anchor %in% anchors[[target]])
      if (!found) broken <- c(broken, paste(sub(paste0(site, "/"), "", pages[[i]], fixed = TRUE), "->", link))
    }
  }
  broken
}

# The pages that a site's index page links to, as paths from the index's folder.
index_links <- function(index) {
  links <- xml2::xml_text(xml2::xml_find_all(xml2::read_html(index), "//a/@href"))
  unique(sub("#.*$", "", links))
}

test_that("broken_links() finds a missing page and a missing anchor, and nothing else", {
  skip_if_not_installed("xml2")
  site <- tempfile("site")
  dir.create(file.path(site, "reference"), recursive = TRUE)
  on.exit(unlink(site, recursive = TRUE), add = TRUE)
  writeLines('<html><body><h1 id="top">Home</h1>
    <a href="reference/">index</a> <a href="reference/f.html#usage">f</a> <a href="#top">top</a>
    <a href="reference/g.html">g</a> <a href="reference/f.html#value">value</a>
    <a href="https://example.org/missing.html">away</a> <a href="mailto:a@b.org">mail</a>
    <img src="logo%20small.png"></body></html>', file.path(site, "index.html"))
  writeLines('<html><body><h2 id="usage">Usage</h2><a href="../index.html#top">home</a></body></html>',
             file.path(site, "reference", "f.html"))
  writeLines('<html><body><a href="f.html">f</a></body></html>', file.path(site, "reference", "index.html"))
  writeLines("", file.path(site, "logo small.png"))
  expect_setequal(broken_links(site), c("index.html -> reference/g.html",
                                        "index.html -> reference/f.html#value"))
})

skip_if_not_installed("pkgdown")
skip_if_not_installed("xml2")
skip_if_not(rmarkdown::pandoc_available(), "no pandoc: the articles cannot be rendered")
root <- normalizePath(file.path(test_path(), "..", ".."), mustWork = FALSE)
skip_if_not(file.exists(file.path(root, "_pkgdown.yml")) && file.exists(file.path(root, "tools", "build-site.R")),
            "no site configuration here (the tests of an installed package)")

site <- tempfile("site")
withr::defer(unlink(site, recursive = TRUE), teardown_env())
build_log <- tempfile("site-build", fileext = ".log")
withr::defer(unlink(build_log), teardown_env())
build_status <- withr::with_dir(root, system2(
  file.path(R.home("bin"), "Rscript"), c("tools/build-site.R", shQuote(site), "--no-examples"),
  stdout = build_log, stderr = build_log,
  env = paste0("R_LIBS=", shQuote(paste(.libPaths(), collapse = .Platform$path.sep)))))

test_that("the site builds offline", {
  expect_equal(build_status, 0L, info = paste(utils::tail(readLines(build_log), 40), collapse = "\n"))
})

test_that("every topic and every article has its page, listed in its index", {
  skip_if(build_status != 0L, "the site did not build")
  rd <- list.files(file.path(root, "man"), pattern = "[.]Rd$", full.names = TRUE)
  topics <- sub("[.]Rd$", "", basename(rd))
  expect_true(all(file.exists(file.path(site, "reference", paste0(topics, ".html")))),
              label = "every reference page exists")
  internal <- vapply(rd, function(f) any(grepl("\\keyword{internal}", readLines(f), fixed = TRUE)), logical(1))
  expect_equal(setdiff(paste0(topics[!internal], ".html"),
                       index_links(file.path(site, "reference", "index.html"))), character())
  articles <- paste0(sub("[.]Rmd$", "", list.files(file.path(root, "vignettes"), pattern = "[.]Rmd$")), ".html")
  expect_true(all(file.exists(file.path(site, "articles", articles))), label = "every article exists")
  expect_equal(setdiff(articles, index_links(file.path(site, "articles", "index.html"))), character())
})

test_that("every link between the site's pages resolves", {
  skip_if(build_status != 0L, "the site did not build")
  expect_equal(broken_links(site), character())
})

test_that("a headless Chromium draws the home page", {
  skip_if(build_status != 0L, "the site did not build")
  browser <- Sys.which(c("chromium", "chromium-browser", "google-chrome"))
  browser <- browser[nzchar(browser)]
  skip_if(length(browser) == 0L, "no Chromium here")
  screenshot <- function(url) {
    png <- tempfile(fileext = ".png")
    # the proxy that refuses every connection keeps the browser offline:
    # the pages' web fonts and scripts from CDNs are left out
    system2(browser[[1L]], c("--headless", "--no-sandbox", "--disable-gpu", "--proxy-server=127.0.0.1:9",
                             "--window-size=1280,900", paste0("--screenshot=", png), url),
            stdout = FALSE, stderr = FALSE, timeout = 120)
    png
  }
  home <- screenshot(paste0("file://", normalizePath(file.path(site, "index.html"))))
  blank <- screenshot("about:blank")
  on.exit(unlink(c(home, blank)), add = TRUE)
  expect_true(file.exists(home) && file.exists(blank), label = "both screenshots were taken")
  expect_identical(readBin(home, "raw", 8L), as.raw(c(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)))
  # text and a navigation bar compress far worse than an empty page
  expect_gt(file.size(home), 3 * file.size(blank))
})
