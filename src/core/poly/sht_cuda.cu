/* Spherical-harmonic transforms on the GPU: cuFFT along the latitudes (read
 * and written in R's column-major layout through strides), and the Legendre
 * sums by the CPU's scheme (sht_legendre_cpu.c): the lanes of sht_lanes_make
 * (a latitude and its mirror share one recurrence, the even and odd degrees
 * summed apart), sorted from the equator, a lane scaled until its values
 * pass 2^-1000 and plain after (poly_math.h's arithmetic).
 *
 * A block takes one order m and SHT_BLOCK * K lanes (K per thread, for
 * instruction-level parallelism); the recurrence coefficients and the
 * synthesis coefficients of 128 degrees at a time are computed or read once
 * per block into shared memory. Analysis sums each thread's K lanes in
 * registers for SHT_SUB = 16 degrees at a time, then reduces the 32 sums
 * (cos and sin) over the warp with 31 shuffles (each lane ends with one of
 * them), over the block in shared memory, and adds the block's sums with
 * one atomic each.
 * Blocks whose lanes are all dropped (nearer a pole than where Pbar_l^m
 * passes 2^-600 for any l <= lmax) are found first, from their most
 * equatorial lane, and skipped, as the CPU stops at its first such block. */
#include <cufft.h>

#include "gs_gpu_ctx.cuh"
#include "gs_poly.h"
#include "poly_math.h"
#include "sht_cuda.cuh"
#include "sht_internal.h"

#define SHT_BLOCK 128 /* threads; also the degrees staged at a time */
#define SHT_SUB 16    /* degrees between reductions: cos and sin sums make one value a lane */
#define SHT_WARPS (SHT_BLOCK / 32)
#define SQRT2 1.4142135623730950488
#define FULL_MASK 0xffffffffu

static gs_status cufft_check(cufftResult r, const char *what, char *msg)
{
  if (r == CUFFT_SUCCESS) return GS_OK;
  return gs_set_msg(msg, r == CUFFT_ALLOC_FAILED ? GS_ERR_NOMEM : GS_ERR_CUDA, "cuFFT %s failed (status %d)", what,
                    (int)r);
}

/* The recurrence state of one lane: scaled (on = 0, value u 2^e, dropped)
 * or plain (on = 1, e = 0), as the CPU's sht_block. */
typedef struct {
  double u, um1, on;
  int e;
} lane_state;

static __device__ inline void lane_unscale(lane_state *s)
{
  if (s->on == 0.0 && s->e >= ALP_MIN_EXP) {
    const double f = ldexp(1.0, s->e);
    s->u *= f, s->um1 *= f, s->e = 0, s->on = 1.0;
  }
}

static __device__ inline lane_state lane_start(int m, double sin_t, double seed)
{
  const alp_iter it = alp_start(m, sin_t, seed);
  lane_state s = {it.u, 0.0, 0.0, it.e};
  lane_unscale(&s);
  return s;
}

/* One degree up; returns the value (0 while scaled). CHECKED: some lane of
 * the warp may still be scaled. */
template <bool CHECKED>
static __device__ inline double lane_step(lane_state *s, double A, double B, double x, double x_lo)
{
  const double next = alp_step(s->u, s->um1, A, B, x, x_lo);
  s->um1 = s->u, s->u = next;
  if (!CHECKED) return next;
  const double p = next * s->on;
  if (s->on == 0.0 && fabs(next) > POLY_SCALE_BIG) {
    poly_rescale(&s->u, &s->um1, &s->e);
    lane_unscale(s);
  }
  return p;
}

/* Whether block b of order m has a lane that is not dropped: its first
 * lane, the nearest the equator, turns plain by degree lmax. */
__global__ void sht_needed_kernel(sht_dev d, int lanes_per_block, unsigned char *needed)
{
  const long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long)d.nblk * (d.lmax + 1)) return;
  const int b = (int)(idx % d.nblk), m = (int)(idx / d.nblk);
  const long j = (long)b * lanes_per_block;
  lane_state s = lane_start(m, d.sin_t[j], d.seed[m]);
  for (int l = m + 1; l <= d.lmax && s.on == 0.0; ++l)
    lane_step<true>(&s, alp_rec_a(l, m), alp_rec_b(l, m), d.x[j], d.x_lo[j]);
  needed[idx] = s.on != 0.0;
}

