#include "devices/cuda/cublaslt_matmul.hpp"

#include <fmt/format.h>

#include <cstring>

#include "devices/cuda/cublaslt_api.hpp"
#include "devices/cuda/gpu_kernels.hpp"
#include "harness/errors.hpp"

namespace rooftop::gpu {
namespace {

constexpr std::size_t kWorkspaceBytes = 64ull << 20;  // cuBLASLt asks for 32 MiB or more on Hopper

struct Types {
  cudaDataType_t ab, cd, scale;
  cublasComputeType_t compute;
  int min_cc;  // major*10 + minor
};
Types types_of(Dtype d) {
  switch (d) {
    case Dtype::fp32: return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 0};
    case Dtype::tf32: return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 80};
    case Dtype::bf16: return {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 80};
    case Dtype::fp16: return {CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 70};
    case Dtype::fp8: return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 89};
    case Dtype::int8: return {CUDA_R_8I, CUDA_R_32I, CUDA_R_32I, CUBLAS_COMPUTE_32I, 61};
  }
  return {};
}

int compute_capability() {
  int device = 0, major = 0, minor = 0;
  ROOFTOP_GPU_CHECK(cudaGetDevice(&device));
  ROOFTOP_GPU_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  ROOFTOP_GPU_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

template <class T>
T algo_config(const CublasLtApi& lt, const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr) {
  T value{};
  std::size_t written = 0;
  lt.cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof value, &written);
  return value;
}
}  // namespace

double CublasLtMatmul::device_bytes(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k) {
  const double in = static_cast<double>(input_size(dtype)), out = static_cast<double>(accumulator_output_size(dtype));
  return (static_cast<double>(m) * k + static_cast<double>(n) * k) * in + static_cast<double>(m) * n * out +
         kWorkspaceBytes;
}

CublasLtMatmul::CublasLtMatmul(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k) : dtype_(dtype) {
  a_ = DeviceBuffer(static_cast<std::size_t>(m * k) * input_size(dtype));
  b_ = DeviceBuffer(static_cast<std::size_t>(n * k) * input_size(dtype));
  d_ = DeviceBuffer(static_cast<std::size_t>(m * n) * accumulator_output_size(dtype));
  setup({m, n, k});
}

CublasLtMatmul::CublasLtMatmul(Dtype dtype, const MatmulShape& shape) : dtype_(dtype) {
  if (dtype != Dtype::bf16 && dtype != Dtype::fp16 && !(dtype == Dtype::fp8 && shape.batch == 1))
    throw PointSkipped("products on the caller's buffers take bf16 or fp16, or fp8 unbatched");
  setup(shape);
}

