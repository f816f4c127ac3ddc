#include "suites/attention/attention_cpu_onednn.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/errors.hpp"

namespace rooftop::attention {
namespace {
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
}  // namespace

OnednnAttention::OnednnAttention(AttentionData& data)
    : data_(data), engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {
  const auto& s = data.shape();
  if (data.dtype() != Dtype::fp32 && data.dtype() != Dtype::bf16)
    throw PointSkipped("the oneDNN attention path runs fp32 and bf16");
  if (s.block) throw PointSkipped("the oneDNN attention path has no paged cache");
  low_precision_ = data.dtype() == Dtype::bf16;
  const dt in = low_precision_ ? dt::bf16 : dt::f32;
  const dnnl::memory::dim n = s.b * s.hkv, rows = s.group() * s.sq, keys = s.skv, d = s.d;
  // Q [B,Hq,S,D] is [B*Hkv, G*S, D]: the heads sharing a KV head are consecutive.
  const dnnl::memory::desc q_md({n, rows, d}, in, tag::abc), o_md({n, rows, d}, in, tag::abc);
  // K [B*Hkv, S, D] read as K^T [B*Hkv, D, S] through strides.
  const dnnl::memory::desc kt_md({n, d, keys}, in, dnnl::memory::dims{keys * d, 1, d});
  const dnnl::memory::desc v_md({n, keys, d}, in, tag::abc);
  const dnnl::memory::desc s_md({n, rows, keys}, dt::f32, tag::abc), p_md({n, rows, keys}, in, tag::abc);
  q_ = dnnl::memory(q_md, engine_, const_cast<void*>(data.q()));
  k_ = dnnl::memory(kt_md, engine_, const_cast<void*>(data.k_pool()));
  v_ = dnnl::memory(v_md, engine_, const_cast<void*>(data.v_pool()));
  o_ = dnnl::memory(o_md, engine_, data.o());
  scores_ = dnnl::memory(s_md, engine_);
  try {
    dnnl::primitive_attr scaled;
    scaled.set_output_scales(0, {1.0f / std::sqrt(static_cast<float>(d))});
    const auto qk_pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(q_md, kt_md, s_md), scaled, engine_);
    qk_ = dnnl::matmul(qk_pd);
    const auto sm_pd = dnnl::softmax_forward::primitive_desc(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, s_md, 2), engine_);
    softmax_ = dnnl::softmax_forward(sm_pd);
    const auto& p_in = low_precision_ ? p_md : s_md;
    if (low_precision_) {
      p_low_ = dnnl::memory(p_md, engine_);
      to_low_ = dnnl::reorder(scores_, p_low_);
    }
    const auto pv_pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(p_in, v_md, o_md), engine_);
    pv_ = dnnl::matmul(pv_pd);
    implementation_ = fmt::format("oneDNN matmul {} + softmax {} + matmul {}", qk_pd.impl_info_str(),
                                  sm_pd.impl_info_str(), pv_pd.impl_info_str());
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented) throw PointSkipped("oneDNN has no implementation for this attention on this CPU");
    throw;
  }
}

void OnednnAttention::execute() {
  const auto& s = data_.shape();
  qk_.execute(stream_, {{DNNL_ARG_SRC, q_}, {DNNL_ARG_WEIGHTS, k_}, {DNNL_ARG_DST, scores_}});
  stream_.wait();
  if (s.causal) {
    // Row r of a stacked group is query position r % S; it sees keys j <= i + (Skv - S).
    auto* sc = static_cast<float*>(scores_.get_data_handle());
    const std::int64_t rows = s.b * s.hkv * s.group() * s.sq;
#pragma omp parallel for
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t i = r % s.sq, first_hidden = std::clamp<std::int64_t>(i + s.skv - s.sq + 1, 0, s.skv);
      std::fill(sc + r * s.skv + first_hidden, sc + (r + 1) * s.skv, -std::numeric_limits<float>::infinity());
    }
  }
  softmax_.execute(stream_, {{DNNL_ARG_SRC, scores_}, {DNNL_ARG_DST, scores_}});
  if (low_precision_) to_low_.execute(stream_, scores_, p_low_);
  pv_.execute(stream_, {{DNNL_ARG_SRC, low_precision_ ? p_low_ : scores_}, {DNNL_ARG_WEIGHTS, v_}, {DNNL_ARG_DST, o_}});
  stream_.wait();
}

}  // namespace rooftop::attention
