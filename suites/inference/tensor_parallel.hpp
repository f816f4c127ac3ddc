#pragma once
// Tensor parallelism (Megatron style) as arithmetic, for every backend: which attention
// heads, key-value heads, MLP columns and vocabulary rows a rank owns, and the rank's own
// config (its shard's sizes). q/k/v and gate/up are split by columns (their output rows),
// o_proj and down by rows (their input columns, a partial sum all-reduced), the LM head by
// vocabulary (an argmax reduced). The decoders (cpu_decoder.cpp, the CUDA one) and the
// weights' slicing (shard_decoder_weights) read their ranges from here only.
#include <cstdint>
#include <string>
#include <vector>

#include "suites/inference/model_config.hpp"

namespace rooftop::inference {

// A contiguous range of rows, heads or columns.
struct IndexRange {
  std::int64_t begin = 0, count = 0;
  std::int64_t end() const { return begin + count; }
  bool operator==(const IndexRange&) const = default;
};

// What rank `rank` of `tp` owns.
struct TensorParallelSlice {
  int tp = 1, rank = 0;
  IndexRange q_heads;       // heads / tp, in order
  IndexRange kv_heads;      // kv_heads / tp where tp divides them; else the one kv head its q heads read
  IndexRange intermediate;  // gate/up rows and down columns: intermediate split as evenly as it goes
  IndexRange vocab;         // LM head rows: vocab split as evenly as it goes
  // Ranks holding a copy of each kv head: 1 where tp <= kv_heads, tp / kv_heads where there
  // are fewer kv heads than ranks (each copy's keys and values computed by its own rank).
  int kv_replicas = 1;
};

// `count` split over `parts`: the first count % parts parts one more (ranges in order).
IndexRange even_split(std::int64_t count, int parts, int part);

// Why `tp` cannot split `model` (it must divide the attention heads, and either divide the
// kv heads or be a multiple of them, so that no rank's q heads straddle two kv heads), with
// the tps that can; empty when it can.
std::string tensor_parallel_refusal(const ModelConfig& model, int tp);
// The tps from 1 to the head count that split `model`.
std::vector<int> valid_tensor_parallel_sizes(const ModelConfig& model);

// Rank `rank`'s share; throws InputError (tensor_parallel_refusal) where tp cannot split it.
TensorParallelSlice tensor_parallel_slice(const ModelConfig& model, int tp, int rank);

// The rank's shard as a config: its heads, kv heads, intermediate and vocabulary; hidden,
// head_dim, layers and the rest as the model's. A decoder built on it computes the rank's
// part; with tp 1 it is the model.
ModelConfig rank_config(const ModelConfig& model, const TensorParallelSlice& slice);

// The GPU decoder's all-reduce knobs (docs/inference.md, cuda_tp_all_reduce.hpp), given as
// ROOFTOP_TP_ALL_REDUCE and ROOFTOP_TP_PREFETCH_MB; null or empty: the default.
struct TpAllReduceKnobs {
  std::string algorithm = "auto";  // auto (the faster, timed), nccl or peer
  // Measured on 2 H200s (docs/PERFORMANCE.md): the 8B's step 1 to 2% faster than with none,
  // the 70B's about 1.5% slower; 8 MiB and more no better than none.
  double prefetch_mib = 4;
};
// InputError naming the variable, the value and the values it takes.
TpAllReduceKnobs tp_all_reduce_knobs(const char* algorithm, const char* prefetch_mib);
TpAllReduceKnobs tp_all_reduce_knobs_from_env();

// Bytes a rank's all-reduce moves a call: `rows` rows of the hidden state.
inline double all_reduce_bytes(const ModelConfig& model, std::int64_t rows, double element_bytes) {
  return static_cast<double>(rows * model.hidden) * element_bytes;
}

}  // namespace rooftop::inference
