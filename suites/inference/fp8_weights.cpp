// bf16 decoder weights to fp8 e4m3 with per-tensor scales (decoder_weights.hpp).
#include <algorithm>
#include <cmath>

#include "harness/bf16.hpp"
#include "harness/errors.hpp"
#include "harness/fp8.hpp"
#include "harness/random_fill.hpp"
#include "suites/inference/decoder_weights.hpp"
#include "suites/inference/reference_decoder.hpp"

namespace rooftop::inference {
namespace {

// A bf16 matrix to e4m3 with the scale that maps its largest magnitude to 448.
std::vector<std::uint8_t> quantize_matrix(const std::vector<std::uint8_t>& bf16, Fp8Scales& scales) {
  const auto* in = reinterpret_cast<const std::uint16_t*>(bf16.data());
  const std::size_t n = bf16.size() / 2;
  float amax = 0;
#pragma omp parallel for reduction(max : amax) schedule(static)
  for (std::size_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(bf16_to_float(in[i])));
  scales.weight = amax > 0 ? amax / 448.0f : 1.0f;
  const float inverse = fp8_inverse_scale(scales.weight);
  std::vector<std::uint8_t> out(n);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) out[i] = float_to_fp8_e4m3(bf16_to_float(in[i]) * inverse);
  return out;
}

}  // namespace

DecoderWeights quantize_to_fp8(DecoderWeights w, std::uint64_t seed, std::int64_t calibration_tokens) {
  if (w.dtype != Dtype::bf16) throw std::logic_error("quantize_to_fp8 takes bf16 weights");
  w.dtype = Dtype::fp8;
  // A tied head is multiplied as its own e4m3 copy; the embedding's rows stay bf16.
  w.lm_head = quantize_matrix(w.lm_head.empty() ? w.embedding : w.lm_head, w.head_scale);
  for (auto& L : w.layers) {
    L.qkv = quantize_matrix(L.qkv, L.qkv_scale);
    L.o = quantize_matrix(L.o, L.o_scale);
    L.gate_up = quantize_matrix(L.gate_up, L.gate_up_scale);
    L.down = quantize_matrix(L.down, L.down_scale);
  }
  std::vector<std::int32_t> prompt(static_cast<std::size_t>(std::max<std::int64_t>(calibration_tokens, 1)));
  for (std::size_t i = 0; i < prompt.size(); ++i)
    prompt[i] = static_cast<std::int32_t>(uniform_at(splitmix64(seed ^ 0xf8), i, 0, static_cast<double>(w.config.vocab)));
  calibrate_fp8_input_scales(w, prompt);
  return w;
}

}  // namespace rooftop::inference
