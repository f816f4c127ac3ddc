#include "suites/inference/tensor_parallel.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "harness/errors.hpp"

namespace rooftop::inference {

IndexRange even_split(std::int64_t count, int parts, int part) {
  const std::int64_t base = count / parts, extra = count % parts, p = part;
  return {p * base + std::min(p, extra), base + (p < extra ? 1 : 0)};
}

namespace {

bool splits(const ModelConfig& m, std::int64_t tp) {
  return tp >= 1 && m.heads % tp == 0 && (m.kv_heads % tp == 0 || tp % m.kv_heads == 0);
}

}  // namespace

std::vector<int> valid_tensor_parallel_sizes(const ModelConfig& m) {
  std::vector<int> out;
  for (std::int64_t tp = 1; tp <= m.heads; ++tp)
    if (splits(m, tp)) out.push_back(static_cast<int>(tp));
  return out;
}

std::string tensor_parallel_refusal(const ModelConfig& m, int tp) {
  if (splits(m, tp)) return {};
  const auto valid = valid_tensor_parallel_sizes(m);
  const std::string why =
      tp < 1 || m.heads % tp != 0
          ? fmt::format("tp {} does not divide {}'s {} attention heads", tp, m.name, m.heads)
          : fmt::format("tp {} neither divides {}'s {} key-value heads nor is a multiple of them (a rank's {} query "
                        "heads would read two kv heads)", tp, m.name, m.kv_heads, m.heads / tp);
  return fmt::format("{}: choose tp {}", why, fmt::join(valid, ", "));
}

TensorParallelSlice tensor_parallel_slice(const ModelConfig& m, int tp, int rank) {
  if (const auto why = tensor_parallel_refusal(m, tp); !why.empty()) throw InputError(why);
  if (rank < 0 || rank >= tp) throw std::logic_error("a tensor-parallel rank outside 0 .. tp - 1");
  TensorParallelSlice s;
  s.tp = tp;
  s.rank = rank;
  s.q_heads = even_split(m.heads, tp, rank);
  if (m.kv_heads % tp == 0) {
    s.kv_heads = even_split(m.kv_heads, tp, rank);
  } else {
    // Fewer kv heads than ranks: tp / kv_heads consecutive ranks share one, each computing
    // its keys and values (one projection of its rows) and caching them itself.
    s.kv_replicas = static_cast<int>(tp / m.kv_heads);
    s.kv_heads = {rank / s.kv_replicas, 1};
  }
  s.intermediate = even_split(m.intermediate, tp, rank);
  s.vocab = even_split(m.vocab, tp, rank);
  return s;
}

ModelConfig rank_config(const ModelConfig& m, const TensorParallelSlice& s) {
  ModelConfig c = m;
  c.heads = s.q_heads.count;
  c.kv_heads = s.kv_heads.count;
  c.intermediate = s.intermediate.count;
  c.vocab = s.vocab.count;
  return c;
}

TpAllReduceKnobs tp_all_reduce_knobs(const char* algorithm, const char* prefetch_mib) {
  TpAllReduceKnobs k;
  if (algorithm && *algorithm) {
    k.algorithm = algorithm;
    if (k.algorithm != "auto" && k.algorithm != "nccl" && k.algorithm != "peer")
      throw InputError(fmt::format("ROOFTOP_TP_ALL_REDUCE='{}': write auto (the faster, timed), nccl or peer (the one-shot "
                                   "over peer memory)", algorithm));
  }
  if (prefetch_mib && *prefetch_mib) {
    char* end = nullptr;
    k.prefetch_mib = std::strtod(prefetch_mib, &end);
    if (end == prefetch_mib || *end || !(k.prefetch_mib >= 0) || k.prefetch_mib > 1024)
      throw InputError(fmt::format("ROOFTOP_TP_PREFETCH_MB='{}': write the MiB of the next projection to prefetch into L2 "
                                   "during each one-shot all-reduce, 0 to 1024 (0: none)", prefetch_mib));
  }
  return k;
}

TpAllReduceKnobs tp_all_reduce_knobs_from_env() {
  return tp_all_reduce_knobs(std::getenv("ROOFTOP_TP_ALL_REDUCE"), std::getenv("ROOFTOP_TP_PREFETCH_MB"));
}

}  // namespace rooftop::inference
