#include "suites/attention/attention_cudnn_graph.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <vector>

#include "devices/cuda/cudnn_api.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "harness/errors.hpp"

namespace rooftop::attention {

using gpu::CudnnDescriptor;
using Dims = std::array<std::int64_t, 4>;

namespace {
// The graph's named tensors; virtual (on-chip) ones number from kFirstVirtual.
enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kScale, kMaskedScore, kFirstVirtual = 100 };

Dims packed(const Dims& dims) { return {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1}; }
}  // namespace

struct CudnnSdpa::Graph {
  std::deque<CudnnDescriptor> parts;  // tensors and operations, alive as long as the graph
  std::vector<cudnnBackendDescriptor_t> operations;
  std::int64_t next_virtual = kFirstVirtual;
  CudnnDescriptor operation_graph{CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR};
  std::vector<CudnnDescriptor> configs;  // the heuristics' ranking; the plan's stays alive with it
  CudnnDescriptor plan{CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR};
  CudnnDescriptor variant_pack{CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR};
  gpu::DeviceBuffer workspace;
  float scale = 1;
  float masked_score = std::numeric_limits<float>::lowest();  // exp() of it minus a row's max is 0
  std::int64_t engine = -1, workspace_bytes = 0;
  std::size_t choice = 0, choices = 0;
  bool causal = false;

  CudnnDescriptor& keep(CudnnDescriptor d) { return parts.emplace_back(std::move(d)); }

