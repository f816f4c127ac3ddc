#include "devices/cpu/onednn_matmul.hpp"

#include <fmt/format.h>

#include "harness/bf16.hpp"
#include "harness/errors.hpp"

namespace rooftop::cpu {
namespace {
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

struct Types {
  dt a, b, c;
};
Types types_of(Dtype t) {
  switch (t) {
    case Dtype::fp32: return {dt::f32, dt::f32, dt::f32};
    case Dtype::bf16: return {dt::bf16, dt::bf16, dt::bf16};
    case Dtype::int8: return {dt::s8, dt::s8, dt::s32};
    default: throw PointSkipped(std::string("rooftop's oneDNN matmul has no ") + std::string(dtype_name(t)) + " path");
  }
}

std::int64_t elements(const dnnl::memory& m) {
  std::int64_t n = 1;
  for (const auto d : m.get_desc().dims()) n *= d;
  return n;
}

void widen(const dnnl::memory& bf16, const dnnl::memory& f32) {
  const auto* in = static_cast<const std::uint16_t*>(bf16.get_data_handle());
  auto* out = static_cast<float*>(f32.get_data_handle());
  const std::int64_t n = elements(bf16);
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i) out[i] = bf16_to_float(in[i]);
}

void narrow(const dnnl::memory& f32, const dnnl::memory& bf16) {
  const auto* in = static_cast<const float*>(f32.get_data_handle());
  auto* out = static_cast<std::uint16_t*>(bf16.get_data_handle());
  const std::int64_t n = elements(f32);
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i) out[i] = float_to_bf16(in[i]);
}

dnnl::matmul::primitive_desc matmul_pd(const dnnl::memory::desc& a, const dnnl::memory::desc& b,
                                       const dnnl::memory::desc& c, const dnnl::engine& engine) {
  try {
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), engine);
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented)
      throw PointSkipped("oneDNN has no matmul implementation for this dtype on this CPU "
                         "(`rooftop info` shows its ISA)");
    throw;
  }
}

}  // namespace

OnednnMatmul::OnednnMatmul(Dtype type, std::int64_t m, std::int64_t n, std::int64_t k, bool widen_bf16)
    : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {
  const auto t = types_of(type);
  const dnnl::memory::desc a_md({m, k}, t.a, tag::ab), b_plain_md({k, n}, t.b, tag::ab),
      b_any_md({k, n}, t.b, tag::any), c_md({m, n}, t.c, tag::ab);
  dnnl::matmul::primitive_desc pd;
  try {
    pd = matmul_pd(a_md, b_any_md, c_md, engine_);
    implementation_ = pd.impl_info_str();
  } catch (const PointSkipped&) {
    if (!(widen_bf16 && type == Dtype::bf16)) throw;
    const dnnl::memory::desc a32({m, k}, dt::f32, tag::ab), b32({k, n}, dt::f32, tag::any), c32({m, n}, dt::f32, tag::ab);
    pd = matmul_pd(a32, b32, c32, engine_);
    a_f32_ = dnnl::memory(a32, engine_);
    c_f32_ = dnnl::memory(c32, engine_);
    implementation_ = fmt::format("{} in fp32 on bf16 data: A widened and C narrowed each call, B widened "
                                  "once (oneDNN has no bf16 matmul on this CPU; a generic path, not a bf16 roof)",
                                  pd.impl_info_str());
  }
  matmul_ = dnnl::matmul(pd);
  a_ = dnnl::memory(a_md, engine_);
  b_plain_ = dnnl::memory(b_plain_md, engine_);
  b_packed_ = pd.weights_desc() == b_plain_md ? b_plain_ : dnnl::memory(pd.weights_desc(), engine_);
  c_ = dnnl::memory(c_md, engine_);
}

void OnednnMatmul::pack_weights() {
  if (b_packed_ == b_plain_) return;
  if (widened()) {  // bf16 -> fp32 plain -> the primitive's layout
    dnnl::memory b32(dnnl::memory::desc(b_plain_.get_desc().dims(), dt::f32, tag::ab), engine_);
    dnnl::reorder(b_plain_, b32).execute(stream_, b_plain_, b32);
    dnnl::reorder(b32, b_packed_).execute(stream_, b32, b_packed_);
  } else {
    dnnl::reorder(b_plain_, b_packed_).execute(stream_, b_plain_, b_packed_);
  }
  stream_.wait();
}

void OnednnMatmul::execute() {
  if (widened()) {
    widen(a_, a_f32_);
    matmul_.execute(stream_, {{DNNL_ARG_SRC, a_f32_}, {DNNL_ARG_WEIGHTS, b_packed_}, {DNNL_ARG_DST, c_f32_}});
    stream_.wait();
    narrow(c_f32_, c_);
  } else {
    matmul_.execute(stream_, {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_packed_}, {DNNL_ARG_DST, c_}});
  }
  stream_.wait();
}

}  // namespace rooftop::cpu
