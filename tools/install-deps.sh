#!/bin/sh
# Make sure R and the R packages needed to build and test gpustats are present.
# Installs them from the Debian/Ubuntu archive when missing and we are root (or
# have password-less sudo); otherwise says what is missing and fails.
# Nothing is installed (and apt is not touched) when everything is present.

RSCRIPT=${RSCRIPT:-Rscript}
PKGS="testthat cli gsl bench stabledist knitr"
DEBS="r-base-core r-base-dev r-cran-testthat r-cran-cli r-cran-gsl r-cran-bench r-cran-stabledist r-cran-knitr"

missing() {
  command -v R >/dev/null 2>&1 || { echo "R"; return; }
  command -v "$RSCRIPT" >/dev/null 2>&1 || { echo "Rscript"; return; }
  "$RSCRIPT" --vanilla -e "p <- strsplit('$PKGS', ' ')[[1]]" \
    -e "m <- p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)]" \
    -e "cat(m, sep = ' ')" 2>/dev/null || echo "(R does not start)"
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
  echo "or install the R packages ($PKGS) into a library on R_LIBS." >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "gpustats: no apt-get here; install R and the R packages $PKGS by hand." >&2
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
