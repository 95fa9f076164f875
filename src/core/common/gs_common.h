/* Shared definitions of the R-free core: the host/device qualifier used by
 * every numerical kernel, status codes and the message buffer convention. */
#ifndef GS_COMMON_H
#define GS_COMMON_H

#include <stddef.h>

#ifdef __CUDACC__
#define GS_HD __host__ __device__
#elif defined(__GNUC__)
/* Inlined into every caller, so that the FMA clones of the CPU loops
 * (GS_CPU_DISPATCH) compile the whole kernel with FMA instructions. */
#define GS_HD __attribute__((always_inline))
#else
#define GS_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The outcomes of a core call, each with the name of its R condition class
 * (gpustats_error_<name>). Written once: the enum below and the table that
 * the R glue hands to R (gs_r_tables) are generated from this list,
 * so a kind added here reaches R by name.
 *   GS_ERR_ARG          an invalid argument (the message says which)
 *   GS_ERR_NOMEM        a host or device allocation failed, or would not fit
 *   GS_ERR_NO_GPU       no usable GPU, or a build without CUDA
 *   GS_ERR_CUDA         a CUDA runtime or library call failed
 *   GS_ERR_INTERRUPTED  the user interrupted a long computation
 *   GS_ERR_NOT_PD       a matrix is not positive definite */
#define GS_STATUS_KINDS(X)              \
  X(GS_OK, "ok")                        \
  X(GS_ERR_ARG, "argument")             \
  X(GS_ERR_NOMEM, "memory")             \
  X(GS_ERR_NO_GPU, "no_gpu")            \
  X(GS_ERR_CUDA, "cuda")                \
  X(GS_ERR_INTERRUPTED, "interrupted")  \
  X(GS_ERR_NOT_PD, "not_pd")

#define GS_STATUS_ENUM_ENTRY(code, name) code,
typedef enum { GS_STATUS_KINDS(GS_STATUS_ENUM_ENTRY) GS_STATUS_COUNT } gs_status;
#undef GS_STATUS_ENUM_ENTRY

/* What the evaluation of one element may decline (gs_op_eval's fast):
 * nothing; the elements that take far longer than the typical one (a GPU
 * evaluates them in a second pass); or every element that needs more than
 * a closed form or a series (a GPU's key pass evaluates the others, so
 * that the first pass's warps hold only elements of one kind). */
enum { GS_EVAL_ALL = 0, GS_EVAL_FIRST = 1, GS_EVAL_CHEAP = 2 };

/* Every entry point that can fail takes a caller-owned buffer of this size
 * and writes a one-line explanation into it. */
#define GS_MSG_LEN 512

/* Set by the caller (the R glue): long computations call it between batches
 * with the fraction of the work done, from the thread that entered the core;
 * a non-zero return asks them to stop (GS_ERR_INTERRUPTED). May be NULL. */
typedef int (*gs_progress_fn)(double done);

gs_status gs_set_msg(char *msg, gs_status status, const char *fmt, ...);
/* GS_ERR_INTERRUPTED, with its message. */
gs_status gs_interrupted(char *msg);

#ifdef __cplusplus
}
#endif

#endif
