#include <stdarg.h>
#include <stdio.h>

#include "gs_common.h"

gs_status gs_set_msg(char *msg, gs_status status, const char *fmt, ...)
{
  if (msg) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, GS_MSG_LEN, fmt, ap);
    va_end(ap);
  }
  return status;
}

gs_status gs_interrupted(char *msg)
{
  return gs_set_msg(msg, GS_ERR_INTERRUPTED, "interrupted; the computation was stopped and its memory released");
}