/* Sums over the warp of v[i], i < 32: lane i gets sum i, by 31 shuffles
 * (a reduce-scatter: at each halving a lane keeps the half of the sums its
 * index bit selects and adds its partner's copy of that half). */
static __device__ inline double warp_reduce_scatter(double (&v)[32], int lane)
{
#pragma unroll
  for (int step = 1; step < 32; step *= 2) {
    const int off = 16 / step;
    const bool up = lane & off;
#pragma unroll
    for (int i = 0; i < off; ++i) {
      const double send = up ? v[i] : v[i + off], keep = up ? v[i + off] : v[i];
      v[i] = keep + __shfl_xor_sync(FULL_MASK, send, off);
    }
  }
  return v[0];
}

static __device__ inline double warp_sum(double v)
{
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(FULL_MASK, v, o);
  return v;
}

/* The per-thread part of a block: K lanes, their nodes and sums. For
 * synthesis v[k] holds the cos and sin sums of even (0, 1) and odd (2, 3)
 * l - m; for analysis the weighted longitude integrals (cos, sin) for even
 * (0, 1) and odd (2, 3) l - m. */
template <int K>
struct lanes_k {
  lane_state s[K];
  double x[K], x_lo[K], v[K][4];
};

/* Synthesis over SHT_SUB degrees from l - m = 1 + off (off even): ab, cf
 * the staged recurrence and synthesis coefficients of these degrees. Two
 * degrees a step, so that the parity is known; not unrolled further, as the
 * loop must fit the instruction cache. */
template <int K, bool CHECKED>
static __device__ inline void synthesis_sub(lanes_k<K> *t, const double2 *ab, const double2 *cf)
{
#pragma unroll 2
  for (int i = 0; i < SHT_SUB; i += 2) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const double2 r = ab[i + j], c = cf[i + j];
      const int par = j ? 0 : 2; /* l - m = 1 + off + i + j */
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const double p = lane_step<CHECKED>(&t->s[k], r.x, r.y, t->x[k], t->x_lo[k]);
        t->v[k][par] = fma(c.x, p, t->v[k][par]);
        t->v[k][par + 1] = fma(c.y, p, t->v[k][par + 1]);
      }
    }
  }
}

/* Analysis over SHT_SUB degrees as synthesis_sub: the thread's K lanes
 * summed in registers, cos sums in v[0 .. 15], sin sums in v[16 .. 31],
 * reduced over the warp into *red (lane i < 16: cos of degree i, else sin of
 * degree i - 16). */
template <int K, bool CHECKED>
static __device__ inline void analysis_sub(lanes_k<K> *t, const double2 *ab, double *red, int lane)
{
  double v[2 * SHT_SUB];
#pragma unroll
  for (int i = 0; i < SHT_SUB; ++i) {
    const double2 r = ab[i];
    const int par = i % 2 ? 0 : 2;
    v[i] = v[SHT_SUB + i] = 0.0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const double p = lane_step<CHECKED>(&t->s[k], r.x, r.y, t->x[k], t->x_lo[k]);
      v[i] = fma(p, t->v[k][par], v[i]);
      v[SHT_SUB + i] = fma(p, t->v[k][par + 1], v[SHT_SUB + i]);
    }
  }
  *red = warp_reduce_scatter(v, lane);
}

/* Loads lanes, starts their recurrences and returns the l = m terms:
 * synthesis adds them to the sums, analysis returns their (cos, sin). */
