// An inference point: the scenarios timed on a backend's decoder.
#include "suites/inference/inference_instance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "harness/errors.hpp"
#include "harness/random_fill.hpp"
#include "harness/stage_trace.hpp"
#include "harness/statistics.hpp"
#include "suites/inference/inference_check.hpp"
#include "suites/inference/tensor_parallel.hpp"

namespace rooftop::inference {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::vector<std::int32_t> random_tokens(std::int64_t count, std::int64_t vocab, std::uint64_t seed) {
  std::vector<std::int32_t> t(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < t.size(); ++i)
    t[i] = static_cast<std::int32_t>(uniform_at(seed, i, 0, static_cast<double>(vocab)));
  return t;
}

}  // namespace

DecoderWeights load_weights(const std::string& model, Dtype dtype, std::uint64_t seed) {
  const auto config = load_model_config(model);
  const auto files = checkpoint_files(model);
  return files.empty() ? random_decoder_weights(config, dtype, seed) : load_decoder_weights(config, dtype, files);
}


DecoderWeights load_rank_weights(const std::string& model, Dtype dtype, std::uint64_t seed, int tp, int rank) {
  const auto config = load_model_config(model);
  if (tp <= 1 || !checkpoint_files(model).empty()) return load_weights(model, dtype, seed);
  return random_shard_weights(config, dtype, seed, tensor_parallel_slice(config, tp, rank));
}

InferenceInstance::InferenceInstance(const Problem& p, std::uint64_t seed, DecoderFactory make, int tp_rank)
    : shape_(shape_of(p)), seed_(seed), make_(std::move(make)),
      weights_(shape_.scenario == Scenario::serve
                   ? throw PointSkipped("a serve point runs on its backend's paged decoder (ServeInstance); this "
                                        "backend registers none")
                   : load_rank_weights(shape_.model, p.dtype, seed, shape_.tp, tp_rank)),
      model_(weights_.model_config()) {
  if (weights_.shard) check_weights_ = random_decoder_weights(model_, p.dtype, seed, kCheckLayers);
  decoder_ = make_(weights_, shape_.batch, max_context(), -1);
  const auto& c = model_;
  prompt_ = random_tokens(shape_.batch * std::max<std::int64_t>(shape_.prompt, 1), c.vocab, seed + 1);
  const auto& given = point_of(p).prompt_tokens;
  given_prompt_ = !given.empty();
  if (given_prompt_) {  // run --prompt: every sequence of the batch gets it
    for (std::size_t i = 0; i < prompt_.size(); ++i) prompt_[i] = given[i % given.size()];
  }
  next_.assign(static_cast<std::size_t>(shape_.batch), 0);
  if (shape_.scenario == Scenario::decode) decoder_->fill_cache_randomly(shape_.context, seed + 2);
  else decoder_->prepare_rows(shape_.batch * shape_.prompt);
}

std::string InferenceInstance::generic_path() const {
  const std::string prefill = decoder_->generic_path(shape_.prompt), decode = decoder_->generic_path(1);
  switch (shape_.scenario) {
    case Scenario::prefill: return prefill;
    case Scenario::decode: return decode;
    case Scenario::generate: return prefill.empty() || prefill == decode ? decode : decode.empty() ? prefill : prefill + "; " + decode;
    case Scenario::serve: break;  // ServeInstance
  }
  return {};
}

Correctness InferenceInstance::check() {
  return check_decoder(check_weights_ ? *check_weights_ : weights_, shape_.batch, seed_ + 3, make_);
}

ScenarioRepetition InferenceInstance::run_repetition() {
  switch (shape_.scenario) {
    case Scenario::prefill: return prefill();
    case Scenario::decode: return decode();
    case Scenario::generate: return generate();
    case Scenario::serve: break;  // ServeInstance
  }
  return {};
}

std::vector<ScenarioInstance::StageWork> InferenceInstance::profile(StageRecorder& recorder) {
  decoder_->set_recorder(&recorder);
  const auto done = [&] { recorder.next_forward(); };
  std::vector<StageWork> work;
  // Tensor parallel: a rank's stages (rank 0's share), and the all-reduces the split adds.
  const ModelConfig& model = model_;
  const ModelConfig stages_of = shape_.tp > 1 ? rank_config(model, tensor_parallel_slice(model, shape_.tp, 0)) : model;
  const auto with_all_reduces = [&](std::vector<StageWork> stages, std::int64_t rows) {
    for (auto& st : all_reduce_stage_work(model, rows, shape_.tp, decoder_->all_reduce_element_bytes()))
      stages.push_back(std::move(st));
    return stages;
  };
  try {
    switch (shape_.scenario) {
      case Scenario::prefill:
        for (int r = 0; r < 3; ++r) {
          decoder_->set_length(0);
          decoder_->forward(prompt_, shape_.prompt, next_);
          done();
        }
        work = with_all_reduces(stage_work(stages_of, shape_.batch, 0, shape_.prompt, weights_.dtype,
                                           decoder_->swiglu_in_gate_up(shape_.prompt)),
                                shape_.batch * shape_.prompt);
        break;
      case Scenario::decode:
        decoder_->set_length(shape_.context);
        for (std::int64_t s = 0; s < kDecodeSteps; ++s) {
          decoder_->forward(next_, 1, next_);
          done();
        }
        work = with_all_reduces(stage_work(stages_of, shape_.batch, shape_.context, 1, weights_.dtype,
                                           decoder_->swiglu_in_gate_up(1), decoder_->norms_in_projections(1),
                                           decoder_->rope_in_qkv(1), decoder_->final_norm_in_head(1)),
                                shape_.batch);
        break;
      case Scenario::generate:  // mixed forwards: a picture for the trace, no stage points
        decoder_->set_length(0);
        decoder_->forward(prompt_, shape_.prompt, next_);
        done();
        for (std::int64_t g = 1; g < std::min<std::int64_t>(shape_.generate, 4); ++g) {
          decoder_->forward(next_, 1, next_);
          done();
        }
        break;
      case Scenario::serve: break;  // ServeInstance
    }
  } catch (...) {
    decoder_->set_recorder(nullptr);
    throw;
  }
  decoder_->set_recorder(nullptr);
  return work;
}

