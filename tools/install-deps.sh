#!/bin/sh
# Make sure R, the R packages needed to build and test gpustats, those its
# vignettes use and pkgdown (which builds its reference site), and pandoc
# (which renders the vignettes) are present.
# Installs them from the Debian/Ubuntu archive when missing and we are root (or
# have password-less sudo); otherwise says what is missing and fails.
# Nothing is installed (and apt is not touched) when everything is present.
#
#   sh tools/install-deps.sh          what make test and make demo need
#   sh tools/install-deps.sh check    also what R CMD check --as-cran runs
#                                     (make check): qpdf, checkbashisms, tidy and
#                                     LaTeX for the PDF manual

RSCRIPT=${RSCRIPT:-Rscript}
PKGS="testthat cli gsl bench stabledist knitr rmarkdown fields sp sf stars terra glmmTMB gstat withr FNN maps pkgdown"
DEBS="r-base-core r-base-dev libfftw3-dev r-cran-testthat r-cran-cli r-cran-gsl r-cran-bench r-cran-stabledist r-cran-knitr r-cran-rmarkdown r-cran-fields r-cran-sp r-cran-sf r-cran-stars r-cran-terra r-cran-glmmtmb r-cran-gstat r-cran-withr r-cran-fnn r-cran-maps r-cran-pkgdown pandoc"
# commands, besides R, and the Debian packages that bring them
TOOLS="pandoc"
if [ "${1:-}" = check ]; then
  TOOLS="$TOOLS qpdf checkbashisms tidy pdflatex texi2dvi"
  DEBS="$DEBS qpdf devscripts tidy texlive-latex-base texlive-latex-recommended"
  DEBS="$DEBS texlive-fonts-recommended texlive-latex-extra texinfo"
fi

missing() {
  command -v R >/dev/null 2>&1 || { echo "R"; return; }
  command -v "$RSCRIPT" >/dev/null 2>&1 || { echo "Rscript"; return; }
  m=$("$RSCRIPT" --vanilla -e "p <- strsplit('$PKGS', ' ')[[1]]" \
        -e "m <- p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)]" \
        -e "cat(m, sep = ' ')" 2>/dev/null) || m="(R does not start)"
  for t in $TOOLS; do
    command -v "$t" >/dev/null 2>&1 || m="$m $t"
  done
  # FFTW3's header, for dct() and the polynomial transforms (configure builds without it)
  [ -f /usr/include/fftw3.h ] || m="$m libfftw3-dev"
  echo "${m# }"
}

need=$(missing)
[ -z "$need" ] && exit 0

echo "gpustats: missing: $need"
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo="sudo -n"
else
  echo "gpustats: cannot install them without root. As root, run:" >&2
  echo "  apt-get update && apt-get install -y --no-install-recommends $DEBS" >&2
  echo "or install $TOOLS and the R packages ($PKGS) into a library on R_LIBS." >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "gpustats: no apt-get here; install R, $TOOLS and the R packages $PKGS by hand." >&2
  exit 1
fi

echo "gpustats: installing $DEBS"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update || exit 1
# shellcheck disable=SC2086
$sudo apt-get install -y --no-install-recommends $DEBS || exit 1

need=$(missing)
if [ -n "$need" ]; then
  echo "gpustats: still missing after apt-get install: $need" >&2
  exit 1
fi
exit 0