template <int K, bool AN>
static __device__ inline double2 block_start(const sht_dev &d, lanes_k<K> *t, long j0, int m, const double *cs,
                                             const double *sn, const double2 *spec)
{
  const int L = d.lmax + 1;
  const double seed = d.seed[m], sc = m ? d.dphi * SQRT2 : d.dphi;
  double2 first = make_double2(0.0, 0.0);
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const long j = j0 + 32L * k;
    const int in = d.north[j], is = d.south[j];
    t->x[k] = d.x[j], t->x_lo[k] = d.x_lo[j];
    t->s[k] = lane_start(m, d.sin_t[j], seed);
    const double p = t->s[k].u * t->s[k].on;
    if (AN) {
      const double2 gn = in >= 0 ? spec[in * d.nspec + m] : make_double2(0.0, 0.0);
      const double2 gs = is >= 0 ? spec[is * d.nspec + m] : make_double2(0.0, 0.0);
      const double wn = d.w_n[j] * sc, ws = d.w_s[j] * sc;
      const double cn = wn * gn.x, snn = -wn * gn.y, cso = ws * gs.x, sso = -ws * gs.y;
      t->v[k][0] = cn + cso, t->v[k][1] = snn + sso, t->v[k][2] = cn - cso, t->v[k][3] = snn - sso;
      first.x = fma(p, t->v[k][0], first.x), first.y = fma(p, t->v[k][1], first.y);
    } else {
      t->v[k][0] = cs[m + (size_t)L * m] * p, t->v[k][1] = sn[m + (size_t)L * m] * p;
      t->v[k][2] = t->v[k][3] = 0.0;
    }
  }
  return first;
}

/* Synthesis: writes the block's lanes' rows of the half spectrum. */
template <int K>
static __device__ inline void synthesis_store(const sht_dev &d, const lanes_k<K> *t, long j0, int m, double2 *spec)
{
  const double f = m ? 1.0 / SQRT2 : 1.0;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const long j = j0 + 32L * k;
    const int in = d.north[j], is = d.south[j];
    const double *v = t->v[k];
    if (in >= 0) spec[in * d.nspec + m] = make_double2((v[0] + v[2]) * f, m ? -(v[1] + v[3]) * f : 0.0);
    if (is >= 0) spec[is * d.nspec + m] = make_double2((v[0] - v[2]) * f, m ? -(v[1] - v[3]) * f : 0.0);
  }
}

/* Analysis: the block's sums of one degree l onto the coefficients; red
 * points to the cos sum of the first warp, the warps' sums SHT_RED apart and
 * the sin sums SHT_SUB after the cos sums. */
#define SHT_RED 32
static __device__ inline void analysis_add(const double *red, int l, int m, int L, double *cs, double *sn)
{
  double c = 0.0, s = 0.0;
  for (int w = 0; w < SHT_WARPS; ++w) c += red[w * SHT_RED], s += red[w * SHT_RED + SHT_SUB];
  atomicAdd(cs + l + (size_t)L * m, c);
  atomicAdd(sn + l + (size_t)L * m, s);
}

template <int K, bool AN>
__global__ void __launch_bounds__(SHT_BLOCK) sht_legendre_kernel(sht_dev d, const double *cs_in, const double *sn_in,
                                                                   double2 *spec, double *cs_out, double *sn_out)
{
  __shared__ double2 ab[SHT_BLOCK], cf[SHT_BLOCK];
  __shared__ double red[SHT_BLOCK / SHT_SUB][SHT_WARPS][SHT_RED]; /* [sub-chunk][warp][lane] */
  const int m = blockIdx.y, L = d.lmax + 1, tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  if (!d.needed[(size_t)m * d.nblk + blockIdx.x]) return;
  const long j0 = ((long)blockIdx.x * SHT_WARPS + warp) * 32 * K + lane;
  lanes_k<K> t;
  double2 first = block_start<K, AN>(d, &t, j0, m, cs_in, sn_in, spec);
  if (AN) {
    first.x = warp_sum(first.x), first.y = warp_sum(first.y);
    if (lane == 0) red[0][warp][0] = first.x, red[0][warp][SHT_SUB] = first.y;
    __syncthreads();
    if (tid == 0) analysis_add(&red[0][0][0], m, m, L, cs_out, sn_out);
  }
  for (int l0 = m + 1; l0 <= d.lmax; l0 += SHT_BLOCK) {
    __syncthreads(); /* the previous chunk's ab, cf and red are read */
    const int l = l0 + tid;
    ab[tid] = l <= d.lmax ? make_double2(alp_rec_a(l, m), alp_rec_b(l, m)) : make_double2(0.0, 0.0);
    if (!AN) cf[tid] = l <= d.lmax ? make_double2(cs_in[l + (size_t)L * m], sn_in[l + (size_t)L * m]) : make_double2(0.0, 0.0);
    __syncthreads();
    for (int sub = 0; sub < SHT_BLOCK / SHT_SUB && l0 + sub * SHT_SUB <= d.lmax; ++sub) {
      int plain = 1;
#pragma unroll
      for (int k = 0; k < K; ++k) plain &= t.s[k].on != 0.0;
      const int o = sub * SHT_SUB;
      plain = __all_sync(FULL_MASK, plain);
      if (AN && plain) analysis_sub<K, false>(&t, ab + o, &red[sub][warp][lane], lane);
      else if (AN) analysis_sub<K, true>(&t, ab + o, &red[sub][warp][lane], lane);
      else if (plain) synthesis_sub<K, false>(&t, ab + o, cf + o);
      else synthesis_sub<K, true>(&t, ab + o, cf + o);
    }
    if (AN) {
      __syncthreads();
      if (l <= d.lmax) analysis_add(&red[tid / SHT_SUB][0][tid % SHT_SUB], l, m, L, cs_out, sn_out);
    }
  }
  if (!AN) synthesis_store<K>(d, &t, j0, m, spec);
}

