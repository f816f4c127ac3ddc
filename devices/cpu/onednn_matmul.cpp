#include "devices/cpu/onednn_matmul.hpp"

#include <fmt/format.h>

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
}  // namespace

OnednnMatmul::OnednnMatmul(Dtype type, std::int64_t m, std::int64_t n, std::int64_t k)
    : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {
  const auto t = types_of(type);
  const dnnl::memory::desc a_md({m, k}, t.a, tag::ab), b_plain_md({k, n}, t.b, tag::ab),
      b_any_md({k, n}, t.b, tag::any), c_md({m, n}, t.c, tag::ab);
  dnnl::matmul::primitive_desc pd;
  try {
    pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_any_md, c_md), engine_);
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented)
      throw PointSkipped("oneDNN has no matmul implementation for this dtype on this CPU "
                         "(`rooftop info` shows its ISA)");
    throw;
  }
  implementation_ = pd.impl_info_str();
  matmul_ = dnnl::matmul(pd);
  a_ = dnnl::memory(a_md, engine_);
  b_plain_ = dnnl::memory(b_plain_md, engine_);
  b_packed_ = pd.weights_desc() == b_plain_md ? b_plain_ : dnnl::memory(pd.weights_desc(), engine_);
  c_ = dnnl::memory(c_md, engine_);
}

void OnednnMatmul::pack_weights() {
  if (b_packed_ != b_plain_) {
    dnnl::reorder(b_plain_, b_packed_).execute(stream_, b_plain_, b_packed_);
    stream_.wait();
  }
}

void OnednnMatmul::execute() {
  matmul_.execute(stream_, {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_packed_}, {DNNL_ARG_DST, c_}});
  stream_.wait();
}

}  // namespace rooftop::cpu
