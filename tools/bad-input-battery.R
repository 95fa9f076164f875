# The bad-input battery: calls every exported function of gpustats with bad
# input, each case in its own R process (forked from this one, with the
# package loaded), under a time limit and a memory limit, and classes the
# outcome (tools/battery/classify.R).
#
#   Rscript tools/bad-input-battery.R [options]
#
#   --out DIR        output folder (default check-hard-output): cases.csv (every
#                    case), non-clean.csv, summary.txt
#   --lib DIR        library holding gpustats (default $GPUSTATS_LIB or .lib)
#   --jobs N         cases at a time (default 2 when the machine is idle, else 1)
#   --timeout S      seconds per case before it counts as a hang (default 30)
#   --mem MB         memory limit per case, ulimit -v (default 4096; 0: none)
#   --filter REGEX   only the cases whose id matches
#   --no-huge        skip the cases that ask for more memory than any machine has
#   --list           print the case ids and calls, run nothing
#   --strict         also fail on suspicious values
#   --write-fast F   write the fast, clean cases to F (the fixture of
#                    tests/testthat/test-bad-input.R) and the open ones to
#                    DIR/open-cases.txt
#   --reuse          run nothing: summarise DIR/cases.csv of an earlier run
#   --resume         run only the cases not yet in DIR/cases.csv (a run cut short)
#
# Exit status 1 when any case crashed, hung, hit the memory limit or gave an
# obscure error. A case's id is "function | argument | value"; one case
# reruns with --filter, or standalone with tools/battery/run-one.R.

parse_args <- function(argv) {
  opts <- list(out = "check-hard-output", lib = Sys.getenv("GPUSTATS_LIB", ".lib"), jobs = NA, timeout = 30,
               mem = 4096, filter = "", huge = TRUE, list = FALSE, strict = FALSE, write_fast = "",
               reuse = FALSE, resume = FALSE)
  i <- 1L
  while (i <= length(argv)) {
    a <- argv[[i]]
    value <- function() {
      if (i + 1L > length(argv)) stop("option ", a, " needs a value")
      argv[[i + 1L]]
    }
    switch(a,
      "--out" = { opts$out <- value(); i <- i + 1L },
      "--lib" = { opts$lib <- value(); i <- i + 1L },
      "--jobs" = { opts$jobs <- as.integer(value()); i <- i + 1L },
      "--timeout" = { opts$timeout <- as.numeric(value()); i <- i + 1L },
      "--mem" = { opts$mem <- as.numeric(value()); i <- i + 1L },
      "--filter" = { opts$filter <- value(); i <- i + 1L },
      "--write-fast" = { opts$write_fast <- value(); i <- i + 1L },
      "--no-huge" = opts$huge <- FALSE,
      "--list" = opts$list <- TRUE,
      "--reuse" = opts$reuse <- TRUE,
      "--resume" = opts$resume <- TRUE,
      "--strict" = opts$strict <- TRUE,
      stop("unknown option ", a)
    )
    i <- i + 1L
  }
  opts
}

script_path <- function() {
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  normalizePath(f[1L])
}

# Restarts this script under `ulimit -v` (inherited by every forked case).
rerun_with_memory_limit <- function(mb) {
  cmd <- sprintf("ulimit -v %d && GPUSTATS_BATTERY_LIMITED=1 exec %s %s %s", as.integer(mb * 1024),
                 shQuote(file.path(R.home("bin"), "Rscript")), shQuote(script_path()),
                 paste(shQuote(commandArgs(TRUE)), collapse = " "))
  quit(status = system(cmd), save = "no")
}

# Two jobs only on an idle machine (the 1-minute load below half a core).
default_jobs <- function() {
  load <- tryCatch(as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1L]), error = function(e) Inf)
  if (load < 0.5 && parallel::detectCores() >= 2L) 2L else 1L
}

# Runs the cases, `jobs` at a time, each in a forked process, and hands each
# child's record to on_done(i, record) as it comes: status "died" or
# "timeout" where the child sent none.
run_cases <- function(cases, jobs, timeout, on_done) {
  queue <- seq_along(cases)
  running <- list()
  done <- 0L
  while (length(queue) || length(running)) {
    while (length(running) < jobs && length(queue)) {
      i <- queue[[1L]]
      queue <- queue[-1L]
      job <- parallel::mcparallel(run_case(cases[[i]]), silent = TRUE)
      running[[length(running) + 1L]] <- list(i = i, job = job, start = Sys.time())
    }
    got <- suppressWarnings(parallel::mccollect(lapply(running, `[[`, "job"), wait = FALSE, timeout = 0.05))
    now <- Sys.time()
    keep <- rep(TRUE, length(running))
    for (k in seq_along(running)) {
      r <- running[[k]]
      pid <- as.character(r$job$pid)
      if (!is.null(got) && pid %in% names(got)) {
        rec <- got[[pid]]
        rec <- if (is.list(rec)) rec else list(status = "died", pid = r$job$pid)
      } else if (as.numeric(now - r$start, units = "secs") > timeout) {
        tools::pskill(r$job$pid, tools::SIGKILL)
        suppressWarnings(parallel::mccollect(r$job, wait = TRUE))
        rec <- list(status = "timeout", pid = r$job$pid)
      } else {
        next
      }
      if (is.null(rec$seconds) || is.na(rec$seconds)) rec$seconds <- as.numeric(now - r$start, units = "secs")
      keep[k] <- FALSE
      tempdir(check = TRUE) # a child that aborts removes the session's temporary folder
      done <- done + 1L
      on_done(r$i, rec)
      if (done %% 50L == 0L) message(sprintf("  %d / %d cases", done, length(cases)))
    }
    running <- running[keep]
  }
  invisible()
}

