#include "suites/attention/attention_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>

#include "harness/bf16.hpp"
#include "harness/fp16.hpp"
#include "harness/dtype_facts.hpp"
#include "harness/errors.hpp"
#include "harness/random_fill.hpp"

namespace rooftop::attention {

namespace {
void fill(AlignedVector<std::uint8_t>& buf, Dtype d, std::int64_t n, std::uint64_t seed) {
  buf.resize(static_cast<std::size_t>(n) * input_size(d));
  std::vector<float> tmp(static_cast<std::size_t>(n));
  const FillRange range = fill_range(d);
  fill_uniform(tmp, seed, static_cast<float>(range.lo), static_cast<float>(range.hi));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) store_element(d, buf.data(), static_cast<std::size_t>(i), tmp[i]);
}
}  // namespace

AttentionData::AttentionData(const AttentionShape& s, Dtype d, std::uint64_t seed) : shape_(s), dtype_(d) {
  if (d != Dtype::fp32 && d != Dtype::bf16 && d != Dtype::fp16)
    throw PointSkipped(fmt::format("attention on this backend runs fp32, bf16 and fp16, not {}", dtype_name(d)));
  const std::int64_t kv = s.b * s.hkv * s.skv * s.d;
  fill(q_, d, s.b * s.hq * s.sq * s.d, seed);
  fill(k_, d, kv, seed + 1);
  fill(v_, d, kv, seed + 2);
  o_.resize(static_cast<std::size_t>(s.b * s.hq * s.sq * s.d) * input_size(d));
  if (s.block) {
    // Blocks of all sequences in one pool, in a shuffled order, as a cache allocator leaves them.
    const std::int64_t per_seq = s.skv / s.block;
    block_table_.resize(static_cast<std::size_t>(s.b * per_seq));
    std::iota(block_table_.begin(), block_table_.end(), 0);
    for (std::size_t i = block_table_.size(); i > 1; --i)
      std::swap(block_table_[i - 1], block_table_[splitmix64(seed + 3 + i) % i]);
  }
}

std::int64_t AttentionData::kv_offset(std::int64_t b, std::int64_t h, std::int64_t j) const {
  const auto& s = shape_;
  if (!s.block) return ((b * s.hkv + h) * s.skv + j) * s.d;
  const std::int64_t blk = block_table_[static_cast<std::size_t>(b * (s.skv / s.block) + j / s.block)];
  return ((blk * s.hkv + h) * s.block + j % s.block) * s.d;
}

double AttentionData::load(const AlignedVector<std::uint8_t>& buf, std::int64_t i) const {
  return load_element(dtype_, buf.data(), static_cast<std::size_t>(i));
}

void AttentionData::poison_output() {
  const std::int64_t n = static_cast<std::int64_t>(o_.size() / input_size(dtype_));
  for (std::int64_t i = 0; i < n; ++i) {
    if (dtype_ == Dtype::fp32) reinterpret_cast<float*>(o_.data())[i] = std::numeric_limits<float>::quiet_NaN();
    else reinterpret_cast<std::uint16_t*>(o_.data())[i] = dtype_ == Dtype::bf16 ? 0x7fc0 : 0x7e00;
  }
}

