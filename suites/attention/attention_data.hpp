#pragma once
// One attention point's tensors on the host, with the layout the problem records: seeded
// random Q, K, V (a paged cache behind a shuffled block table), the output, the poison
// check and the double-precision reference.
#include <cstdint>
#include <vector>

#include "harness/aligned_vector.hpp"
#include "harness/dtype.hpp"
#include "harness/problem.hpp"
#include "suites/attention/attention_problem.hpp"

namespace rooftop::attention {

class AttentionData {
 public:
  // fp32, bf16 or fp16 elements; throws PointSkipped for others.
  AttentionData(const AttentionShape& shape, Dtype dtype, std::uint64_t seed);

  const AttentionShape& shape() const { return shape_; }
  Dtype dtype() const { return dtype_; }
  std::size_t element_bytes() const { return input_size(dtype_); }
  const void* q() const { return q_.data(); }
  const void* k_pool() const { return k_.data(); }
  const void* v_pool() const { return v_.data(); }
  void* o() { return o_.data(); }
  std::size_t q_bytes() const { return q_.size(); }
  std::size_t kv_bytes() const { return k_.size(); }
  // [B][Skv / block] pool block ids; empty for a contiguous cache.
  const std::vector<std::int32_t>& block_table() const { return block_table_; }
  // Element offset of key/value row j of (batch b, KV head h): contiguous [B,Hkv,S,D],
  // or through the block table into [blocks,Hkv,block,D].
  std::int64_t kv_offset(std::int64_t b, std::int64_t h, std::int64_t j) const;

  void poison_output();
  // The reference on every row when there are few, else on a seeded sample; fails on any
  // output element still poisoned.
  Correctness check(std::uint64_t seed) const;

 private:
  double load(const AlignedVector<std::uint8_t>& buf, std::int64_t i) const;

  AttentionShape shape_;
  Dtype dtype_;
  AlignedVector<std::uint8_t> q_, k_, v_, o_;
  std::vector<std::int32_t> block_table_;  // [B][Skv / block]
};

}  // namespace rooftop::attention
