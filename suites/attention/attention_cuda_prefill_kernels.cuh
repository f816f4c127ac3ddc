#pragma once
// The compiled instances of the fused prefill kernels, for the host code in
// attention_cuda_prefill.cpp: kept apart so the .cu files need no fmt.
#include <vector>

#include "suites/attention/attention_cuda_prefill.cuh"

namespace rooftop::attention {

// One configuration, compiled for [bf16, fp16] x [head dim 64, 128]; a configuration whose
// registers do not hold head dim 128 leaves its [.][1] entries null (prefill_unsupported says so).
struct PrefillKernel {
  PrefillConfig config;
  const void* kernels[2][2];
  int shared[2];  // dynamic shared memory bytes, by head dim
  void (*launch[2][2])(const PrefillArgs&);
};

// mma.sync's (sm_80+, attention_cuda_prefill.cu) and wgmma's (sm_90a,
// attention_cuda_prefill_hopper.cu).
const std::vector<PrefillKernel>& mma_prefill_kernels();
const std::vector<PrefillKernel>& hopper_prefill_kernels();
// wgmma's with a TMA producer warpgroup (sm_90a, attention_cuda_prefill_hopper_ws.cu).
const std::vector<PrefillKernel>& hopper_ws_prefill_kernels();

#ifdef __CUDACC__
// What a prefill block owns: query block blockIdx.x of (batch x head) blockIdx.y, its rows
// of Q, its KV head's K and V, and the key tiles it walks. Causal blocks run the longest
// rows first, so the short ones fill the tail; they stop at the diagonal. Row and key
// indices fit in int: the host refuses S >= 2^31.
template <class T, int D>
struct PrefillBlock {
  int seq, m0, tiles;
  std::int64_t bh, kv_head;  // (batch, head) and (batch, KV head) as flat indices
  const T *q, *k, *v;
  __device__ PrefillBlock(const PrefillArgs& a, int bm, int bn) {
    seq = static_cast<int>(a.s);
    const int blocks = (seq + bm - 1) / bm;
    m0 = (a.causal ? blocks - 1 - static_cast<int>(blockIdx.x) : static_cast<int>(blockIdx.x)) * bm;
    bh = blockIdx.y;
    const std::int64_t b = bh / a.hq, kvh = bh % a.hq / (a.hq / a.hkv);
    q = static_cast<const T*>(a.q) + bh * a.s * D;
    const std::int64_t kv_rows = a.kv_capacity ? a.kv_capacity : a.s;
    kv_head = b * a.hkv + kvh;
    k = static_cast<const T*>(a.k) + kv_head * kv_rows * D;
    v = static_cast<const T*>(a.v) + kv_head * kv_rows * D;
    tiles = ((a.causal ? min(seq, m0 + bm) : seq) + bn - 1) / bn;
  }
  // Where query row `row` of this block's (batch, head) writes its D outputs.
  __device__ T* output_row(const PrefillArgs& a, int row) const {
    if (!a.o_token_major) return static_cast<T*>(a.o) + (bh * a.s + row) * D;
    const std::int64_t b = bh / a.hq, h = bh % a.hq;
    return static_cast<T*>(a.o) + ((b * a.s + row) * a.hq + h) * D;
  }
};
#endif

}  // namespace rooftop::attention