/* The row FFTs of one field: values (nlat x nlon, column-major) <-> spec (nlat x nspec, row-major). */
static cufftResult sht_plan(long nlat, long nlon, int analysis, cudaStream_t s, cufftHandle *p)
{
  int n = (int)nlon, nspec = (int)(nlon / 2 + 1), vemb = (int)nlon, semb = nspec;
  cufftResult r = analysis ? cufftPlanMany(p, 1, &n, &vemb, (int)nlat, 1, &semb, 1, nspec, CUFFT_D2Z, (int)nlat)
                           : cufftPlanMany(p, 1, &n, &semb, 1, nspec, &vemb, (int)nlat, 1, CUFFT_Z2D, (int)nlat);
  return r == CUFFT_SUCCESS ? cufftSetStream(*p, s) : r;
}

/* Lanes per thread: more where there are lanes enough to fill the blocks. */
static int sht_lanes_per_thread(long nlanes) { return nlanes >= 16L * SHT_BLOCK ? 4 : nlanes >= 4L * SHT_BLOCK ? 2 : 1; }

static gs_status sht_host_lanes_make(const gs_sht_args *a, int per_block, sht_host_lanes *h, int *nblk)
{
  sht_lanes ln;
  const int L = a->lmax + 1;
  if (sht_lanes_make(a, &ln) != GS_OK) return GS_ERR_NOMEM;
  *nblk = (int)((ln.n + per_block - 1) / per_block);
  h->nl = (size_t)*nblk * per_block;
  h->bytes = (5 * h->nl + L) * sizeof(double) + 2 * h->nl * sizeof(int);
  h->buf = malloc(h->bytes);
  if (!h->buf) {
    sht_lanes_free(&ln);
    return GS_ERR_NOMEM;
  }
  double *dp = (double *)h->buf;
  h->x = dp, h->x_lo = dp + h->nl, h->sin_t = dp + 2 * h->nl, h->w_n = dp + 3 * h->nl, h->w_s = dp + 4 * h->nl;
  h->seed = dp + 5 * h->nl;
  h->north = (int *)(h->seed + L), h->south = h->north + h->nl;
  for (size_t k = 0; k < h->nl; ++k) {
    const int real = k < (size_t)ln.n;
    h->north[k] = real ? (int)ln.north[k] : -1, h->south[k] = real ? (int)ln.south[k] : -1;
    h->x[k] = real ? ln.x[k] : 0.0, h->x_lo[k] = real ? ln.x_lo[k] : 0.0, h->sin_t[k] = real ? ln.sin_t[k] : 1.0;
    h->w_n[k] = real ? ln.w_n[k] : 0.0, h->w_s[k] = real ? ln.w_s[k] : 0.0;
  }
  double c = ALP_SEED_C0;
  for (int m = 0; m < L; ++m) {
    if (m) c = alp_seed_c(c, m);
    h->seed[m] = alp_seed_of(c, m);
  }
  sht_lanes_free(&ln);
  return GS_OK;
}

