# Collects the reports of tools/sanitize.sh into OUT/findings.txt:
#
#   Rscript tools/battery/sanitizer-findings.R OUT
#
# UBSan and ASan reports (OUT/asan/{ubsan,asan}.PID) are grouped by source
# position and kind; each names the battery case whose process wrote it (by
# pid, from OUT/battery/cases.csv) or "test suite". valgrind errors
# (OUT/valgrind/vg.PID.log) are grouped by kind and the first frame in the
# package. Exit status 1 when there is any finding.

out <- commandArgs(TRUE)[[1L]]
cases <- file.path(out, "battery", "cases.csv")
case_of_pid <- if (file.exists(cases)) {
  tab <- utils::read.csv(cases, stringsAsFactors = FALSE)
  stats::setNames(paste0(tab$id, "  [", ifelse(nzchar(tab$setup), paste0(tab$setup, "; "), ""), tab$call, "]"),
                  tab$pid)
} else character()

source_of <- function(pid) {
  s <- case_of_pid[as.character(pid)]
  ifelse(is.na(s), "test suite", s)
}

# "path/src/core/x/y.h:12:3" -> "src/core/x/y.h:12"
short_position <- function(p) sub(":[0-9]+$", "", sub("^.*/(src/)", "\\1", p))

pid_of <- function(f) sub("^.*\\.([0-9]+)(\\.log)?$", "\\1", f)

findings <- list()
add <- function(tool, where, what, pid) {
  key <- paste(tool, where, what, sep = "\r")
  f <- findings[[key]] %||% list(tool = tool, where = where, what = what, count = 0L, sources = character())
  f$count <- f$count + 1L
  f$sources <- unique(c(f$sources, source_of(pid)))
  findings[[key]] <<- f
}
`%||%` <- function(a, b) if (is.null(a)) b else a

# UBSan: "FILE:LINE:COL: runtime error: MESSAGE"
for (f in Sys.glob(file.path(out, "asan", "ubsan.*"))) {
  for (l in grep("runtime error:", readLines(f, warn = FALSE), value = TRUE)) {
    where <- short_position(sub(": runtime error:.*$", "", l))
    what <- gsub("-?[0-9][0-9.e+-]*", "N", sub("^.*runtime error: ", "", l))
    add("UBSan", where, what, pid_of(f))
  }
}

# ASan: the error line and the first frame in the package's sources.
for (f in Sys.glob(file.path(out, "asan", "asan.*"))) {
  lines <- readLines(f, warn = FALSE)
  starts <- grep("ERROR: AddressSanitizer", lines)
  for (s in starts) {
    frames <- grep(" in .*/src/", lines[s:length(lines)], value = TRUE)
    where <- if (length(frames)) short_position(sub("^.* (/[^ ]*/src/[^ ]*).*$", "\\1", frames[1L])) else "?"
    add("ASan", where, sub("^.*ERROR: AddressSanitizer: ([^ ]+).*$", "\\1", lines[s]), pid_of(f))
  }
}

# valgrind: each error block, with its first frame in gpustats.so.
vg_kinds <- "Invalid (read|write|free)|uninitialised|Mismatched free|Source and destination overlap|Syscall param"
vg_other <- 0L
for (f in Sys.glob(file.path(out, "valgrind", "vg.*.log"))) {
  lines <- sub("^==[0-9]+== ?", "", readLines(f, warn = FALSE))
  starts <- grep(vg_kinds, lines)
  for (s in starts) {
    block <- lines[s:min(length(lines), s + 30L)]
    block <- block[seq_len(which(!nzchar(block))[1L] %||% length(block))]
    frame <- grep("gpustats\\.so|/src/", block, value = TRUE)
    if (!length(frame)) {
      vg_other <- vg_other + 1L
      next
    }
    where <- sub("^.*\\((.*)\\)\\s*$", "\\1", frame[1L])
    add("valgrind", where, sub("\\s+$", "", gsub("[0-9]+ bytes?", "N bytes", lines[s])), pid_of(f))
  }
}

lines <- c(sprintf("gpustats sanitizer findings (%s)", out), "")
if (!length(findings)) {
  lines <- c(lines, "No findings in the package's code.")
} else {
  for (f in findings[order(vapply(findings, `[[`, "", "tool"), vapply(findings, `[[`, "", "where"))]) {
    lines <- c(lines, sprintf("%s %s: %s (%d report%s)", f$tool, f$where, f$what, f$count, if (f$count == 1L) "" else "s"),
               paste0("    ", utils::head(f$sources, 3L)),
               if (length(f$sources) > 3L) sprintf("    ... and %d more", length(f$sources) - 3L), "")
  }
}
vg_logs <- Sys.glob(file.path(out, "valgrind", "vg.*.log"))
if (length(vg_logs)) {
  summary <- unlist(lapply(vg_logs, function(f) grep("ERROR SUMMARY", readLines(f, warn = FALSE), value = TRUE)))
  lines <- c(lines, sprintf("valgrind: %d log(s); errors outside the package's code: %d", length(vg_logs), vg_other),
             unique(sub("^==[0-9]+== ", "  ", summary)))
}
writeLines(lines, file.path(out, "findings.txt"))
cat(lines, sep = "\n")
quit(status = if (length(findings)) 1L else 0L, save = "no")
