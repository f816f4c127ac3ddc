// GPU tests of the serve scenario's CUDA decoder (label gpu, in rooftop_gpu_tests): the
// ragged, paged forward against the double-precision reference, and each request served
// (batched, chunked, paged, joining and leaving mid-batch) equal to the request alone.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "suites/inference/cuda_serve_decoder.hpp"
#include "suites/inference/decoder_weights.hpp"
#include "suites/inference/inference_check.hpp"
#include "suites/inference/model_config.hpp"
#include "suites/inference/serve_instance.hpp"

using namespace rooftop;
using namespace rooftop::inference;

TEST_CASE("serve: the CUDA paged decoder matches the reference, and each request served gives its tokens alone",
          "[gpu][inference][serve]") {
  const auto config = load_model_config("tiny");
  const auto w = random_decoder_weights(config, Dtype::bf16, 21);
  const PagedDecoderFactory paged = [](const DecoderWeights& weights, std::int64_t blocks, std::int64_t page,
                                       std::int64_t context, std::int64_t layers) {
    return std::unique_ptr<PagedDecoder>(std::make_unique<CudaServeDecoder>(weights, blocks, page, context, layers));
  };
  const auto alone = uniform_over_paged(paged, 4);
  const auto reference = check_decoder(w, 2, 12, alone);
  INFO(reference.worst_element);
  CHECK(reference.passed);
  std::vector<ScheduledRequest> requests;
  const std::int64_t prompts[] = {37, 5, 23, 1, 30, 12, 19}, outputs[] = {6, 9, 1, 7, 3, 8, 5};
  for (int i = 0; i < 7; ++i) requests.push_back({0, prompts[i], outputs[i], false});
  SchedulerConfig sc;
  sc.token_budget = 12;  // prompts chunked beside the decodes
  sc.max_sequences = 3;  // requests wait for a slot, join and leave mid-batch
  sc.page = 4;
  sc.blocks = 2 * blocks_for(37 + 6 - 1, 4);  // and wait for blocks, reusing freed ones
  CudaServeDecoder decoder(w, sc.blocks, sc.page, 64);
  const auto served = check_served_tokens(w, decoder, sc, requests, alone, 7);
  INFO(served.worst_element);
  CHECK(served.passed);
  CHECK(served.elements_checked == 39);
}
