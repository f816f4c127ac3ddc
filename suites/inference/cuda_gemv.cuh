#pragma once
// y[m][n] = x[m][:] . W[n][:] for the few rows of a decode step on the GPU: every weight row
// is streamed once with 16-byte loads, several in flight a lane, and used for each row of
// x (cuBLASLt's matmul, built for larger M, read a decode step's weights at 0.9-2.4 TB/s of
// the H100's 3.0: docs/PERFORMANCE.md). Its epilogue adds the result into the residual
// stream or applies SwiGLU, so those need no kernel of their own.
#include <cstdint>
#include <string>
#include <vector>

#include "suites/inference/cuda_decoder_kernels.cuh"

namespace rooftop::inference::kernels {

// The most rows of x one launch takes; more rows go to the matmul.
inline constexpr std::int64_t kGemvMaxRows = 8;

enum class GemvEpilogue {
  store,       // y[m][n] = x . W[n]
  accumulate,  // y[m][n] += x . W[n]: a residual added in place
  // W holds gate rows [0, n/2) then up rows [n/2, n); act[m][j] = bf16(silu(gate_j) * up_j),
  // written to `y` as bf16 [m][n/2].
  swiglu,
  // The qkv projection of a decode step (one token a sequence, m sequences): RoPE and the
  // cache write as the epilogue (GemvRope); `y` is not written.
  rope_cache,
};

// A block streams `rows` weight rows with `threads` threads side by side along K. Which is
// fastest depends on N, K and the GPU: the decoder times them (cuda_decoder.cpp).
struct GemvConfig {
  int rows = 4, threads = 256;
  bool operator==(const GemvConfig&) const = default;
};
const std::vector<GemvConfig>& gemv_configs();  // the compiled ones

// fp8 weights: W and x both e4m3 (x quantised by the kernel that wrote it), the sums times
// output_scale (x's scale times W's); SwiGLU's activation stored e4m3 with act_inverse (the
// next projection's 1 / input scale; 0: bf16).
struct GemvFp8 {
  float output_scale = 1, act_inverse = 0;
};
std::string gemv_config_name(const GemvConfig& c);  // "r4t256"

// RMSNorm folded into the GEMV's prologue (the fused decode step, bf16): x is not read;
// row m of the input is bf16(h[m] x rsqrt(mean(h[m]^2) + eps) x weight), h fp32 with its
// rows `row_stride` floats apart, normalised as each chunk is loaded: the norm needs no
// kernel, and no write and read of its output, of its own.
struct GemvNorm {
  const float* h = nullptr;
  const float* weight = nullptr;
  float eps = 0;
  std::int64_t row_stride = 0;
};

// RoPE and the KV-cache write in the qkv GEMV's epilogue (the fused decode step): W is
// [q; k; v], (heads + 2 kv_heads) x d rows. The blocks of q and k rows take rotary pairs
// (rows i and i + d/2 of one head) so each pair meets in one block; its sums plus `bias`
// are rotated with position *start's cos/sin from `table` (rope_table) and stored in bf16:
// q to q [m][heads][d], k to k_cache; v rows go to v_cache, all as rope_and_cache does
// (the same arithmetic, so the same values), with no fp32 qkv written and read between.
struct GemvRope {
  const float* table = nullptr;
  const std::int32_t* start = nullptr;  // on the device
  const float* bias = nullptr;          // [q; k; v] or null
  void* q = nullptr;
  void* k_cache = nullptr;
  void* v_cache = nullptr;
  std::int64_t heads = 0, kv_heads = 0, d = 0;
  CacheLayout cache;
};

// x [m][k] bf16, W [n][k] bf16 (both e4m3 with `fp8`), y fp32 [m][n] (bf16 or e4m3 [m][n/2]
// for swiglu); m <= kGemvMaxRows, k a multiple of 8 (16 for fp8) and both 16-byte aligned
// (gemv_fits says so). Queued on gpu::stream().
// `norm`: the input is RMSNorm(h) (GemvNorm), x unused; bf16 only (not with fp8).
// `rope`: required with GemvEpilogue::rope_cache, ignored otherwise.
void gemv(const void* x, const void* w, void* y, std::int64_t m, std::int64_t n, std::int64_t k, GemvEpilogue epilogue,
          const GemvConfig& config = {}, const GemvFp8* fp8 = nullptr, const GemvNorm* norm = nullptr,
          const GemvRope* rope = nullptr);
bool gemv_fits(std::int64_t m, std::int64_t n, std::int64_t k, GemvEpilogue epilogue, bool fp8 = false);

}  // namespace rooftop::inference::kernels