Correctness AttentionData::check(std::uint64_t seed) const {
  const auto& s = shape_;
  // Output rounding, P rounded to the input type before P x V (as FlashAttention does and
  // the unfused bf16 path must), and fp32 arithmetic far below both.
  const double u_out = unit_roundoff(dtype_);
  const double u_p = dtype_ == Dtype::fp32 ? 0 : u_out;
  Correctness c;
  c.tolerance = fmt::format("{}*|ref| + {}*sum_j p_j|v_j| + 2^-16*max|v|", dtype_ == Dtype::fp32 ? "2^-24" : dtype_ == Dtype::bf16 ? "2^-8" : "2^-11",
                            u_p > 0 ? (dtype_ == Dtype::bf16 ? "2^-8" : "2^-11") : "0");
  const std::int64_t rows = s.b * s.hq * s.sq;
  c.elements_total = static_cast<std::uint64_t>(rows * s.d);
  // Unwritten elements anywhere.
  std::uint64_t unwritten = 0;
#pragma omp parallel for reduction(+ : unwritten)
  for (std::int64_t i = 0; i < rows * s.d; ++i) unwritten += std::isnan(load(o_, i));
  std::vector<std::int64_t> picks;
  // Every row while that stays cheap; else a seeded sample (a 32k cache makes each row 4M
  // multiply-adds in double).
  if (static_cast<double>(rows) * static_cast<double>(s.skv) * static_cast<double>(s.d) <= 0x1p30) {
    picks.resize(static_cast<std::size_t>(rows));
    std::iota(picks.begin(), picks.end(), 0);
  } else {
    picks = {0, rows - 1};
    const double per_row = static_cast<double>(s.skv) * static_cast<double>(s.d);
    const int sample = static_cast<int>(std::clamp(0x1p28 / per_row, 16.0, 256.0));
    for (int p = 0; p < sample; ++p) picks.push_back(static_cast<std::int64_t>(splitmix64(seed + p) % static_cast<std::uint64_t>(rows)));
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.d));
  double worst = -1, max_abs = 0;
  std::string where;
  std::vector<double> score(static_cast<std::size_t>(s.skv)), ref(static_cast<std::size_t>(s.d)), pv(static_cast<std::size_t>(s.d));
  for (const auto row : picks) {
    const std::int64_t b = row / (s.hq * s.sq), h = (row / s.sq) % s.hq, i = row % s.sq, kvh = h / s.group();
    const std::int64_t visible = s.causal ? std::clamp<std::int64_t>(i + s.skv - s.sq + 1, 0, s.skv) : s.skv;
    const std::int64_t qoff = row * s.d;
    double m = -1e300;
    for (std::int64_t j = 0; j < visible; ++j) {
      double dot = 0;
      const auto koff = kv_offset(b, kvh, j);
      for (std::int64_t t = 0; t < s.d; ++t) dot += load(q_, qoff + t) * load(k_, koff + t);
      score[j] = dot * scale;
      m = std::max(m, score[j]);
    }
    double l = 0;
    std::fill(ref.begin(), ref.end(), 0.0);
    std::fill(pv.begin(), pv.end(), 0.0);
    double max_v = 0;
    for (std::int64_t j = 0; j < visible; ++j) l += std::exp(score[j] - m);
    for (std::int64_t j = 0; j < visible; ++j) {
      const double p = std::exp(score[j] - m) / l;
      const auto voff = kv_offset(b, kvh, j);
      for (std::int64_t t = 0; t < s.d; ++t) {
        const double v = load(v_, voff + t);
        ref[t] += p * v;
        pv[t] += p * std::fabs(v);
        max_v = std::max(max_v, std::fabs(v));
      }
    }
    for (std::int64_t t = 0; t < s.d; ++t) {
      const double got = load(o_, qoff + t), err = std::fabs(got - ref[t]);
      const double allowed = u_out * std::fabs(ref[t]) + u_p * pv[t] + 0x1p-16 * max_v;
      const double ratio = std::isnan(err) ? std::numeric_limits<double>::infinity() : err / allowed;
      if (!std::isnan(err)) max_abs = std::max(max_abs, err);
      if (ratio > worst) {
        worst = ratio;
        where = fmt::format("O[b{},h{},i{},d{}] = {:.7g}, reference {:.7g}", b, h, i, t, got, ref[t]);
      }
    }
  }
  c.elements_checked = picks.size() * static_cast<std::uint64_t>(s.d);
  c.max_abs_error = max_abs;
  c.max_error_ratio = unwritten ? std::numeric_limits<double>::infinity() : worst;
  c.passed = unwritten == 0 && worst <= 1.0;
  c.worst_element = unwritten ? fmt::format("{} of {} output elements never written (still poisoned)", unwritten, c.elements_total) : where;
  return c;
}

}  // namespace rooftop::attention