template <int K>
static void sht_launch(const sht_dev &d, int analysis, const double *cs, const double *sn, double2 *spec,
                       cudaStream_t s)
{
  const dim3 grid((unsigned)d.nblk, (unsigned)(d.lmax + 1));
  if (analysis) sht_legendre_kernel<K, true><<<grid, SHT_BLOCK, 0, s>>>(d, NULL, NULL, spec, (double *)cs, (double *)sn);
  else sht_legendre_kernel<K, false><<<grid, SHT_BLOCK, 0, s>>>(d, cs, sn, spec, NULL, NULL);
}

static void sht_legendre_gpu(const sht_dev &d, int K, int analysis, double *cs, double *sn, double2 *spec,
                             cudaStream_t s)
{
  if (K == 4) sht_launch<4>(d, analysis, cs, sn, spec, s);
  else if (K == 2) sht_launch<2>(d, analysis, cs, sn, spec, s);
  else sht_launch<1>(d, analysis, cs, sn, spec, s);
}

/* Where host array p of the lanes' buffer lies in its device copy at work. */
template <typename T>
static const T *dev_ptr(char *work, const sht_host_lanes *h, const T *p)
{
  return (const T *)(work + ((const char *)p - (const char *)h->buf));
}

/* Uploads the lanes into the front of work and finds the needed blocks
 * (flags just after the lanes); returns the device view. */
static gs_status sht_dev_make(gs_gpu_ctx *c, const gs_sht_args *a, const sht_host_lanes *h, int nblk, int per_block,
                              char *work, sht_dev *d, char *msg)
{
  gs_status st = GS_OK;
  const long n = (long)nblk * (a->lmax + 1);
  unsigned char *needed = (unsigned char *)work + h->bytes;
  *d = (sht_dev){.lmax = a->lmax, .nblk = nblk, .nlat = a->nlat, .nspec = a->nlon / 2 + 1,
                 .north = dev_ptr(work, h, h->north), .south = dev_ptr(work, h, h->south),
                 .x = dev_ptr(work, h, h->x), .x_lo = dev_ptr(work, h, h->x_lo), .sin_t = dev_ptr(work, h, h->sin_t),
                 .w_n = dev_ptr(work, h, h->w_n), .w_s = dev_ptr(work, h, h->w_s), .seed = dev_ptr(work, h, h->seed),
                 .needed = needed, .dphi = 2.0 * 3.14159265358979323846 / a->nlon};
  GS_TRY(gs_gpu_copy_to_device(c, work, h->buf, h->bytes, 0, msg));
  sht_needed_kernel<<<(unsigned)((n + 127) / 128), 128, 0, c->stream[0]>>>(*d, per_block, needed);
  GS_CUDA_TRY(cudaGetLastError());
done:
  return st;
}

static size_t align256(size_t b) { return (b + 255) / 256 * 256; }

gs_status sht_gpu_open(int device, const gs_sht_args *a, int analysis, sht_gpu_run *r, char *msg)
{
  gs_status st = GS_OK;
  const int L = a->lmax + 1;
  char *work = NULL;
  *r = (sht_gpu_run){};
  if (a->lmax < 0 || 2L * a->lmax >= a->nlon || a->nlat < 1)
    return gs_set_msg(msg, GS_ERR_ARG, "a grid of %ld x %ld points is too small for degree %d", a->nlat, a->nlon,
                      a->lmax);
  r->K = sht_lanes_per_thread((a->nlat + 1) / 2);
  r->vbytes = (size_t)a->nlat * a->nlon * sizeof(double);
  r->sbytes = (size_t)a->nlat * (a->nlon / 2 + 1) * sizeof(double2);
  r->cbytes = (size_t)L * L * sizeof(double);
  if (sht_host_lanes_make(a, SHT_BLOCK * r->K, &r->lanes, &r->nblk) != GS_OK)
    return gs_set_msg(msg, GS_ERR_NOMEM, "out of memory");
  const size_t lbytes = align256(r->lanes.bytes + (size_t)r->nblk * L);
  GS_TRY(gs_gpu_ctx_get(device, &r->c, msg));
  GS_TRY(gs_gpu_ctx_workspace(r->c, lbytes + r->sbytes + r->vbytes + 2 * r->cbytes, (void **)&work, msg));
  GS_TRY(cufft_check(sht_plan(a->nlat, a->nlon, analysis, r->c->stream[0], &r->plan), "planning", msg));
  r->planned = 1;
  GS_TRY(sht_dev_make(r->c, a, &r->lanes, r->nblk, SHT_BLOCK * r->K, work, &r->d, msg));
  r->spec = (double2 *)(work + lbytes);
  r->v = (double *)(work + lbytes + r->sbytes);
  r->cs = r->v + a->nlat * a->nlon, r->sn = r->cs + (size_t)L * L;
done:
  return st;
}

