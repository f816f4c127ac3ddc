#pragma once
// The attention problem: prefill (B x Hq x S x D over B x Hkv x S x D keys and values,
// causal or not, MHA or GQA) and decode (one new query per sequence against a KV cache,
// contiguous or paged). Its FLOP and byte counts live here and nowhere else.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/dtype.hpp"
#include "harness/problem.hpp"
#include "suites/attention/decode_limits.hpp"

namespace rooftop::attention {

struct AttentionShape {
  bool decode = false;
  std::int64_t b = 1, hq = 1, hkv = 1, sq = 1, skv = 1, d = 64;
  bool causal = false;     // prefill only: query i sees keys j <= i + (skv - sq)
  std::int64_t block = 0;  // decode: paged cache block size (16 or 32); 0 = contiguous
  std::string impl = "fused";  // "fused" (our kernel); unfused (matmul, softmax, matmul): "onednn" (CPU), "cublaslt"
                               // (CUDA); "cudnn": cuDNN's fused attention (CUDA, prefill and decode)
  std::string tile;            // GPU prefill: a compiled kernel configuration, "m128n64w4s2"; CPU prefill:
                               // "m<rows>n<keys>"; CUDA decode: "s<splits>"; empty = default

  std::int64_t group() const { return hq / hkv; }
};

// Query-key pairs the mask leaves, per (batch, head): exact, not a blanket half.
double unmasked_pairs(std::int64_t sq, std::int64_t skv, bool causal);
// FLOPs = 4 B Hq pairs D (QK^T and PV, two FLOPs a multiply-add); bytes = Q, K, V read
// once and O written once (decode: the whole KV cache once).
Work attention_work(const AttentionShape& shape, Dtype dtype);

// A CUDA decode tile: "s<splits>", the KV splits per (batch, KV head).
bool is_split_count(std::string_view tile);
std::int64_t split_count(std::string_view tile);  // 0 where `tile` is not s<digits>
// Whether `splits` splits of `skv` keys keep each within the kernel's limits.
bool splits_fit(std::int64_t splits, std::int64_t skv);
// The split counts `rooftop tune` tries for a CUDA decode point (powers of two that keep
// each split within its key limits); none for a point that names its own.
std::vector<std::string> decode_split_candidates(const AttentionShape& shape);
// The CUDA prefill's compiled tiles that this GPU runs at the point's head dim and dtype, for
// `rooftop tune`: only a build with CUDA knows them, and registers the lister at start-up
// (none registered: no candidates).
using PrefillTileLister = std::vector<std::string> (*)(const AttentionShape& shape, Dtype dtype);
void register_cuda_prefill_tiles(PrefillTileLister lister);
std::vector<std::string> cuda_prefill_tile_candidates(const AttentionShape& shape, Dtype dtype);

// Why cuDNN's attention as rooftop builds it cannot take this point ("" where it can): fp32,
// a paged cache, a causal mask over Sq != Skv.
std::string cudnn_unsupported(const AttentionShape& shape, Dtype dtype);

// Throws InputError: head counts that do not divide, zero lengths, head dims other than
// 64 or 128, causal decode, block sizes other than 16 or 32, an unknown implementation.
void validate(const AttentionShape& shape);
Problem make_attention_problem(const AttentionShape& shape, Dtype dtype, std::string_view backend);
// The point's shape as make_attention_problem attached it, with the runner's tile (Problem::tile)
// where it chose one.
AttentionShape shape_of(const Problem& problem);
// "prefill:BxHqxHkvxSxD[:causal][:onednn|:cublaslt|:cudnn][:mBMnBNwWsS]" or
// "decode:BxHqxHkvxSkvxD[:paged16|:paged32][:cudnn|:s<splits>]".
AttentionShape parse_attention_shape(std::string_view text);

}  // namespace rooftop::attention