  const CudnnDescriptor& tensor(cudnnDataType_t type, const Dims& dims, const Dims& strides, std::int64_t uid,
                                bool by_value = false) {
    const bool is_virtual = uid >= kFirstVirtual;
    CudnnDescriptor t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type)
        .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data())
        .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data())
        .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, uid)
        .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, std::int64_t{16})
        .set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual);
    if (by_value) t.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value);
    return keep(std::move(t.finalize()));
  }
  const CudnnDescriptor& virtual_tensor(cudnnDataType_t type, const Dims& dims) {
    return tensor(type, dims, packed(dims), next_virtual++);
  }
  const CudnnDescriptor& scalar(std::int64_t uid) { return tensor(CUDNN_DATA_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, uid, true); }

  void add(CudnnDescriptor op) { operations.push_back(keep(std::move(op.finalize())).raw()); }

  // y = mode(x[, b][, t]) elementwise; b broadcasts (a scalar, or one value a row).
  void pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t precision, const CudnnDescriptor& x,
                 const CudnnDescriptor* b, const CudnnDescriptor& y, const CudnnDescriptor* t = nullptr,
                 std::int64_t axis = -1) {
    CudnnDescriptor pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    pw.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode)
        .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &precision);
    if (axis >= 0) pw.set(CUDNN_ATTR_POINTWISE_AXIS, axis);
    const auto& desc = keep(std::move(pw.finalize()));
    CudnnDescriptor op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, desc).set(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x);
    if (b) op.set(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b);
    if (t) op.set(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, *t);
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y);
    add(std::move(op));
  }

  // y[..., 0] = reduce over the last axis of x.
  void reduction(cudnnReduceTensorOp_t reduce, const CudnnDescriptor& x, const CudnnDescriptor& y) {
    const cudnnDataType_t fp32 = CUDNN_DATA_FLOAT;
    CudnnDescriptor r(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    r.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &reduce)
        .set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &fp32);
    const auto& desc = keep(std::move(r.finalize()));
    CudnnDescriptor op(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_REDUCTION_DESC, desc)
        .set(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x)
        .set(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y);
    add(std::move(op));
  }

  // c = a b over the last two axes, batched over the first two (b's heads broadcast over a's).
  void matmul(const CudnnDescriptor& a, const CudnnDescriptor& b, const CudnnDescriptor& c) {
    const cudnnDataType_t fp32 = CUDNN_DATA_FLOAT;
    CudnnDescriptor m(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    m.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &fp32);
    const auto& desc = keep(std::move(m.finalize()));
    CudnnDescriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_MATMUL_DESC, desc)
        .set(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a)
        .set(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b)
        .set(CUDNN_ATTR_OPERATION_MATMUL_CDESC, c);
    add(std::move(op));
  }

  void build(const AttentionShape& s, cudnnDataType_t io) {
    const auto f32 = CUDNN_DATA_FLOAT;
    const Dims q_dims{s.b, s.hq, s.sq, s.d}, kv_dims{s.b, s.hkv, s.skv, s.d};
    const Dims scores{s.b, s.hq, s.sq, s.skv}, per_row{s.b, s.hq, s.sq, 1};
    const auto& q = tensor(io, q_dims, packed(q_dims), kQ);
    // K^T: K [B,Hkv,Skv,D] read as [B,Hkv,D,Skv].
    const auto& k_t = tensor(io, {s.b, s.hkv, s.d, s.skv}, {s.hkv * s.skv * s.d, s.skv * s.d, 1, s.d}, kK);
    const auto& v = tensor(io, kv_dims, packed(kv_dims), kV);
    const auto& o = tensor(io, q_dims, packed(q_dims), kO);

    const auto& s_raw = virtual_tensor(f32, scores);
    matmul(q, k_t, s_raw);
    const auto& s_scaled = virtual_tensor(f32, scores);
    pointwise(CUDNN_POINTWISE_MUL, f32, s_raw, &scalar(kScale), s_scaled);
    const CudnnDescriptor* s_masked = &s_scaled;
    if (s.causal) {  // sq == skv here: query row i keeps key columns j <= i
      const auto& row = virtual_tensor(CUDNN_DATA_INT32, scores);
      pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, s_scaled, nullptr, row, nullptr, 2);
      const auto& column = virtual_tensor(CUDNN_DATA_INT32, scores);
      pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, s_scaled, nullptr, column, nullptr, 3);
      const auto& keep_score = virtual_tensor(CUDNN_DATA_BOOLEAN, scores);
      pointwise(CUDNN_POINTWISE_CMP_GE, f32, row, &column, keep_score);
      const auto& masked = virtual_tensor(f32, scores);
      pointwise(CUDNN_POINTWISE_BINARY_SELECT, f32, s_scaled, &scalar(kMaskedScore), masked, &keep_score);
      s_masked = &masked;
    }
    const auto& row_max = virtual_tensor(f32, per_row);
    reduction(CUDNN_REDUCE_TENSOR_MAX, *s_masked, row_max);
    const auto& shifted = virtual_tensor(f32, scores);
    pointwise(CUDNN_POINTWISE_SUB, f32, *s_masked, &row_max, shifted);
    const auto& e = virtual_tensor(f32, scores);
    pointwise(CUDNN_POINTWISE_EXP, f32, shifted, nullptr, e);
    const auto& row_sum = virtual_tensor(f32, per_row);
    reduction(CUDNN_REDUCE_TENSOR_ADD, e, row_sum);
    // The softmax statistic (max + log sum) on chip, unused by inference: cuDNN 9.19 recognises
    // attention only with it (without, it reads the divide as a dropout and offers no engine).
    const auto& log_sum = virtual_tensor(f32, per_row);
    pointwise(CUDNN_POINTWISE_LOG, f32, row_sum, nullptr, log_sum);
    const auto& stats = virtual_tensor(f32, per_row);
    pointwise(CUDNN_POINTWISE_ADD, f32, row_max, &log_sum, stats);
    const auto& p = virtual_tensor(io, scores);  // P in the input type, as P V's A operand
    pointwise(CUDNN_POINTWISE_DIV, f32, e, &row_sum, p);
    matmul(p, v, o);

    const cudnnHandle_t handle = gpu::cudnn_handle();
    operation_graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                        static_cast<std::int64_t>(operations.size()), operations.data())
        .set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle)
        .finalize();
  }

  // The first engine configuration of the heuristics' ranking that finalizes into a plan.
  void choose_plan() {
    const cudnnHandle_t handle = gpu::cudnn_handle();
    const auto& api = gpu::cudnn();
    std::string refusals;
    for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
      CudnnDescriptor heuristics(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
      heuristics.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, operation_graph)
          .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
      if (!heuristics.try_finalize()) {
        refusals = last_error();
        continue;
      }
      std::int64_t count = 0;
      ROOFTOP_CUDNN_CHECK(api.cudnnBackendGetAttribute(heuristics.raw(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
      configs.clear();
      std::vector<cudnnBackendDescriptor_t> raw;
      for (std::int64_t i = 0; i < count; ++i) raw.push_back(configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR).raw());
      ROOFTOP_CUDNN_CHECK(api.cudnnBackendGetAttribute(heuristics.raw(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count, raw.data()));
      for (std::int64_t i = 0; i < count; ++i) {
        CudnnDescriptor candidate(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        candidate.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle)
            .set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configs[static_cast<std::size_t>(i)]);
        if (!candidate.try_finalize()) {
          refusals = last_error();
          continue;
        }
        plan = std::move(candidate);
        choice = static_cast<std::size_t>(i) + 1;
        choices = static_cast<std::size_t>(count);
        engine = engine_index(configs[static_cast<std::size_t>(i)]);
        std::int64_t n = 0;
        ROOFTOP_CUDNN_CHECK(api.cudnnBackendGetAttribute(plan.raw(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                                         CUDNN_TYPE_INT64, 1, &n, &workspace_bytes));
        return;
      }
    }
    throw PointSkipped(fmt::format("cuDNN {} ({}) offers no engine that runs this attention graph{}{}; "
                                   "CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG=stderr shows each engine's reason, and a "
                                   "newer cuDNN 9 can be named with ROOFTOP_CUDNN",
                                   gpu::cudnn_version(), api.path, refusals.empty() ? "" : ": ", refusals));
  }

  static std::string last_error() {
    char why[256] = {};
    gpu::cudnn().cudnnGetLastErrorString(why, sizeof why);
    return why;
  }

  static std::int64_t engine_index(const CudnnDescriptor& config) {
    const auto& api = gpu::cudnn();
    CudnnDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    std::int64_t n = 0, index = -1;
    auto raw = engine.raw();
    if (api.cudnnBackendGetAttribute(config.raw(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                                     &raw) != CUDNN_STATUS_SUCCESS ||
        api.cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &index) !=
            CUDNN_STATUS_SUCCESS)
      return -1;
    return index;
  }
};

CudnnSdpa::CudnnSdpa(const AttentionShape& s, Dtype dtype) {
  if (auto why = cudnn_unsupported(s, dtype); !why.empty()) throw PointSkipped(why);
  graph_ = std::make_unique<Graph>();
  graph_->scale = 1.0f / std::sqrt(static_cast<float>(s.d));
  graph_->causal = s.causal;
  graph_->build(s, dtype == Dtype::bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF);
  graph_->choose_plan();
  if (graph_->workspace_bytes > 0) graph_->workspace = gpu::DeviceBuffer(static_cast<std::size_t>(graph_->workspace_bytes));
}

CudnnSdpa::~CudnnSdpa() = default;

void CudnnSdpa::bind(const void* q, const void* k, const void* v, void* o) {
  auto& g = *graph_;
  const std::int64_t uids[] = {kQ, kK, kV, kO, kScale, kMaskedScore};
  // By-value scalars are read from host memory at execution; the masked score is in the
  // graph only where it is causal.
  void* pointers[] = {const_cast<void*>(q), const_cast<void*>(k), const_cast<void*>(v), o, &g.scale, &g.masked_score};
  const std::int64_t bound = g.causal ? 6 : 5;
  void* workspace = g.workspace.get();
  g.variant_pack = CudnnDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  g.variant_pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, bound, uids)
      .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, bound, pointers)
      .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace)
      .finalize();
}

void CudnnSdpa::run() const {
  ROOFTOP_CUDNN_CHECK(gpu::cudnn().cudnnBackendExecute(gpu::cudnn_handle(), graph_->plan.raw(), graph_->variant_pack.raw()));
}

std::string CudnnSdpa::description() const {
  const auto& g = *graph_;
  return fmt::format("cuDNN {} graph SDPA, engine {}, heuristic choice {} of {}, workspace {} B", gpu::cudnn_version(),
                     g.engine, g.choice, g.choices, g.workspace_bytes);
}

}  // namespace rooftop::attention
