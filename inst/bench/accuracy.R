# Accuracy of gpustats' Bessel K and Matern correlation against
# high-precision (mpmath) references, next to the peers an R user has.
#
#   Rscript inst/bench/accuracy.R [--root=PATH]     (from the package source root)
#
# `root` is the package source tree; the references are read from
#   tests/testthat/fixtures/besselk.csv  (x, nu, log_K, K, K_scaled, dlogK_dnu, dlogK_dx, region)
#   tests/testthat/fixtures/matern.csv   (z, nu, corr)
# The result is a markdown string (tables with worst and median errors).

# run from the package source root
if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

accuracy_fixture <- function(root, name) {
  cand <- c(file.path(root, "tests", "testthat", "fixtures", name),
            file.path(root, "fixtures", name))
  hit <- cand[file.exists(cand)]
  if (length(hit)) hit[1] else NA_character_
}

# Worst and median of |err| (non-finite errors count as failures).
err_summary <- function(err) {
  ok <- is.finite(err)
  c(worst = if (any(ok)) max(abs(err[ok])) else NA_real_,
    median = if (any(ok)) stats::median(abs(err[ok])) else NA_real_,
    fail = sum(!ok))
}

fmt_err <- function(s) {
  txt <- paste0(fmt_g(s[["worst"]], 2), " / ", fmt_g(s[["median"]], 2))
  if (s[["fail"]] > 0) txt <- paste0(txt, " (", s[["fail"]], " non-finite)")
  txt
}

# log K_nu(x) by each available method; a named list of numeric vectors.
logk_methods <- function(x, nu, gpu = FALSE) {
  out <- list()
  out[["gpustats (cpu)"]] <- bessel_k(x, nu, log = TRUE, device = "cpu")
  if (gpu) out[["gpustats (gpu)"]] <- bessel_k(x, nu, log = TRUE, device = "gpu")
  out[["base R besselK"]] <- suppressWarnings(log(besselK(x, nu, expon.scaled = TRUE)) - x)
  if (requireNamespace("gsl", quietly = TRUE)) {
    out[["gsl bessel_lnKnu"]] <- suppressWarnings(gsl::bessel_lnKnu(nu, x))
  }
  out
}

region_order <- function(r) {
  lev <- c("core", "small_x", "near_int", "ext_nu", "ext_x")
  factor(r, levels = c(lev, setdiff(sort(unique(r)), lev)))
}

region_label <- c(
  core = "core: nu in (0, 20], x in [1e-3, 140]",
  small_x = "small_x: x < 0.1",
  near_int = "near_int: nu near an integer or half-integer",
  ext_nu = "ext_nu: nu in (20, 100]",
  ext_x = "ext_x: x in (140, 700]"
)

accuracy_besselk <- function(ref, gpu = FALSE) {
  reg <- region_order(ref$region)
  vals <- logk_methods(ref$x, ref$nu, gpu = gpu)
  tab <- data.frame(region = levels(reg)[table(reg) > 0], stringsAsFactors = FALSE)
  tab$n <- as.integer(table(reg)[tab$region])
  for (m in names(vals)) {
    err <- vals[[m]] - ref$log_K
    tab[[m]] <- vapply(tab$region, function(r) fmt_err(err_summary(err[reg == r])), "")
  }
  all_row <- data.frame(region = "all", n = nrow(ref), stringsAsFactors = FALSE)
  for (m in names(vals)) all_row[[m]] <- fmt_err(err_summary(vals[[m]] - ref$log_K))
  tab <- rbind(tab, all_row)
  # the same errors in units of max(ulp(log K), 2^-52): the spacing of doubles
  # at log K, or a relative error of K of one machine epsilon where log K is small
  ulp <- pmax(2^(floor(log2(pmax(abs(ref$log_K), 2^-1022))) - 52), 2^-52)
  tab_ulp <- tab[, c("region", "n")]
  for (m in names(vals)) {
    err <- (vals[[m]] - ref$log_K) / ulp
    tab_ulp[[m]] <- c(vapply(tab$region[-nrow(tab)], function(r) fmt_err(err_summary(err[reg == r])), ""),
                      fmt_err(err_summary(err)))
  }
  list(table = tab, table_ulp = tab_ulp, values = vals)
}

accuracy_deriv <- function(ref, gpu = FALSE) {
  reg <- region_order(ref$region)
  devs <- c("cpu", if (gpu) "gpu")
  cols <- list()
  for (d in devs) {
    dn <- tryCatch(bessel_k_deriv(ref$x, ref$nu, wrt = "nu", device = d),
                   error = function(e) { message("note: bessel_k_deriv(wrt = \"nu\", device = \"", d,
                                                  "\") failed: ", conditionMessage(e)); NULL })
    dx <- tryCatch(bessel_k_deriv(ref$x, ref$nu, wrt = "x", device = d),
                   error = function(e) { message("note: bessel_k_deriv(wrt = \"x\", device = \"", d,
                                                  "\") failed: ", conditionMessage(e)); NULL })
    if (!is.null(dn)) cols[[sprintf("d/dnu (%s)", d)]] <- (dn - ref$dlogK_dnu) / abs(ref$dlogK_dnu)
    if (!is.null(dx)) cols[[sprintf("d/dx (%s)", d)]] <- (dx - ref$dlogK_dx) / abs(ref$dlogK_dx)
  }
  if (!length(cols)) return(NULL)
  tab <- data.frame(region = levels(reg)[table(reg) > 0], stringsAsFactors = FALSE)
  tab$n <- as.integer(table(reg)[tab$region])
  for (m in names(cols)) {
    tab[[m]] <- vapply(tab$region, function(r) fmt_err(err_summary(cols[[m]][reg == r])), "")
  }
  all_row <- data.frame(region = "all", n = nrow(ref), stringsAsFactors = FALSE)
  for (m in names(cols)) all_row[[m]] <- fmt_err(err_summary(cols[[m]]))
  rbind(tab, all_row)
}

