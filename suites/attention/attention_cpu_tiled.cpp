#include "suites/attention/attention_cpu_tiled.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "harness/errors.hpp"
#include "suites/attention/attention_cpu_exp.hpp"

namespace rooftop::attention {
namespace {
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

constexpr std::int64_t kRows = 256;  // query rows a task: the group's heads x positions
constexpr std::int64_t kKeys = 256;  // keys a tile: 256 x 256 fp32 scores are 256 KiB, in L2
// One row's online-softmax step on a tile: scores -> probabilities in place (0 past
// `visible`), the running max `m` and sum `l` moved on, the output row rescaled. Cloned for
// AVX-512 and AVX2, where the loops run 16 and 8 wide.
__attribute__((target_clones("avx512f", "avx2", "default")))
void softmax_row(float* sr, int visible, float& m, float& l, float* orow, std::int64_t d) {
  const float mx = row_max(sr, visible, m);
  if (mx == -std::numeric_limits<float>::infinity()) {  // nothing visible yet in this row
    std::fill(sr, sr + kKeys, 0.0f);
    return;
  }
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int j = 0; j < kKeys; ++j) {
    sr[j] = j < visible ? fast_exp(sr[j] - mx) : 0.0f;
    sum += sr[j];
  }
  const float correction = fast_exp(m - mx);
  l = l * correction + sum;
  m = mx;
  if (correction != 1.0f) {
#pragma omp simd
    for (std::int64_t t = 0; t < d; ++t) orow[t] *= correction;
  }
}

}  // namespace

OnednnTiledAttention::OnednnTiledAttention(AttentionData& data) : data_(data), engine_(dnnl::engine::kind::cpu, 0) {
  const auto& s = data.shape();
  if (data.dtype() != Dtype::fp32 || s.block) throw PointSkipped("the oneDNN-tiled path runs fp32 on a contiguous cache");
  const std::int64_t g = s.group(), d = s.d;
  positions_ = std::max<std::int64_t>(1, kRows / g);
  rows_ = g * positions_;
  q_md_ = dnnl::memory::desc({rows_, d}, dt::f32, tag::ab);
  kt_md_ = dnnl::memory::desc({d, kKeys}, dt::f32, dnnl::memory::dims{1, d});  // K rows read as K^T
  s_md_ = dnnl::memory::desc({rows_, kKeys}, dt::f32, tag::ab);
  v_md_ = dnnl::memory::desc({kKeys, d}, dt::f32, tag::ab);
  o_md_ = dnnl::memory::desc({rows_, d}, dt::f32, tag::ab);
  try {
    const auto scores_pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(q_md_, kt_md_, s_md_), engine_);
    dnnl::post_ops accumulate;
    accumulate.append_sum(1.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(accumulate);
    const auto output_pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(s_md_, v_md_, o_md_), attr, engine_);
    const int threads = omp_get_max_threads();
    for (int t = 0; t < threads; ++t) {
      Worker w{dnnl::stream(engine_), dnnl::matmul(scores_pd), dnnl::matmul(output_pd), {}, {}, {}, {}, {}, {}, {}, {}};
      w.q.resize(static_cast<std::size_t>(rows_ * d));
      w.s.resize(static_cast<std::size_t>(rows_ * kKeys));
      w.o.resize(w.q.size());
      w.m.resize(static_cast<std::size_t>(rows_));
      w.l.resize(w.m.size());
      w.limit.resize(w.m.size());
      w.k_pad.resize(static_cast<std::size_t>(kKeys * d));
      w.v_pad.resize(w.k_pad.size());
      workers_.push_back(std::move(w));
    }
    implementation_ = fmt::format(
        "rooftop fused CPU attention, fp32: online softmax over {} x {} tiles, their products by oneDNN matmul {} / {}",
        rows_, kKeys, scores_pd.impl_info_str(), output_pd.impl_info_str());
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented) throw PointSkipped("oneDNN has no fp32 matmul for these tiles on this CPU");
    throw;
  }
}

void OnednnTiledAttention::execute() {
  const auto& s = data_.shape();
  const std::int64_t tasks = s.b * s.hkv * ((s.sq + positions_ - 1) / positions_);
  // oneDNN runs single-threaded inside this region: each thread owns whole tasks.
#pragma omp parallel
  {
    Worker& w = workers_[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic)
    for (std::int64_t task = 0; task < tasks; ++task) run_task(w, task);
  }
}

