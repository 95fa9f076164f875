# Collects the reports of tools/sanitize.sh into OUT/findings.txt:
#
#   Rscript tools/battery/sanitizer-findings.R OUT
#
# UBSan and ASan reports (in the logs OUT/asan-tests.log and
# OUT/asan-battery.log) are grouped by source position and kind; each names
# the battery case (from the battery's "[battery case]" markers) or the test
# file that was running. valgrind errors (OUT/valgrind/vg.PID.log) are
# grouped by kind and the first frame in the package. Exit status 1 when
# there is any finding.

out <- commandArgs(TRUE)[[1L]]
`%||%` <- function(a, b) if (is.null(a)) b else a

# "path/src/core/x/y.h:12:3" -> "core/x/y.h:12"
short_position <- function(p) sub(":[0-9]+$", "", sub("^.*/src/", "", p))

findings <- list()
add <- function(tool, where, what, source) {
  key <- paste(tool, where, what, sep = "\r")
  f <- findings[[key]] %||% list(tool = tool, where = where, what = what, count = 0L, sources = character())
  f$count <- f$count + 1L
  f$sources <- unique(c(f$sources, source))
  findings[[key]] <<- f
}

# Walks a log, keeping track of what was running.
scan_log <- function(file, default) {
  if (!file.exists(file)) return(invisible())
  lines <- readLines(file, warn = FALSE)
  source <- default
  for (i in seq_along(lines)) {
    l <- lines[[i]]
    if (startsWith(l, "[battery case] ")) {
      source <- sub("^\\[battery case\\] ", "battery case: ", l)
    } else if (grepl("\\|\\s*[0-9]+\\s*\\|\\s*[A-Za-z0-9_.-]+", l) && default == "test suite") {
      source <- paste("test file:", sub("^.*\\|\\s*[0-9]+\\s*\\|\\s*([A-Za-z0-9_.-]+).*$", "\\1", l))
    }
    if (grepl("runtime error:", l)) {
      m <- regmatches(l, regexec("([^ ]+):([0-9]+):([0-9]+): runtime error: (.*)$", l))[[1L]]
      if (length(m)) add("UBSan", short_position(paste0(m[2], ":", m[3], ":", m[4])),
                         gsub("-?[0-9][0-9.e+-]*", "N", m[5]), source)
    }
    if (grepl("ERROR: AddressSanitizer", l)) {
      rest <- lines[i:min(length(lines), i + 60L)]
      frames <- grep(" in .*(/src/|core/)", rest, value = TRUE)
      where <- if (length(frames)) short_position(sub("^.* in [^ ]+ ([^ ]+).*$", "\\1", frames[1L])) else "?"
      add("ASan", where, sub("^.*ERROR: AddressSanitizer: ([^ ]+).*$", "\\1", l), source)
    }
  }
}
scan_log(file.path(out, "asan-tests.log"), "test suite")
scan_log(file.path(out, "asan-battery.log"), "battery")

# valgrind: each error block, with its first frame in gpustats.so.
vg_kinds <- "Invalid (read|write|free)|uninitialised|Mismatched free|Source and destination overlap|Syscall param"
vg_other <- 0L
for (f in Sys.glob(file.path(out, "valgrind", "vg.*.log"))) {
  lines <- sub("^==[0-9]+== ?", "", readLines(f, warn = FALSE))
  starts <- grep(vg_kinds, lines)
  for (s in starts) {
    block <- lines[s:min(length(lines), s + 30L)]
    blank <- which(!nzchar(block))
    if (length(blank)) block <- block[seq_len(blank[1L])]
    frame <- grep("gpustats\\.so|/src/", block, value = TRUE)
    if (!length(frame)) {
      vg_other <- vg_other + 1L
      next
    }
    where <- sub("^.*\\((.*)\\)\\s*$", "\\1", frame[1L])
    add("valgrind", where, sub("\\s+$", "", gsub("[0-9]+ bytes?", "N bytes", lines[s])), "valgrind run")
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