# A died case rerun in a fresh Rscript, for its exit status and last words.
crash_detail <- function(case, lib, timeout) {
  f <- tempfile(fileext = ".rds", tmpdir = tempdir(check = TRUE))
  saveRDS(case, f)
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"),
                                  c(file.path(battery_dir, "run-one.R"), shQuote(lib), shQuote(f)),
                                  stdout = TRUE, stderr = TRUE, timeout = timeout))
  status <- attr(out, "status") %||% 0L
  key <- grep("caught segfault|cause '|libgomp|AddressSanitizer|runtime error|cannot allocate|Killed|abort", out,
              value = TRUE)
  if (!length(key)) key <- utils::tail(out, 3L)
  sprintf("exit status %s: %s", status, substr(paste(unique(trimws(key)), collapse = " / "), 1L, 300L))
}

case_row <- function(case, rec, outcome, detail) {
  data.frame(id = case$id, generator = case$generator, fn = case$fn, arg = case$arg, label = case$label,
             outcome = outcome, detail = detail, seconds = round(rec$seconds %||% NA_real_, 3),
             pid = rec$pid %||% NA_integer_, invalid = case$invalid, na = case$na, huge = case$huge,
             setup = paste(c(case$setup, case$extra_setup)[nzchar(c(case$setup, case$extra_setup))], collapse = "; "),
             call = case_call(case), error_class = rec$error_class %||% "", stringsAsFactors = FALSE)
}

write_summary <- function(tab, file, opts, elapsed) {
  counts <- table(factor(tab$outcome, levels = outcome_classes))
  lines <- c(sprintf("gpustats bad-input battery: %d cases in %.0f s (%d at a time, %g s limit, %s memory limit)",
                     nrow(tab), elapsed, opts$jobs, opts$timeout,
                     if (opts$mem > 0) paste(opts$mem, "MB") else "no"),
             "", "Cases per outcome:", sprintf("  %-17s %5d", names(counts), as.integer(counts)), "",
             "Outcomes per function:")
  by_fn <- table(tab$fn, factor(tab$outcome, levels = outcome_classes))
  lines <- c(lines, utils::capture.output(print(by_fn[, colSums(by_fn) > 0, drop = FALSE])))
  bad <- tab[!tab$outcome %in% c("clean_error", "value_warning", "value"), ]
  if (nrow(bad)) {
    lines <- c(lines, "", "Cases that are not clean (outcome: case id -- detail):",
               sprintf("  %s: %s -- %s", bad$outcome, bad$id, bad$detail))
  }
  writeLines(lines, file)
  invisible(lines)
}

# The fast subset for tests/testthat: clean cases that ran in well under a
# second (setup included), that do not depend on the machine (GPU present,
# options) or on heavy setup, one per function, argument and outcome, with
# the outcome expected.
write_fast <- function(tab, file, open_file) {
  fast <- tab[tab$outcome %in% c("clean_error", "value_warning", "value") & tab$seconds < 2 &
                tab$generator != "options" & !grepl("device|gpus", tab$arg) & !tab$huge &
                !grepl("fit <- gp_fit|gb <- gbees|mc <- gbees_mc", tab$setup) &
                !tab$fn %in% c("gpu_available", "gpu_info", "gbees", "gbees_mc", "stable_fit", "gp_fit"), ]
  fast <- fast[!duplicated(fast[, c("fn", "arg", "outcome")]), ]
  expect <- ifelse(fast$outcome == "clean_error", sub(" .*", "", fast$error_class),
                   ifelse(fast$outcome == "value_warning", "warning", "value"))
  utils::write.csv(data.frame(id = fast$id, setup = fast$setup, call = fast$call, expect = expect), file,
                   row.names = FALSE)
  open <- tab[tab$outcome %in% c(failing_classes, "suspicious_value", "setup_error", "r_error"), ]
  open_lines <- sprintf("#   %s: %s", open$outcome, open$id)
  writeLines(open_lines, open_file)
  # the list of open cases in the comment of the test file beside the fixture
  test_file <- file.path(dirname(dirname(file)), "test-bad-input.R")
  if (file.exists(test_file)) {
    lines <- readLines(test_file)
    from <- grep("OPEN-CASES-BEGIN", lines)
    to <- grep("OPEN-CASES-END", lines)
    if (length(from) == 1L && length(to) == 1L && from < to) {
      writeLines(c(lines[seq_len(from)], open_lines, lines[to:length(lines)]), test_file)
    }
  }
  message(sprintf("wrote %d fast cases to %s, %d open cases to %s", nrow(fast), file, nrow(open), open_file))
}