nlohmann::ordered_json InferenceInstance::outputs() {
  if (shape_.scenario == Scenario::decode) return nullptr;
  constexpr std::int64_t kOutputSequences = 8, kTopLogits = 16;
  const std::int64_t kept = std::min(shape_.batch, kOutputSequences), vocab = model_.vocab;
  const std::int64_t steps = std::max<std::int64_t>(shape_.generate, 1);
  decoder_->set_length(0);
  decoder_->forward(prompt_, shape_.prompt, next_);
  nlohmann::ordered_json top = nlohmann::ordered_json::array();
  const auto& logits = decoder_->logits();
  for (std::int64_t b = 0; b < kept; ++b) {
    std::vector<std::int32_t> ids(static_cast<std::size_t>(vocab));
    std::iota(ids.begin(), ids.end(), 0);
    const float* row = logits.data() + b * vocab;
    const auto k = std::min(kTopLogits, vocab);
    std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&](std::int32_t x, std::int32_t y) {
      return row[x] > row[y] || (row[x] == row[y] && x < y);
    });
    ids.resize(static_cast<std::size_t>(k));
    std::vector<double> values;
    for (auto id : ids) values.push_back(row[id]);
    top.push_back({{"ids", ids}, {"logits", values}});
  }
  std::vector<std::vector<std::int32_t>> tokens(static_cast<std::size_t>(kept));
  for (std::int64_t step = 0; step < steps; ++step) {
    if (step > 0) decoder_->forward(next_, 1, next_);
    for (std::int64_t b = 0; b < kept; ++b) tokens[static_cast<std::size_t>(b)].push_back(next_[static_cast<std::size_t>(b)]);
  }
  return {{"prompt", given_prompt_ ? "given (--prompt; params.prompt_tokens)" : "seeded random token ids"},
          {"sequences", kept},
          {"greedy_tokens", tokens},
          {"top_logits", top}};
}

std::int64_t InferenceInstance::max_context() const { return positions_needed(shape_); }

ScenarioRepetition InferenceInstance::prefill() {
  decoder_->set_length(0);
  const auto t0 = Clock::now();
  decoder_->forward(prompt_, shape_.prompt, next_);
  const double ttft = seconds_since(t0);
  return {ttft, 1, {{"ttft_s", ttft}, {"prompt_tokens_per_s", static_cast<double>(shape_.batch * shape_.prompt) / ttft}}};
}

ScenarioRepetition InferenceInstance::decode() {
  decoder_->set_length(shape_.context);
  const auto t0 = Clock::now();
  for (std::int64_t s = 0; s < kDecodeSteps; ++s) decoder_->forward(next_, 1, next_);
  const double tpot = seconds_since(t0) / static_cast<double>(kDecodeSteps);
  return {tpot, kDecodeSteps, {{"tpot_s", tpot}, {"output_tokens_per_s", static_cast<double>(shape_.batch) / tpot}}};
}

ScenarioRepetition InferenceInstance::generate() {
  decoder_->set_length(0);
  const auto t0 = Clock::now();
  decoder_->forward(prompt_, shape_.prompt, next_);
  const double ttft = seconds_since(t0);
  std::vector<double> gaps;
  for (std::int64_t g = 1; g < shape_.generate; ++g) {
    const auto step = Clock::now();
    decoder_->forward(next_, 1, next_);
    gaps.push_back(seconds_since(step));
  }
  const double total = seconds_since(t0);
  const double itl_mean = gaps.empty() ? 0 : std::accumulate(gaps.begin(), gaps.end(), 0.0) / static_cast<double>(gaps.size());
  const double itl_p99 = gaps.empty() ? 0 : quantile(gaps, 0.99);
  return {total, 1, {{"ttft_s", ttft}, {"itl_mean_s", itl_mean}, {"itl_p99_s", itl_p99}, {"e2e_s", total},
                     {"output_tokens_per_s", static_cast<double>(shape_.batch * shape_.generate) / total}}};
}

}  // namespace rooftop::inference
