/* A worker's piece of a Vecchia likelihood split over a cluster (R's
 * vecchia_partition(), which cuts space into the pieces): its points and
 * the halo of earlier points their conditioning sets name. In C because it
 * reads every entry of the neighbour array: R's unique() over them took
 * seconds for a million points. */
#include <stdlib.h>

#include "gs_vecchia.h"

gs_status gs_vecchia_piece_points(const int *nn, long n, int mp1, int base, const int *piece, int which, long *count,
                                  int *local, unsigned char *halo, char *msg)
{
  unsigned char *named = (unsigned char *)calloc((size_t)n, 1);
  if (!named) return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the marks of a piece");
  for (long i = 0; i < n; ++i) {
    if (piece[i] != which) continue;
    for (int j = 0; j < mp1; ++j) {
      const int e = nn[i + (long)j * n];
      if (e >= base) named[e - base] = 1;
    }
  }
  long c = 0;
  for (long i = 0; i < n; ++i)
    if (named[i]) {
      local[c] = (int)i;
      halo[c] = piece[i] != which;
      ++c;
    }
  *count = c;
  free(named);
  return GS_OK;
}