void CublasLtMatmul::setup(const MatmulShape& shape) {
  const Dtype dtype = dtype_;
  const std::int64_t m = shape.m, n = shape.n, k = shape.k;
  const Types t = types_of(dtype);
  if (const int cc = compute_capability(); cc < t.min_cc)
    throw PointSkipped(fmt::format("{} GEMM needs compute capability {}.{} or newer; this GPU is {}.{}", dtype_name(dtype),
                                   t.min_cc / 10, t.min_cc % 10, cc / 10, cc % 10));
  const auto& lt = cublaslt();  // throws PointSkipped when cuBLASLt is absent
  workspace_ = DeviceBuffer(kWorkspaceBytes);

  cublasLtHandle_t handle = nullptr;
  ROOFTOP_CUBLAS_CHECK(lt.cublasLtCreate(&handle));
  handle_ = handle;
  cublasLtMatmulDesc_t desc = nullptr;
  ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatmulDescCreate(&desc, t.compute, t.scale));
  desc_ = desc;
  // Column-major view of row-major data: D^T[N,M] = B' x (A as K x M), where B' is B[N,K]
  // (K x N column-major, transposed) or B[K,N] (N x K column-major, as it is).
  const cublasOperation_t transa = shape.b_stored_nk ? CUBLAS_OP_T : CUBLAS_OP_N, transb = CUBLAS_OP_N;
  ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
  ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb));
  if (dtype == Dtype::fp8) {
    // Per-tensor scales, as fp8 inference uses them; 1.0 keeps the reference simple. Each
    // scale on its own 16-byte boundary: cuBLASLt refuses the product otherwise (seen:
    // CUBLAS_STATUS_NOT_SUPPORTED at cublasLtMatmul, after its heuristic accepted the desc).
    constexpr int kScaleStride = 4;  // floats
    scales_ = DeviceBuffer(2 * kScaleStride * sizeof(float));
    const float ones[2 * kScaleStride] = {1.0f, 0, 0, 0, 1.0f, 0, 0, 0};
    ROOFTOP_GPU_CHECK(cudaMemcpy(scales_.get(), ones, sizeof ones, cudaMemcpyHostToDevice));
    const void* a_scale = scales_.as<float>();
    const void* b_scale = scales_.as<float>() + kScaleStride;
    ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale));
    ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale));
  }
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
  if (shape.b_stored_nk)
    ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatrixLayoutCreate(&la, t.ab, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(n), k));
  else
    ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatrixLayoutCreate(&la, t.ab, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(k), n));
  layouts_[0] = la;
  ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatrixLayoutCreate(&lb, t.ab, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(m), k));
  layouts_[1] = lb;
  const cudaDataType_t cd = shape.d_fp32 ? CUDA_R_32F : t.cd;
  ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatrixLayoutCreate(&ld, cd, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(m), n));
  layouts_[2] = ld;
  if (shape.batch > 1) {
    const std::int32_t count = static_cast<std::int32_t>(shape.batch);
    const std::int64_t strides[3] = {shape.stride_b, shape.stride_a, shape.stride_d};  // cuBLAS's A is our B
    for (int i = 0; i < 3; ++i) {
      auto* l = static_cast<cublasLtMatrixLayout_t>(layouts_[i]);
      ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
      ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i],
                                                              sizeof strides[i]));
    }
  }

  cublasLtMatmulPreference_t pref = nullptr;
  ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatmulPreferenceCreate(&pref));
  const std::size_t ws = kWorkspaceBytes;
  ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t status = lt.cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, ld, ld, pref, 1, &result, &found);
  lt.cublasLtMatmulPreferenceDestroy(pref);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || found == 0)
    throw PointSkipped(fmt::format("cuBLASLt has no {} algorithm for M={} N={} K={} on this GPU", dtype_name(dtype), m, n, k));
  ROOFTOP_CUBLAS_CHECK(status);
  static_assert(sizeof(cublasLtMatmulAlgo_t) <= sizeof algo_);
  std::memcpy(algo_, &result.algo, sizeof result.algo);
  const auto version = lt.cublasLtGetVersion();
  const int algo_id = algo_config<int>(lt, result.algo, CUBLASLT_ALGO_CONFIG_ID);
  algorithm_label_ = fmt::format("cuBLASLt algo {}", algo_id);
  algorithm_ = fmt::format("cublasLt {}.{}.{} algo {} tile {} stages {} splitK {} cluster {}", version / 10000,
                           (version / 100) % 100, version % 100, algo_id,
                           algo_config<std::uint32_t>(lt, result.algo, CUBLASLT_ALGO_CONFIG_TILE_ID),
                           algo_config<std::uint32_t>(lt, result.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID),
                           algo_config<std::uint32_t>(lt, result.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
                           algo_config<std::uint16_t>(lt, result.algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID));
}

CublasLtMatmul::~CublasLtMatmul() {
  const auto& lt = cublaslt();
  for (void* l : layouts_)
    if (l) lt.cublasLtMatrixLayoutDestroy(static_cast<cublasLtMatrixLayout_t>(l));
  if (desc_) lt.cublasLtMatmulDescDestroy(static_cast<cublasLtMatmulDesc_t>(desc_));
  if (handle_) lt.cublasLtDestroy(static_cast<cublasLtHandle_t>(handle_));
}

void CublasLtMatmul::execute() {
  if (dtype_ == Dtype::int8) {
    const std::int32_t alpha = 1, beta = 0;
    enqueue(a_.get(), b_.get(), d_.get(), &alpha, &beta);
  } else {
    execute_on(a_.get(), b_.get(), d_.get(), 1);
  }
}

void CublasLtMatmul::execute_on(const void* a, const void* b, void* d, float alpha, float beta) {
  enqueue(a, b, d, &alpha, &beta);
}

void CublasLtMatmul::enqueue(const void* a, const void* b, void* d, const void* alpha, const void* beta) {
  const auto& lt = cublaslt();
  auto* ld = static_cast<cublasLtMatrixLayout_t>(layouts_[2]);
  cublasLtMatmulAlgo_t algo;
  std::memcpy(&algo, algo_, sizeof algo);
  // Weights (B) are cuBLAS's A operand in the column-major view; activations its B.
  ROOFTOP_CUBLAS_CHECK(lt.cublasLtMatmul(static_cast<cublasLtHandle_t>(handle_), static_cast<cublasLtMatmulDesc_t>(desc_),
                                         alpha, b, static_cast<cublasLtMatrixLayout_t>(layouts_[0]), a,
                                         static_cast<cublasLtMatrixLayout_t>(layouts_[1]), beta, d, ld, d, ld,
                                         &algo, workspace_.get(), workspace_.bytes(), stream()));
}

}  // namespace rooftop::gpu
