#include "suites/inference/cuda_gemv.cuh"

#include <stdexcept>

#include "devices/cuda/gpu_runtime.hpp"
#include "suites/inference/cuda_gemv_launch.hpp"

namespace rooftop::inference::kernels {

using gemv_detail::launch_rows;

bool gemv_fits(std::int64_t m, std::int64_t n, std::int64_t k, GemvEpilogue e, bool fp8) {
  return m >= 1 && m <= kGemvMaxRows && k % (fp8 ? 16 : 8) == 0 && n >= 1 && (e != GemvEpilogue::swiglu || n % 2 == 0);
}

const std::vector<GemvConfig>& gemv_configs() {
  static const std::vector<GemvConfig> configs{{2, 128}, {4, 128}, {4, 256}, {8, 256}};
  return configs;
}

std::string gemv_config_name(const GemvConfig& c) {
  std::string name = "r";  // appended piece by piece: g++ 12 warns (-Wrestrict) on a chain of operator+
  name += std::to_string(c.rows);
  name += 't';
  name += std::to_string(c.threads);
  return name;
}

void gemv(const void* x, const void* w, void* y, std::int64_t m, std::int64_t n, std::int64_t k, GemvEpilogue e,
          const GemvConfig& c, const GemvFp8* fp8, const GemvNorm* norm, const GemvRope* rope) {
  if (norm && fp8) throw std::invalid_argument("the GEMV's RMSNorm prologue is bf16 only");
  if (e == GemvEpilogue::rope_cache && (!rope || rope->d % 2 != 0 || n != (rope->heads + 2 * rope->kv_heads) * rope->d))
    throw std::invalid_argument("the GEMV's RoPE epilogue needs [q; k; v] rows of an even head dim");
  if (c == GemvConfig{2, 128}) launch_rows<2, 128>(x, w, y, m, n, k, e, fp8, norm, rope);
  else if (c == GemvConfig{4, 128}) launch_rows<4, 128>(x, w, y, m, n, k, e, fp8, norm, rope);
  else if (c == GemvConfig{8, 256}) launch_rows<8, 256>(x, w, y, m, n, k, e, fp8, norm, rope);
  else launch_rows<4, 256>(x, w, y, m, n, k, e, fp8, norm, rope);
  ROOFTOP_GPU_CHECK_LAUNCH("gemv");
}

}  // namespace rooftop::inference::kernels
