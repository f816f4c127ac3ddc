#pragma once
// An inference point on any backend: its weights, its decoder (from the backend's factory)
// and its scenario (prefill, decode, generate), timed a repetition, checked against the
// reference, and profiled stage by stage.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/problem.hpp"
#include "suites/inference/decoder.hpp"
#include "suites/inference/inference_problem.hpp"

namespace rooftop::inference {

// A checkout's real weights where the model is its folder, else seeded random ones.
DecoderWeights load_weights(const std::string& model, Dtype dtype, std::uint64_t seed);

class InferenceInstance final : public ScenarioInstance {
 public:
  InferenceInstance(const Problem& problem, std::uint64_t seed, DecoderFactory make);

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
  DecoderWeights weights_;
  std::unique_ptr<Decoder> decoder_;
  std::vector<std::int32_t> prompt_, next_;
  bool given_prompt_ = false;
};

}  // namespace rooftop::inference
