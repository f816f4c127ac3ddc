#pragma once
// Split-KV decode attention on the GPU (flash-decoding): one new query per sequence
// against a contiguous or paged KV cache. Declared for the host code; kernels in the .cu.
#include <cstdint>

#include "harness/dtype.hpp"
#include "suites/attention/decode_limits.hpp"

namespace rooftop::attention {

struct DecodeArgs {
  Dtype dtype;
  std::int64_t b, hq, hkv, skv, d, block;  // block 0: contiguous cache
  const void* q;                           // [B,Hq,D]
  const void* k;                           // [B,Hkv,Skv,D] or [blocks,Hkv,block,D]
  const void* v;
  const std::int32_t* block_table;         // [B][Skv/block] or null
  void* o;                                 // [B,Hq,D]
  float* partial;                          // workspace: decode_workspace_floats() floats, zeroed
  int splits;
  // Positions each sequence's cache holds, when more than the skv attended to (a decoder's
  // cache filled up to skv so far); 0: skv. The contiguous cache's stride, and the block
  // table's row length times the block.
  std::int64_t capacity = 0;
  // When set, the keys attended are read from the device as the kernel starts, and skv is
  // only the bound the splits were chosen for: one launch that a CUDA graph replays over a
  // cache growing by a key a step. Needs `capacity`.
  const std::int32_t* skv_on_device = nullptr;
  // When set, sequence b attends keys_per_sequence[b] keys (a ragged batch: the serve
  // scenario's decode rows, each at its own position); skv is the bound its splits were
  // chosen for. Needs `capacity`.
  const std::int32_t* keys_per_sequence = nullptr;
  // Launched as a programmatic dependent launch (devices/cuda/gpu_pdl.cuh) where the GPU and
  // build allow it: the decoder's chain, whose previous kernel writes q and the newest key.
  // The kernel lets the next one start at once and waits for the previous one before it
  // reads q or the cache; the block table and the keys attended are read before the wait.
  bool overlap_launch = false;
};

// The groups (Hq / Hkv) the split kernel runs: 1 to kMaxDecodeGroup query heads per KV head,
// each on the kernel compiled for the next power of two, the rows past the group masked. The
// tensor-core kernel (bf16, fp16) takes a group whole, the rows of one m16 tile; the fp32
// kernel holds kDecodeFp32Rows rows in registers and walks a larger group's cache in passes.
inline constexpr std::int64_t kMaxDecodeGroup = 16;
inline constexpr int kDecodeFp32Rows = 8;
// Passes of the split kernel over a (batch, KV head)'s cache: its blocks of the grid's x.
inline std::int64_t decode_passes(Dtype dtype, std::int64_t group) {
  return dtype == Dtype::fp32 && group > kDecodeFp32Rows ? (group + kDecodeFp32Rows - 1) / kDecodeFp32Rows : 1;
}
// The most keys one split walks: its paged block ids fit in shared memory.
inline constexpr std::int64_t kMaxSplitKeys = kDecodeMaxSplitKeys;
// Blocks of the split kernel the whole GPU holds at once, for this dtype, head dim and group.
int decode_resident_blocks(Dtype dtype, std::int64_t d, std::int64_t group);
// The fewest keys a split walks: one stage of the tensor-core kernel's ring. Few (batch, KV
// head) pairs need that many splits to fill the GPU (B = 1 at 512 keys: 16 blocks of 256
// keys left 116 of the H100's 132 multiprocessors idle).
inline constexpr std::int64_t kMinSplitKeys = kDecodeMinSplitKeys;
// Splits of the cache per (batch, KV head) (per block row: pass hkv x decode_passes): each split kMinSplitKeys to kMaxSplitKeys keys,
// chosen for the least waves of `resident_blocks` x ring stages a split walks.
int decode_splits(std::int64_t b, std::int64_t hkv, std::int64_t skv, int resident_blocks);
// The workspace: the splits' partials and a ticket per block row, zeroed once before
// the first launch (each launch leaves its tickets at zero again).
std::int64_t decode_workspace_floats(std::int64_t b, std::int64_t hq, std::int64_t hkv, std::int64_t d, int splits);
// Queues the split kernel on gpu::stream(); the last split of each (batch, KV head) to
// finish writes the output.
void launch_decode(const DecodeArgs& args);

}  // namespace rooftop::attention
