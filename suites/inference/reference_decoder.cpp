#include "suites/inference/reference_decoder.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/bf16.hpp"
#include "harness/dtype_facts.hpp"
#include "harness/fp8.hpp"

namespace rooftop::inference {
namespace {

// An fp8 projection's input as the GPU multiplies it: stored in bf16, quantised to e4m3
// with the input scale (saturating). A calibrating forward first sets the scale from x.
std::vector<double> quantized_input(const std::vector<double>& x, Fp8Scales& scales, bool calibrate) {
  std::vector<double> q(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) q[i] = bf16_to_float(float_to_bf16(static_cast<float>(x[i])));
  if (calibrate) {
    double amax = 0;
    for (double v : q) amax = std::max(amax, std::fabs(v));
    scales.input = amax > 0 ? static_cast<float>(amax / 448.0) : 1.0f;
  }
  const float inverse = fp8_inverse_scale(scales.input);
  for (double& v : q) v = fp8_e4m3_to_float(float_to_fp8_e4m3(static_cast<float>(v) * inverse));
  return q;
}

// y[r][n] = sum_k x[r][k] W[n][k], W in the weights' dtype (fp8: x quantised, then both
// scales applied to the sum).
std::vector<double> project(const std::vector<double>& x_in, std::int64_t rows, std::int64_t k, const std::uint8_t* w,
                            std::int64_t n, Dtype dtype, Fp8Scales& scales, bool calibrate) {
  const bool fp8 = dtype == Dtype::fp8;
  const std::vector<double> quantized = fp8 ? quantized_input(x_in, scales, calibrate) : std::vector<double>{};
  const std::vector<double>& x = fp8 ? quantized : x_in;
  const double out_scale = fp8 ? static_cast<double>(scales.input) * static_cast<double>(scales.weight) : 1.0;
  std::vector<double> y(static_cast<std::size_t>(rows * n), 0.0);
#pragma omp parallel
  {
    std::vector<double> row(static_cast<std::size_t>(k));  // W[j] widened once for every row of x
#pragma omp for schedule(static)
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t i = 0; i < k; ++i) row[static_cast<std::size_t>(i)] = load_element(dtype, w, static_cast<std::size_t>(j * k + i));
      for (std::int64_t r = 0; r < rows; ++r) {
        double acc = 0;
        for (std::int64_t i = 0; i < k; ++i) acc += x[static_cast<std::size_t>(r * k + i)] * row[static_cast<std::size_t>(i)];
        y[static_cast<std::size_t>(r * n + j)] = acc * out_scale;
      }
    }
  }
  return y;
}

std::vector<double> rms_norm(const std::vector<double>& h, std::int64_t rows, std::int64_t n, const std::vector<float>& weight,
                             double eps) {
  std::vector<double> out(h.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    double sq = 0;
    for (std::int64_t i = 0; i < n; ++i) sq += h[static_cast<std::size_t>(r * n + i)] * h[static_cast<std::size_t>(r * n + i)];
    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(n) + eps);
    for (std::int64_t i = 0; i < n; ++i)
      out[static_cast<std::size_t>(r * n + i)] = h[static_cast<std::size_t>(r * n + i)] * inv * weight[static_cast<std::size_t>(i)];
  }
  return out;
}

// Every row of y (rows of bias.size() values) plus the bias; none when empty.
void add_bias(std::vector<double>& y, const std::vector<float>& bias) {
  if (bias.empty()) return;
  for (std::size_t i = 0; i < y.size(); ++i) y[i] += bias[i % bias.size()];
}

