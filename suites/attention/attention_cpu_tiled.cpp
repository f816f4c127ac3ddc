#include "suites/attention/attention_cpu_tiled.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <charconv>
#include <cstring>
#include <limits>

#include "harness/bf16.hpp"
#include "harness/errors.hpp"
#include "suites/attention/attention_cpu_exp.hpp"

namespace rooftop::attention {
namespace {
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;


// One row's online-softmax step on a tile: scores -> probabilities in place (0 past
// `visible`), the running max `m` and sum `l` moved on, the output row rescaled. Cloned for
// AVX-512 and AVX2, where the loops run 16 and 8 wide.
__attribute__((target_clones("avx512f", "avx2", "default")))
void softmax_row(float* sr, int keys, int visible, float& m, float& l, float* orow, std::int64_t d) {
  const float mx = row_max(sr, visible, m);
  if (mx == -std::numeric_limits<float>::infinity()) {  // nothing visible yet in this row
    std::fill(sr, sr + keys, 0.0f);
    return;
  }
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int j = 0; j < keys; ++j) {
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

// A row of probabilities rounded to bf16 (to nearest even, as harness/bf16.hpp does).
__attribute__((target_clones("avx512f", "avx2", "default")))
void to_bf16_row(const float* p, int keys, std::uint16_t* out) {
#pragma omp simd
  for (int j = 0; j < keys; ++j) out[j] = float_to_bf16(p[j]);
}

}  // namespace

OnednnTiledAttention::Tile OnednnTiledAttention::tile_named(const std::string& name) {
  Tile t;
  if (name.empty()) return t;
  // "m<rows>n<keys>", numbers without leading zeros (so that one tile has one name)
  const auto number = [&](std::size_t& at, char key, std::int64_t& into) {
    if (at >= name.size() || name[at] != key || at + 1 >= name.size() || name[at + 1] == '0') return false;
    const auto [end, ec] = std::from_chars(name.data() + at + 1, name.data() + name.size(), into);
    at = static_cast<std::size_t>(end - name.data());
    return ec == std::errc();
  };
  std::size_t at = 0;
  if (!number(at, 'm', t.rows) || !number(at, 'n', t.keys) || at != name.size())
    throw PointSkipped(fmt::format("tile {} names a GPU prefill kernel; the CPU path's tiles are m<rows>n<keys>, e.g. m128n256",
                                   name));
  if (t.rows < 16 || t.rows > 2048 || t.keys < 16 || t.keys > 2048 || t.keys % 16 != 0)
    throw PointSkipped(fmt::format("tile {}: the CPU path takes 16 to 2048 query rows a task and 16 to 2048 keys a tile "
                                   "(a multiple of 16)", name));
  return t;
}

std::vector<std::string> OnednnTiledAttention::tile_candidates() {
  std::vector<std::string> names;
  for (int rows : {64, 128, 256, 512})
    for (int keys : {128, 256, 512}) names.push_back(fmt::format("m{}n{}", rows, keys));
  return names;
}

bool OnednnTiledAttention::native_bf16() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  return (isa & dnnl_cpu_isa_avx512_core_bf16) == dnnl_cpu_isa_avx512_core_bf16;
}

OnednnTiledAttention::OnednnTiledAttention(AttentionData& data, Tile tile)
    : data_(data), engine_(dnnl::engine::kind::cpu, 0), keys_(tile.keys) {
  const auto& s = data.shape();
  const bool bf16 = data.dtype() == Dtype::bf16;
  if (s.block) throw PointSkipped("the oneDNN-tiled path runs on a contiguous cache");
  if (data.dtype() != Dtype::fp32 && !(bf16 && native_bf16()))
    throw PointSkipped("the oneDNN-tiled path runs fp32, and bf16 on a CPU with bf16 units");
  const dt in = bf16 ? dt::bf16 : dt::f32;
  element_bytes_ = data.element_bytes();
  const std::int64_t g = s.group(), d = s.d;
  positions_ = std::max<std::int64_t>(1, tile.rows / g);
  rows_ = g * positions_;
  q_md_ = dnnl::memory::desc({rows_, d}, in, tag::ab);
  kt_md_ = dnnl::memory::desc({d, keys_}, in, dnnl::memory::dims{1, d});  // K rows read as K^T
  s_md_ = dnnl::memory::desc({rows_, keys_}, dt::f32, tag::ab);
  p_md_ = dnnl::memory::desc({rows_, keys_}, in, tag::ab);
  v_md_ = dnnl::memory::desc({keys_, d}, in, tag::ab);
  o_md_ = dnnl::memory::desc({rows_, d}, dt::f32, tag::ab);
  try {
    // The 1/sqrt(D) scale on the fp32 scores, so that Q is copied as it is stored.
    dnnl::primitive_attr scaled;
    scaled.set_output_scales(0, {1.0f / std::sqrt(static_cast<float>(d))});
    const auto scores_pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(q_md_, kt_md_, s_md_), scaled, engine_);
    dnnl::post_ops accumulate;
    accumulate.append_sum(1.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(accumulate);
    const auto output_pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(p_md_, v_md_, o_md_), attr, engine_);
    const int threads = omp_get_max_threads();
    const auto bytes = [&](std::int64_t elements) { return static_cast<std::size_t>(elements) * element_bytes_; };
    for (int t = 0; t < threads; ++t) {
      Worker w{dnnl::stream(engine_), dnnl::matmul(scores_pd), dnnl::matmul(output_pd), {}, {}, {}, {}, {}, {}, {}, {}, {}};
      w.q.resize(bytes(rows_ * d));
      w.s.resize(static_cast<std::size_t>(rows_ * keys_));
      w.p.resize(bf16 ? bytes(rows_ * keys_) : 0);  // fp32 multiplies S itself
      w.o.resize(static_cast<std::size_t>(rows_ * d));
      w.m.resize(static_cast<std::size_t>(rows_));
      w.l.resize(w.m.size());
      w.limit.resize(w.m.size());
      w.k_pad.resize(bytes(keys_ * d));
      w.v_pad.resize(w.k_pad.size());
      workers_.push_back(std::move(w));
    }
    implementation_ = fmt::format(
        "rooftop fused CPU attention, {}: online softmax over {} x {} tiles (m{}n{}), their products by oneDNN matmul {} / {}",
        dtype_name(data.dtype()), rows_, keys_, tile.rows, tile.keys, scores_pd.impl_info_str(), output_pd.impl_info_str());
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented)
      throw PointSkipped(fmt::format("oneDNN has no {} matmul for these tiles on this CPU", dtype_name(data.dtype())));
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
  const bool bf16 = data_.dtype() == Dtype::bf16;
  const std::size_t row_bytes = static_cast<std::size_t>(d) * element_bytes_;
  const auto* q = static_cast<const std::byte*>(data_.q());
  const auto* k = static_cast<const std::byte*>(data_.k_pool());
  const auto* v = static_cast<const std::byte*>(data_.v_pool());
  // Rows: the group's heads x this task's positions; rows past S are zeros that see no key.
  std::int64_t last_key = 0;
  for (std::int64_t r = 0; r < rows_; ++r) {
    const std::int64_t h = kvh * g + r / positions_, i = i0 + r % positions_;
    std::byte* qr = &w.q[static_cast<std::size_t>(r) * row_bytes];
    if (i < s.sq) {
      std::memcpy(qr, q + static_cast<std::size_t>((b * s.hq + h) * s.sq + i) * row_bytes, row_bytes);
      w.limit[static_cast<std::size_t>(r)] =
          static_cast<int>(s.causal ? std::clamp<std::int64_t>(i + s.skv - s.sq + 1, 0, s.skv) : s.skv);
    } else {
      std::memset(qr, 0, row_bytes);
      w.limit[static_cast<std::size_t>(r)] = 0;
    }
    last_key = std::max<std::int64_t>(last_key, w.limit[static_cast<std::size_t>(r)]);
  }
  std::fill(w.m.begin(), w.m.end(), -std::numeric_limits<float>::infinity());
  std::fill(w.l.begin(), w.l.end(), 0.0f);
  std::fill(w.o.begin(), w.o.end(), 0.0f);
  dnnl::memory q_mem(q_md_, engine_, w.q.data()), s_mem(s_md_, engine_, w.s.data()), o_mem(o_md_, engine_, w.o.data());
  dnnl::memory p_mem = bf16 ? dnnl::memory(p_md_, engine_, w.p.data()) : s_mem;

