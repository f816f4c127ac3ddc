#pragma once
// Decode on the CPU as a bandwidth kernel: one new query per sequence against the whole KV
// cache, so every key and value is read once and used by the few query heads that share
// it. Each (batch, KV head) streams its keys straight from the cache, contiguous or paged,
// with no copies into tile buffers; when there are too few of those pairs to keep every
// thread busy (batch 1 to 8), the cache is split along its length and the splits' partial
// softmax states are merged at the end (split-KV).
#include "suites/attention/attention_data.hpp"

namespace rooftop::attention {

// Whether decode_attention_cpu runs this point: decode, fp32 or bf16, D 64 or 128, and at
// most kMaxRows query rows per KV head.
bool decode_kernel_applies(const AttentionData& data);

// How the stream multiplies: bf16 on AVX512_BF16's dot products where the CPU has them
// (found at run time), else every element widened to fp32 for FMAs (fp32 always).
enum class CpuDecodePath { fp32_fma, bf16_dot };
bool cpu_has_bf16_dot();
CpuDecodePath cpu_decode_path(Dtype dtype);
// `path` other than cpu_decode_path's: the tests' way to check both on one CPU.
void decode_attention_cpu(AttentionData& data, CpuDecodePath path);
inline void decode_attention_cpu(AttentionData& data) { decode_attention_cpu(data, cpu_decode_path(data.dtype())); }

}  // namespace rooftop::attention