# The formula a user writes with base R (as fields::Matern does).
matern_base_r <- function(z, nu) {
  r <- suppressWarnings(2^(1 - nu) / gamma(nu) * z^nu * besselK(z, nu))
  r[z == 0] <- 1
  r
}

nu_band <- function(nu) {
  cut(nu, c(0, 0.5, 1, 2.5, 5, 10, 20), right = TRUE,
      labels = c("(0, 0.5]", "(0.5, 1]", "(1, 2.5]", "(2.5, 5]", "(5, 10]", "(10, 20]"))
}

accuracy_matern <- function(ref, gpu = FALSE) {
  vals <- list()
  vals[["gpustats (cpu)"]] <- matern(ref$z, smoothness = ref$nu, device = "cpu")
  if (gpu) vals[["gpustats (gpu)"]] <- matern(ref$z, smoothness = ref$nu, device = "gpu")
  vals[["base R formula"]] <- matern_base_r(ref$z, ref$nu)
  band <- nu_band(ref$nu)
  zsmall <- ref$z < 1e-3
  groups <- c(split(seq_len(nrow(ref)), band),
              list("z < 1e-3, all nu" = which(zsmall), "all" = seq_len(nrow(ref))))
  groups <- groups[lengths(groups) > 0]
  tab <- data.frame(`nu band` = names(groups), n = lengths(groups),
                    stringsAsFactors = FALSE, check.names = FALSE)
  for (m in names(vals)) {
    err <- vals[[m]] - ref$corr
    tab[[m]] <- vapply(groups, function(i) fmt_err(err_summary(err[i])), "")
  }
  rownames(tab) <- NULL
  tab
}

# Markdown report; `root` is the package source tree.
accuracy_report <- function(root = ".", gpu = NA) {
  if (is.na(gpu)) gpu <- isTRUE(tryCatch(gpu_available(), error = function(e) FALSE))
  out <- c("## Accuracy against high-precision references", "",
           "Errors are `worst / median` over the rows of each group. The references were",
           "computed with mpmath at 40 significant digits.",
           if (!gpu) c("", "No GPU available in this run: GPU columns omitted."), "")
  core_worst <- NULL
  fb <- accuracy_fixture(root, "besselk.csv")
  if (is.na(fb)) {
    out <- c(out, "besselk.csv not found under `tests/testthat/fixtures`: Bessel tables skipped.", "")
  } else {
    ref <- utils::read.csv(fb, stringsAsFactors = FALSE)
    bk <- accuracy_besselk(ref, gpu = gpu)
    core <- ref$region == "core"
    core_worst <- vapply(bk$values, function(v) err_summary(v[core] - ref$log_K[core])[["worst"]], 0)
    tab <- bk$table
    tab$region <- ifelse(tab$region %in% names(region_label), region_label[tab$region], tab$region)
    out <- c(out, "### log K_nu(x): absolute error (= relative error of K)", "",
             md_table(tab, paste0("lr", strrep("r", ncol(tab) - 2))), "",
             "Base R is `log(besselK(x, nu, expon.scaled = TRUE)) - x`;",
             "gsl is `gsl::bessel_lnKnu(nu, x)`.", "")
    tu <- bk$table_ulp
    tu$region <- ifelse(tu$region %in% names(region_label), sub(":.*", "", tu$region), tu$region)
    out <- c(out, "### log K_nu(x): error in units of max(ulp(log K), 2^-52)", "",
             "The unit is the spacing of doubles at log K, or a relative error of K of",
             "2^-52 where |log K| < 2; a correctly rounded log K is within 0.5 unit.", "",
             md_table(tu, paste0("lr", strrep("r", ncol(tu) - 2))), "")
    dt <- accuracy_deriv(ref, gpu = gpu)
    if (!is.null(dt)) {
      dt$region <- ifelse(dt$region %in% names(region_label), region_label[dt$region], dt$region)
      out <- c(out, "### Derivatives of log K_nu(x): relative error", "",
               md_table(dt, paste0("lr", strrep("r", ncol(dt) - 2))), "")
    }
  }
  fm <- accuracy_fixture(root, "matern.csv")
  if (is.na(fm)) {
    out <- c(out, "matern.csv not found under `tests/testthat/fixtures`: Matern table skipped.", "")
  } else {
    ref <- utils::read.csv(fm, stringsAsFactors = FALSE)
    mt <- accuracy_matern(ref, gpu = gpu)
    out <- c(out, "### Matern correlation: absolute error", "",
             md_table(mt, paste0("lr", strrep("r", ncol(mt) - 2))), "",
             "corr(z) = 2^(1-nu) / Gamma(nu) z^nu K_nu(z); z = d / range, corr(0) = 1.",
             "Base R formula: `2^(1-nu) / gamma(nu) * z^nu * besselK(z, nu)`.", "")
  }
  structure(paste(out, collapse = "\n"), core = core_worst)
}

if (sys.nframe() == 0L) {
  cat(accuracy_report(root = bench_opt("root", ".")), "\n")
}