  for (std::int64_t j0 = 0; j0 < last_key; j0 += keys_) {
    const std::int64_t n = std::min(keys_, s.skv - j0);
    const std::byte* kb = k + static_cast<std::size_t>(data_.kv_offset(b, kvh, j0)) * element_bytes_;
    const std::byte* vb = v + static_cast<std::size_t>(data_.kv_offset(b, kvh, j0)) * element_bytes_;
    if (n < keys_) {  // the last block: zero rows after the cache's end
      std::fill(w.k_pad.begin(), w.k_pad.end(), std::byte{0});
      std::fill(w.v_pad.begin(), w.v_pad.end(), std::byte{0});
      std::memcpy(w.k_pad.data(), kb, static_cast<std::size_t>(n) * row_bytes);
      std::memcpy(w.v_pad.data(), vb, static_cast<std::size_t>(n) * row_bytes);
      kb = w.k_pad.data();
      vb = w.v_pad.data();
    }
    dnnl::memory k_mem(kt_md_, engine_, const_cast<std::byte*>(kb)), v_mem(v_md_, engine_, const_cast<std::byte*>(vb));
    w.scores.execute(w.stream, {{DNNL_ARG_SRC, q_mem}, {DNNL_ARG_WEIGHTS, k_mem}, {DNNL_ARG_DST, s_mem}});
    w.stream.wait();
    // Online softmax: P in place of S, the running max and sum, the output rescaled; P
    // rounded to bf16 for the bf16 product.
    for (std::int64_t r = 0; r < rows_; ++r) {
      const auto i = static_cast<std::size_t>(r);
      const int visible = static_cast<int>(std::clamp<std::int64_t>(w.limit[i] - j0, 0, n));
      softmax_row(&w.s[i * keys_], static_cast<int>(keys_), visible, w.m[i], w.l[i], &w.o[i * static_cast<std::size_t>(d)], d);
      if (bf16) to_bf16_row(&w.s[i * keys_], static_cast<int>(keys_), reinterpret_cast<std::uint16_t*>(w.p.data()) + i * keys_);
    }
    w.output.execute(w.stream, {{DNNL_ARG_SRC, p_mem}, {DNNL_ARG_WEIGHTS, v_mem}, {DNNL_ARG_DST, o_mem}});
    w.stream.wait();
  }
  for (std::int64_t r = 0; r < rows_; ++r) {
    const std::int64_t h = kvh * g + r / positions_, i = i0 + r % positions_;
    if (i >= s.sq) continue;
    const float l = w.l[static_cast<std::size_t>(r)], inv = l > 0 ? 1.0f / l : 0.0f;
    const float* orow = &w.o[static_cast<std::size_t>(r * d)];
    const std::int64_t dst = ((b * s.hq + h) * s.sq + i) * d;
    if (bf16) {
      auto* out = static_cast<std::uint16_t*>(data_.o()) + dst;
      for (std::int64_t t = 0; t < d; ++t) out[t] = float_to_bf16(orow[t] * inv);
    } else {
      auto* out = static_cast<float*>(data_.o()) + dst;
      for (std::int64_t t = 0; t < d; ++t) out[t] = orow[t] * inv;
    }
  }
}

}  // namespace rooftop::attention