void OnednnTiledAttention::run_task(Worker& w, std::int64_t task) {
  const auto& s = data_.shape();
  const std::int64_t g = s.group(), d = s.d, blocks = (s.sq + positions_ - 1) / positions_;
  const std::int64_t b = task / (s.hkv * blocks), kvh = (task / blocks) % s.hkv, i0 = (task % blocks) * positions_;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const auto* q = static_cast<const float*>(data_.q());
  const auto* k = static_cast<const float*>(data_.k_pool());
  const auto* v = static_cast<const float*>(data_.v_pool());
  // Rows: the group's heads x this task's positions; rows past S are zeros that see no key.
  std::int64_t last_key = 0;
  for (std::int64_t r = 0; r < rows_; ++r) {
    const std::int64_t h = kvh * g + r / positions_, i = i0 + r % positions_;
    float* qr = &w.q[static_cast<std::size_t>(r * d)];
    if (i < s.sq) {
      const float* src = q + ((b * s.hq + h) * s.sq + i) * d;
      for (std::int64_t t = 0; t < d; ++t) qr[t] = src[t] * scale;
      w.limit[static_cast<std::size_t>(r)] =
          static_cast<int>(s.causal ? std::clamp<std::int64_t>(i + s.skv - s.sq + 1, 0, s.skv) : s.skv);
    } else {
      std::fill(qr, qr + d, 0.0f);
      w.limit[static_cast<std::size_t>(r)] = 0;
    }
    last_key = std::max<std::int64_t>(last_key, w.limit[static_cast<std::size_t>(r)]);
  }
  std::fill(w.m.begin(), w.m.end(), -std::numeric_limits<float>::infinity());
  std::fill(w.l.begin(), w.l.end(), 0.0f);
  std::fill(w.o.begin(), w.o.end(), 0.0f);
  dnnl::memory q_mem(q_md_, engine_, w.q.data()), s_mem(s_md_, engine_, w.s.data()), o_mem(o_md_, engine_, w.o.data());

  for (std::int64_t j0 = 0; j0 < last_key; j0 += kKeys) {
    const std::int64_t n = std::min(kKeys, s.skv - j0);
    const float* kb = k + data_.kv_offset(b, kvh, j0);
    const float* vb = v + data_.kv_offset(b, kvh, j0);
    if (n < kKeys) {  // the last block: zero rows after the cache's end
      std::fill(w.k_pad.begin(), w.k_pad.end(), 0.0f);
      std::fill(w.v_pad.begin(), w.v_pad.end(), 0.0f);
      std::memcpy(w.k_pad.data(), kb, static_cast<std::size_t>(n * d) * sizeof(float));
      std::memcpy(w.v_pad.data(), vb, static_cast<std::size_t>(n * d) * sizeof(float));
      kb = w.k_pad.data();
      vb = w.v_pad.data();
    }
    dnnl::memory k_mem(kt_md_, engine_, const_cast<float*>(kb)), v_mem(v_md_, engine_, const_cast<float*>(vb));
    w.scores.execute(w.stream, {{DNNL_ARG_SRC, q_mem}, {DNNL_ARG_WEIGHTS, k_mem}, {DNNL_ARG_DST, s_mem}});
    w.stream.wait();
    // Online softmax: P in place of S, the running max and sum, the output rescaled.
    for (std::int64_t r = 0; r < rows_; ++r) {
      const auto i = static_cast<std::size_t>(r);
      const int visible = static_cast<int>(std::clamp<std::int64_t>(w.limit[i] - j0, 0, n));
      softmax_row(&w.s[i * kKeys], visible, w.m[i], w.l[i], &w.o[i * static_cast<std::size_t>(d)], d);
    }
    w.output.execute(w.stream, {{DNNL_ARG_SRC, s_mem}, {DNNL_ARG_WEIGHTS, v_mem}, {DNNL_ARG_DST, o_mem}});
    w.stream.wait();
  }
  auto* out = static_cast<float*>(data_.o());
  for (std::int64_t r = 0; r < rows_; ++r) {
    const std::int64_t h = kvh * g + r / positions_, i = i0 + r % positions_;
    if (i >= s.sq) continue;
    const float l = w.l[static_cast<std::size_t>(r)], inv = l > 0 ? 1.0f / l : 0.0f;
    const float* orow = &w.o[static_cast<std::size_t>(r * d)];
    float* dst = out + ((b * s.hq + h) * s.sq + i) * d;
    for (std::int64_t t = 0; t < d; ++t) dst[t] = orow[t] * inv;
  }
}

}  // namespace rooftop::attention