# Runs the cases and classes each outcome as it comes, appending its row to
# `file` (so that an interrupted run keeps what it did; --resume goes on).
run_and_class <- function(cases, lib, opts, file) {
  on_done <- function(i, rec) {
    case <- cases[[i]]
    if (rec$status == "died") {
      detail <- crash_detail(case, lib, opts$timeout)
      outcome <- if (grepl(paste(memory_patterns, collapse = "|"), detail)) "memory" else "crash"
    } else if (rec$status == "timeout") {
      outcome <- "hang"
      detail <- sprintf("no result after %g s", opts$timeout)
    } else {
      outcome <- classify_record(rec, case)
      detail <- outcome_detail(rec, outcome, case)
    }
    utils::write.table(case_row(case, rec, outcome, detail), file, sep = ",", qmethod = "double",
                       row.names = FALSE, col.names = !file.exists(file), append = file.exists(file))
  }
  run_cases(cases, opts$jobs, opts$timeout, on_done)
}

main <- function() {
  opts <- parse_args(commandArgs(TRUE))
  if (opts$mem > 0 && !nzchar(Sys.getenv("GPUSTATS_BATTERY_LIMITED")) && !opts$list && !opts$reuse) {
    rerun_with_memory_limit(opts$mem)
  }
  battery_dir <<- file.path(dirname(script_path()), "battery")
  for (f in c("values.R", "cases.R", "checks.R", "child.R", "classify.R")) source(file.path(battery_dir, f))
  cases <- battery_cases()
  if (nzchar(opts$filter)) cases <- Filter(function(k) grepl(opts$filter, k$id), cases)
  if (!opts$huge) cases <- Filter(function(k) !k$huge, cases)
  if (opts$list) {
    cat(sprintf("%s\t%s\n", vapply(cases, `[[`, "", "id"), vapply(cases, case_code, "")), sep = "")
    return(invisible())
  }
  if (is.na(opts$jobs)) opts$jobs <- default_jobs()
  lib <- normalizePath(opts$lib, mustWork = TRUE)
  .libPaths(c(lib, .libPaths()))
  suppressPackageStartupMessages(library(gpustats, lib.loc = lib))
  # a first classed error (checked in R, before any native code) loads what
  # cli and rlang need once here rather than in every case
  invisible(run_case(make_case("warm-up", "bessel_k", "x", "character", character(), c(x = "'a'", nu = "1"))))
  dir.create(opts$out, showWarnings = FALSE, recursive = TRUE)
  message(sprintf("gpustats bad-input battery: %d cases, %d at a time, %g s and %s each; output in %s",
                  length(cases), opts$jobs, opts$timeout, if (opts$mem > 0) paste(opts$mem, "MB") else "no memory limit",
                  opts$out))
  started <- proc.time()[["elapsed"]]
  table_file <- file.path(opts$out, "cases.csv")
  if (!opts$reuse) {
    if (opts$resume && file.exists(table_file)) {
      seen <- utils::read.csv(table_file, stringsAsFactors = FALSE)$id
      cases <- Filter(function(k) !k$id %in% seen, cases)
      message(sprintf("resuming: %d cases done, %d to run", length(seen), length(cases)))
    } else {
      unlink(table_file)
    }
    run_and_class(cases, lib, opts, table_file)
  }
  tab <- reclass_table(utils::read.csv(table_file, stringsAsFactors = FALSE))
  utils::write.csv(tab, table_file, row.names = FALSE)
  utils::write.csv(tab[!tab$outcome %in% c("clean_error", "value_warning", "value"), ], file.path(opts$out, "non-clean.csv"),
                   row.names = FALSE)
  elapsed <- if (opts$reuse) sum(tab$seconds, na.rm = TRUE) else proc.time()[["elapsed"]] - started
  lines <- write_summary(tab, file.path(opts$out, "summary.txt"), opts, elapsed)
  cat(lines[seq_len(which(lines == "Outcomes per function:") - 2L)], sep = "\n")
  if (nzchar(opts$write_fast)) write_fast(tab, opts$write_fast, file.path(opts$out, "open-cases.txt"))
  fail <- c(failing_classes, if (opts$strict) "suspicious_value")
  n_fail <- sum(tab$outcome %in% fail)
  cat(sprintf("\n%d case(s) %s%s\n", n_fail, paste(fail, collapse = "/"),
              if (n_fail) sprintf("; see %s", file.path(opts$out, "summary.txt")) else ""))
  quit(status = if (n_fail) 1L else 0L, save = "no")
}

`%||%` <- function(a, b) if (is.null(a)) b else a

main()
