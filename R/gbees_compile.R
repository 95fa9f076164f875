# A model's or a measurement's expressions compiled for the CPU: the program
# of gs_gbees_field_program (the package's field arithmetic,
# gbees_field_math.h, around the field or the measurement function) built by
# the C compiler R uses for packages
# (R CMD SHLIB, with the flags of R's Makeconf) into a library in tempdir(),
# loaded with dyn.load and kept for the session, one per program text, so
# that a model or measurement made again from the same expressions is not
# compiled again.
# Each process builds in its own folder: forked processes (parallel's
# mclapply) share tempdir(), and two compiling the same program into one
# file loaded each other's half-written library.

gbees_jit <- new.env(parent = emptyenv())
gbees_jit$libraries <- list() # md5 of the program -> its entry points
gbees_jit$compilations <- 0L

# The native entry points of expressions compiled for the CPU, a list named
# by their symbols: of a model's field (gs_gbees_velocities_fn,
# gs_gbees_rk4_fn) or of a measurement function (gs_gbees_loglik_fn), whose
# source (gbees_expression_source) was made from `expressions`, on a grid of
# `dim` states.
gbees_program_entries <- list(model = c("gbees_user_velocities", "gbees_user_rk4"), measurement = "gbees_user_loglik")

gbees_compiled_program <- function(source, expressions, dim, call, kind = "model") {
  program <- .Call(gs_r_gbees_field_program, source, as.integer(dim), kind == "measurement")
  dir <- file.path(tempdir(), "gpustats-gbees", Sys.getpid())
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  draft <- tempfile("draft", tmpdir = dir, fileext = ".c")
  writeLines(program, draft)
  hash <- unname(tools::md5sum(draft))
  native <- gbees_jit$libraries[[hash]]
  if (!is.null(native)) {
    unlink(draft)
    return(native)
  }
  c_file <- file.path(dir, paste0("gbees_field_", hash, ".c"))
  file.rename(draft, c_file)
  library <- sub("\\.c$", .Platform$dynlib.ext, c_file)
  gbees_compile(c_file, library, expressions, kind, call)
  dll <- tryCatch(dyn.load(library), error = function(e) {
    cli::cli_abort(c("The {kind}'s compiled library {.file {library}} does not load.", x = conditionMessage(e),
                     i = "Is {.fn tempdir} on a file system that allows running code from it?"),
                   class = c("gpustats_error_compile", "gpustats_error"), call = call)
  })
  entries <- gbees_program_entries[[kind]]
  native <- stats::setNames(lapply(entries, function(name) getNativeSymbolInfo(name, dll)$address), entries)
  gbees_jit$libraries[[hash]] <- native
  gbees_jit$compilations <- gbees_jit$compilations + 1L
  native
}

# R's C compiler for packages: the command line of R CMD config CC.
gbees_c_compiler <- function() {
  cc <- tryCatch(suppressWarnings(system2(file.path(R.home("bin"), "R"), c("CMD", "config", "CC"), stdout = TRUE,
                                          stderr = FALSE)), error = function(e) character())
  trimws(paste(cc, collapse = " "))
}

# Whether R's C compiler is installed (the program its command line starts
# with is on the PATH).
gbees_has_c_compiler <- function(cc = gbees_c_compiler()) {
  words <- strsplit(cc, "[[:space:]]+")[[1L]]
  length(words) > 0L && nzchar(Sys.which(words[1L]))
}

gbees_compile <- function(c_file, library, expressions, kind, call) {
  cc <- gbees_c_compiler()
  if (!gbees_has_c_compiler(cc)) {
    tool <- if (nzchar(cc)) cc else "a C compiler"
    cli::cli_abort(c("A {kind} given as expressions runs on the CPU as C compiled by R's compiler for packages, {.code {tool}}, which is not installed.",
                     i = "Install it (on Debian: {.code apt-get install r-base-dev}), run on a GPU ({.code device = \"gpu\"}), or give the {if (kind == 'model') 'field' else 'measurement function'} as an R function."),
                   class = c("gpustats_error_no_compiler", "gpustats_error"), call = call)
  }
  old <- setwd(dirname(c_file))
  on.exit(setwd(old))
  out <- suppressWarnings(system2(file.path(R.home("bin"), "R"),
                                  c("CMD", "SHLIB", "-o", shQuote(basename(library)), shQuote(basename(c_file))),
                                  stdout = TRUE, stderr = TRUE))
  if (is.null(attr(out, "status")) && file.exists(library)) return(invisible())
  unlink(library)
  gbees_compile_failed(out, c_file, expressions, kind, cc, call)
}

# The compiler's message, and the expressions of the lines it complains of.
gbees_compile_failed <- function(out, c_file, expressions, kind, cc, call) {
  program <- readLines(c_file)
  lines <- as.integer(regmatches(out, regexpr(paste0("(?<=", basename(c_file), ":)[0-9]+"), out, perl = TRUE)))
  marked <- vapply(seq_along(expressions), function(k) {
    at <- grep(gbees_component_marker(k), program, fixed = TRUE)
    length(at) == 1L && at %in% lines
  }, TRUE)
  culprits <- if (any(marked)) sprintf("component %d: %s", which(marked), expressions[marked]) else expressions
  # the compiler's own lines, without make's command and summary
  log <- paste(out[!grepl("^make|[[:space:]]-c[[:space:]].*[[:space:]]-o[[:space:]]", out)], collapse = "\n")
  cli::cli_abort(c("The {kind}'s expressions do not compile with {.code {cc}}.",
                   x = "{if (any(marked)) 'The compiler rejects' else 'The expressions are'} {.code {culprits}}.",
                   i = "The compiler said:", " " = "{log}"),
                 class = c("gpustats_error_compile", "gpustats_error"), call = call)
}