gs_status sht_gpu_pass(const sht_gpu_run *r, int analysis, char *msg)
{
  gs_status st = GS_OK;
  cudaStream_t s = r->c->stream[0];
  if (analysis) {
    GS_TRY(cufft_check(cufftExecD2Z(r->plan, r->v, (cufftDoubleComplex *)r->spec), "execution", msg));
    GS_CUDA_TRY(cudaMemsetAsync(r->cs, 0, 2 * r->cbytes, s));
    sht_legendre_gpu(r->d, r->K, 1, r->cs, r->sn, r->spec, s);
    GS_CUDA_TRY(cudaGetLastError());
  } else {
    GS_CUDA_TRY(cudaMemsetAsync(r->spec, 0, r->sbytes, s));
    sht_legendre_gpu(r->d, r->K, 0, r->cs, r->sn, r->spec, s);
    GS_CUDA_TRY(cudaGetLastError());
    GS_TRY(cufft_check(cufftExecZ2D(r->plan, (cufftDoubleComplex *)r->spec, r->v), "execution", msg));
  }
done:
  return st;
}

void sht_gpu_close(sht_gpu_run *r)
{
  if (r->planned) cufftDestroy(r->plan);
  if (r->c) cudaStreamSynchronize(r->c->stream[0]);
  free(r->lanes.buf);
  *r = (sht_gpu_run){};
}

/* The host side of one field: its upload, the pass, its download. */
static gs_status sht_gpu_field(const sht_gpu_run *r, const gs_sht_args *a, long k, int analysis, char *msg)
{
  gs_status st = GS_OK;
  const size_t L2 = (size_t)(a->lmax + 1) * (a->lmax + 1);
  double *hc = a->cos_part + k * L2, *hs = a->sin_part + k * L2, *hv = a->values + (size_t)k * a->nlat * a->nlon;
  if (analysis) {
    GS_TRY(gs_gpu_copy_to_device(r->c, r->v, hv, r->vbytes, 0, msg));
    GS_TRY(sht_gpu_pass(r, 1, msg));
    GS_TRY(gs_gpu_copy_to_host(r->c, hc, r->cs, r->cbytes, 0, msg));
    GS_TRY(gs_gpu_copy_to_host(r->c, hs, r->sn, r->cbytes, 0, msg));
  } else {
    GS_TRY(gs_gpu_copy_to_device(r->c, r->cs, hc, r->cbytes, 0, msg));
    GS_TRY(gs_gpu_copy_to_device(r->c, r->sn, hs, r->cbytes, 0, msg));
    GS_TRY(sht_gpu_pass(r, 0, msg));
    GS_TRY(gs_gpu_copy_to_host(r->c, hv, r->v, r->vbytes, 0, msg));
  }
done:
  return st;
}

static gs_status sht_gpu(int device, const gs_sht_args *a, int analysis, gs_progress_fn progress, char *msg)
{
  gs_status st = GS_OK;
  sht_gpu_run r;
  GS_TRY(sht_gpu_open(device, a, analysis, &r, msg));
  for (long k = 0; k < a->nfield; ++k) {
    GS_TRY(sht_gpu_field(&r, a, k, analysis, msg));
    if (progress && k + 1 < a->nfield && progress((double)(k + 1) / a->nfield)) {
      st = gs_interrupted(msg);
      goto done;
    }
  }
done:
  sht_gpu_close(&r);
  return st;
}

extern "C" gs_status gs_sht_analysis_gpu(int device, const gs_sht_args *a, gs_progress_fn progress, char *msg)
{
  return sht_gpu(device, a, 1, progress, msg);
}

extern "C" gs_status gs_sht_synthesis_gpu(int device, const gs_sht_args *a, gs_progress_fn progress, char *msg)
{
  return sht_gpu(device, a, 0, progress, msg);
}
