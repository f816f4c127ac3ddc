#pragma once
// The fused CPU attention's prefill path on oneDNN tiles: the same online softmax over key
// blocks as attention_cpu_fused.cpp, with each tile's two products (S = Q K^T, O += P V) run
// by oneDNN's matmul (brgemm), whose micro-kernels our own do not match: fp32 on AVX-512,
// and bf16 where the CPU has bf16 units (AVX512_BF16 or AMX), so that bf16 runs on them
// instead of widening to fp32. Scores and the output accumulate in fp32; P is rounded to
// bf16 for P V, as the unfused path and the GPU kernels do. The scores of one tile stay in
// the thread's cache; nothing of S x S size reaches memory.
#include <dnnl.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "suites/attention/attention_data.hpp"

namespace rooftop::attention {

class OnednnTiledAttention {
 public:
  // Query rows a task (the group's heads x positions) and keys a tile: "m<rows>n<keys>".
  struct Tile {
    std::int64_t rows = 256, keys = 256;  // 256 x 256 fp32 scores are 256 KiB, in L2
  };
  // The tile a name gives (empty: the default); throws PointSkipped for a name that is not
  // a CPU tile or is out of range.
  static Tile tile_named(const std::string& name);
  // The tiles `rooftop tune` tries.
  static std::vector<std::string> tile_candidates();
  // fp32, or bf16 on a CPU with bf16 units, prefill on a contiguous cache; throws
  // PointSkipped otherwise.
  OnednnTiledAttention(AttentionData& data, Tile tile);
  // Whether this CPU multiplies bf16 natively (oneDNN's effective ISA has AVX512_BF16).
  static bool native_bf16();
  void execute();
  const std::string& implementation() const { return implementation_; }

 private:
  // One OpenMP thread's primitives and tile buffers (primitives with library-managed
  // scratchpads are not run concurrently).
  struct Worker {
    dnnl::stream stream;
    dnnl::matmul scores, output;
    std::vector<float> s, o, m, l;
    std::vector<std::byte> q, p, k_pad, v_pad;  // in the input type
    std::vector<int> limit;
  };
  void run_task(Worker& w, std::int64_t task);

  AttentionData& data_;
  dnnl::engine engine_;
  dnnl::memory::desc q_md_, kt_md_, s_md_, p_md_, v_md_, o_md_;
  std::size_t element_bytes_ = 4;
  std::int64_t keys_ = 256;
  std::int64_t positions_ = 0, rows_ = 0;  // query positions per task; rows = group x positions
  std::vector<Worker> workers_;
  std::string implementation_;
};

}  // namespace rooftop::attention
