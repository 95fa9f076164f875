# Methods of the sht class (spherical-harmonic coefficients).

# The power per degree, sum_m C_lm^2 + S_lm^2: an (lmax + 1) x nfield matrix.
sht_power <- function(x) apply(x$cos^2 + x$sin^2, c(1L, 3L), sum)

#' @export
print.sht <- function(x, ...) {
  validate_sht(x, "x", environment())
  nf <- dim(x$cos)[3]
  cat(sprintf("<sht> real spherical-harmonic coefficients, degrees 0..%d, %d field%s (%s grid %d x %d)\n",
              x$lmax, nf, if (nf == 1L) "" else "s", x$grid$kind, x$grid$nlat, x$grid$nlon))
  p <- sht_power(x)
  cat(sprintf("  total power (mean square x 4 pi): %s\n", paste(format(colSums(p), digits = 6), collapse = ", ")))
  invisible(x)
}

#' @export
as.data.frame.sht <- function(x, row.names = NULL, optional = FALSE, ...) {
  validate_sht(x, "x", environment())
  L <- x$lmax + 1L
  nf <- dim(x$cos)[3]
  idx <- expand.grid(l = 0:(L - 1L), m = 0:(L - 1L), field = seq_len(nf))
  keep <- idx$m <= idx$l
  data.frame(idx[keep, ], cos = as.vector(x$cos)[keep], sin = as.vector(x$sin)[keep], row.names = row.names)
}

#' @export
plot.sht <- function(x, ...) {
  validate_sht(x, "x", environment())
  p <- sht_power(x)
  l <- seq_len(nrow(p)) - 1L
  ok <- p > 0
  graphics::matplot(l, ifelse(ok, p, NA), type = "l", log = "y", lty = 1, xlab = "degree l",
                    ylab = "power per degree", main = "Spherical-harmonic power spectrum", ...)
  invisible(x)
}
