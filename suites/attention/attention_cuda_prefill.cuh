#pragma once
// Fused prefill attention on the GPU (FlashAttention-2 style): tensor-core QK^T and PV with
// an online softmax, causal and GQA, never materialising the scores. Its tile shape, warp
// count and pipeline depth are compile-time parameters, each compiled configuration is an
// axis a sweep can name. Declared for the host code; the kernels are in the .cu.
#include <cstdint>
#include <string>
#include <vector>

#include "harness/dtype.hpp"

namespace rooftop::attention {

struct PrefillArgs {
  Dtype dtype;  // bf16 or fp16
  std::int64_t b, hq, hkv, s, d;
  bool causal;
  const void* q;  // [B,Hq,S,D]
  const void* k;  // [B,Hkv,S,D]
  const void* v;
  void* o;        // [B,Hq,S,D], or [B,S,Hq,D] with o_token_major
  // Positions per KV head when K and V are the first s of a longer cache (a decoder's,
  // [B,Hkv,kv_capacity,D]); 0: s.
  std::int64_t kv_capacity = 0;
  // o as the rows an output projection reads: token by token, the heads side by side.
  bool o_token_major = false;
};

// A block of `warps` warps (a TMA producer's included) owns `bm` query rows and walks the keys
// `bn` at a time, with `stages` key/value tiles in flight (cp.async, or the TMA's). `wgmma`: Hopper's warpgroup MMA
// (sm_90a only) instead of mma.sync. `overlap`: each warpgroup's softmax runs while its
// previous tile's P V is on the tensor cores (the name's "o" suffix). `producer`: a warpgroup
// of its own streams the tiles in with the TMA ("t"). `pingpong`: the consumer warpgroups
// take turns on the tensor cores, round a ring, one's softmax under another's products ("p").
struct PrefillConfig {
  int bm, bn, warps, stages;
  bool wgmma = false;
  bool overlap = false;
  bool producer = false;
  bool pingpong = false;
  bool operator==(const PrefillConfig&) const = default;
};

// "m128n64w4s2", "wgm128n128w8s2", "wgm128n128w8s2o", "wgm128n128w12s2otp"
std::string config_name(const PrefillConfig& c);
PrefillConfig parse_config_name(const std::string& name);  // config_name's inverse
// The compiled configurations, wgmma's first.
const std::vector<PrefillConfig>& prefill_configs();
// The first compiled configuration this GPU runs: the default.
PrefillConfig default_prefill_config(std::int64_t d, Dtype dtype);
// Empty when `c` can run this head dim and dtype on the current device, else the reason
// (not compiled, too much shared memory, too many registers for the block's threads).
std::string prefill_unsupported(const PrefillConfig& c, std::int64_t d, Dtype dtype);
// "255 registers, 96 KiB shared, 92 B spilled": what the configuration costs a thread.
std::string prefill_resources(const PrefillConfig& c, std::int64_t d, Dtype dtype);
// Queues the kernel on gpu::stream().
void launch_prefill(const PrefillArgs& args, const PrefillConfig& c);

}  // namespace rooftop::attention
