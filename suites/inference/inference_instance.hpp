#pragma once
// An inference point on any backend: its weights, its decoder (from the backend's factory)
// and its scenario (prefill, decode, generate), timed a repetition, checked against the
// reference, and profiled stage by stage.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/problem.hpp"
#include "suites/inference/decoder.hpp"
#include "suites/inference/inference_problem.hpp"

namespace rooftop::inference {

// A checkout's real weights where the model is its folder, else seeded random ones.
DecoderWeights load_weights(const std::string& model, Dtype dtype, std::uint64_t seed);
// Tensor parallel, rank `rank` of the shape's tp: seeded random weights drawn as the rank's
// shard alone (random_shard_weights); a checkout's weights whole (the decoder slices them).
DecoderWeights load_rank_weights(const std::string& model, Dtype dtype, std::uint64_t seed, int tp, int rank);

class InferenceInstance final : public ScenarioInstance {
 public:
  // `tp_rank`: this process's rank where the shape is tensor parallel (its decoders, from
  // `make`, are that rank's).
  InferenceInstance(const Problem& problem, std::uint64_t seed, DecoderFactory make, int tp_rank = 0);

  std::string implementation() const override { return decoder_->implementation(); }
  std::string implementation_label() const override { return decoder_->implementation_label(); }
  std::string generic_path() const override;
  Correctness check() override;
  void run() override { run_repetition(); }
  ScenarioRepetition run_repetition() override;
  std::vector<StageWork> profile(StageRecorder& recorder) override;
  // prefill and generate: each sequence's greedy tokens after the prompt (the shape's output
  // length; a prefill's one), and the top 16 logits at the prompt's last position, for up
  // to kOutputSequences sequences. decode (a random cache): null.
  nlohmann::ordered_json outputs() override;

 private:
  std::int64_t max_context() const;
  ScenarioRepetition prefill();
  ScenarioRepetition decode();
  ScenarioRepetition generate();

  InferenceShape shape_;
  std::uint64_t seed_;
  DecoderFactory make_;
  DecoderWeights weights_;  // the model's, or a tensor-parallel rank's shard
  ModelConfig model_;       // the whole model's
  // A shard's check: the model's first kCheckLayers layers, whole (the reference reads them).
  std::optional<DecoderWeights> check_weights_;
  std::unique_ptr<Decoder> decoder_;
  std::vector<std::int32_t> prompt_, next_;
  bool given_prompt_ = false;
};

}  // namespace rooftop::inference