// The forward; `calibrate`: set each fp8 input scale on the way (w is then written).
std::vector<double> forward(DecoderWeights& w, const std::vector<std::int32_t>& tokens, std::int64_t layers, bool calibrate,
                            std::span<const double> rope_frequencies = {}) {
  const auto& c = w.config;
  const auto t_count = static_cast<std::int64_t>(tokens.size());
  const std::int64_t hidden = c.hidden, d = c.head_dim, width = c.qkv_width(), group = c.heads / c.kv_heads;
  const auto frequencies = rope_frequencies.empty() ? c.rope_inverse_frequencies()
                                                   : std::vector<double>(rope_frequencies.begin(), rope_frequencies.end());
  if (frequencies.size() != static_cast<std::size_t>(d / 2)) throw std::invalid_argument("one rope frequency a pair of a head");
  const double amplitude = c.rope_amplitude();
  std::vector<double> h(static_cast<std::size_t>(t_count * hidden));
  for (std::int64_t t = 0; t < t_count; ++t)
    for (std::int64_t i = 0; i < hidden; ++i)
      h[static_cast<std::size_t>(t * hidden + i)] =
          load_element(w.embedding_dtype(), w.embedding.data(), static_cast<std::size_t>(tokens[static_cast<std::size_t>(t)] * hidden + i));
  const auto n_layers = layers < 0 ? w.layers.size() : std::min(w.layers.size(), static_cast<std::size_t>(layers));
  for (std::size_t l = 0; l < n_layers; ++l) {
    auto& L = w.layers[l];
    auto qkv = project(rms_norm(h, t_count, hidden, L.attn_norm, c.rms_eps), t_count, hidden, L.qkv.data(), width, w.dtype,
                       L.qkv_scale, calibrate);
    add_bias(qkv, L.qkv_bias);
    for (std::int64_t t = 0; t < t_count; ++t)
      for (std::int64_t head = 0; head < c.heads + c.kv_heads; ++head)
        for (std::int64_t i = 0; i < d / 2; ++i) {
          const double angle = static_cast<double>(t) * frequencies[static_cast<std::size_t>(i)];
          double& a = qkv[static_cast<std::size_t>(t * width + head * d + i)];
          double& b = qkv[static_cast<std::size_t>(t * width + head * d + i + d / 2)];
          const double a0 = a, b0 = b;
          const double cos = amplitude * std::cos(angle), sin = amplitude * std::sin(angle);
          a = a0 * cos - b0 * sin;
          b = b0 * cos + a0 * sin;
        }
    std::vector<double> attn(static_cast<std::size_t>(t_count * c.heads * d), 0.0);
    for (std::int64_t t = 0; t < t_count; ++t)
      for (std::int64_t head = 0; head < c.heads; ++head) {
        const std::int64_t g = head / group;
        const std::int64_t first = c.first_attended(static_cast<std::int64_t>(l), t);  // a sliding window's
        std::vector<double> scores(static_cast<std::size_t>(t + 1), 0.0);
        double max = -1e300, sum = 0;
        for (std::int64_t j = first; j <= t; ++j) {
          double s = 0;
          for (std::int64_t i = 0; i < d; ++i)
            s += qkv[static_cast<std::size_t>(t * width + head * d + i)] * qkv[static_cast<std::size_t>(j * width + (c.heads + g) * d + i)];
          scores[static_cast<std::size_t>(j)] = s / std::sqrt(static_cast<double>(d));
          max = std::max(max, scores[static_cast<std::size_t>(j)]);
        }
        for (std::int64_t j = first; j <= t; ++j) sum += (scores[static_cast<std::size_t>(j)] = std::exp(scores[static_cast<std::size_t>(j)] - max));
        for (std::int64_t j = first; j <= t; ++j)
          for (std::int64_t i = 0; i < d; ++i)
            attn[static_cast<std::size_t>(t * c.heads * d + head * d + i)] +=
                scores[static_cast<std::size_t>(j)] / sum * qkv[static_cast<std::size_t>(j * width + (c.heads + c.kv_heads + g) * d + i)];
      }
    auto o = project(attn, t_count, c.heads * d, L.o.data(), hidden, w.dtype, L.o_scale, calibrate);
    add_bias(o, L.o_bias);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] += o[i];
    auto gu = project(rms_norm(h, t_count, hidden, L.mlp_norm, c.rms_eps), t_count, hidden, L.gate_up.data(),
                      2 * c.intermediate, w.dtype, L.gate_up_scale, calibrate);
    add_bias(gu, L.gate_up_bias);
    std::vector<double> act(static_cast<std::size_t>(t_count * c.intermediate));
    for (std::int64_t t = 0; t < t_count; ++t)
      for (std::int64_t i = 0; i < c.intermediate; ++i) {
        const double g = gu[static_cast<std::size_t>(t * 2 * c.intermediate + i)];
        act[static_cast<std::size_t>(t * c.intermediate + i)] = g / (1 + std::exp(-g)) * gu[static_cast<std::size_t>(t * 2 * c.intermediate + c.intermediate + i)];
      }
    auto down = project(act, t_count, c.intermediate, L.down.data(), hidden, w.dtype, L.down_scale, calibrate);
    add_bias(down, L.down_bias);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] += down[i];
  }
  const std::vector<double> last(h.end() - hidden, h.end());
  const auto x = rms_norm(last, 1, hidden, w.final_norm, c.rms_eps);
  return project(x, 1, hidden, w.head(), c.vocab, w.dtype, w.head_scale, calibrate);
}

}  // namespace

std::vector<double> reference_logits(const DecoderWeights& w, const std::vector<std::int32_t>& tokens, std::int64_t layers,
                                     std::span<const double> rope_frequencies) {
  return forward(const_cast<DecoderWeights&>(w), tokens, layers, false, rope_frequencies);  // not calibrating: nothing is written
}

void calibrate_fp8_input_scales(DecoderWeights& w, const std::vector<std::int32_t>& tokens) {
  if (w.dtype == Dtype::fp8) forward(w, tokens, -1, true);
}

}  // namespace rooftop::inference
