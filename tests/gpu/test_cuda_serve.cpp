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
  // Page 4 and head dim 32: every row on the ragged kernels. Page 16 with head dims 64 and 128:
  // the decode rows on the split-KV kernel, each at its own length; group 3 (query heads per
  // KV head, the layout that hid a slow path before), 1, 8 and 16; head dim 96: no split
  // kernel, the ragged one for every row.
  struct Variant {
    std::int64_t heads, kv_heads, head_dim, page;
  };
  for (const Variant v : {Variant{8, 2, 32, 4}, Variant{6, 2, 64, 16}, Variant{4, 4, 128, 16}, Variant{8, 1, 64, 32},
                          Variant{16, 1, 128, 16}, Variant{3, 1, 96, 16}}) {
    auto config = load_model_config("tiny");
    config.heads = v.heads;
    config.kv_heads = v.kv_heads;
    config.head_dim = v.head_dim;
    const auto w = random_decoder_weights(config, Dtype::bf16, 21 + static_cast<std::uint64_t>(v.head_dim + v.heads));
    const PagedDecoderFactory paged = [](const DecoderWeights& weights, std::int64_t blocks, std::int64_t page,
                                         std::int64_t context, std::int64_t layers) {
      return std::unique_ptr<PagedDecoder>(std::make_unique<CudaServeDecoder>(weights, blocks, page, context, layers));
    };
    INFO("heads " << v.heads << "/" << v.kv_heads << " x " << v.head_dim << ", page " << v.page);
    const auto alone = uniform_over_paged(paged, v.page);
    const auto reference = check_decoder(w, 2, 12, alone);
    INFO(reference.worst_element);
    CHECK(reference.passed);
    std::vector<ScheduledRequest> requests;
    // 37 + 6 and 30 + 7 keys cross page boundaries at 4, 16 and 32; 1-token prompts decode at once.
    const std::int64_t prompts[] = {37, 5, 23, 1, 30, 12, 19}, outputs[] = {6, 9, 1, 7, 3, 8, 5};
    for (int i = 0; i < 7; ++i) requests.push_back({0, prompts[i], outputs[i], false});
    SchedulerConfig sc;
    sc.token_budget = 12;  // prompts chunked beside the decodes
    sc.max_sequences = 3;  // requests wait for a slot, join and leave mid-batch
    sc.page = v.page;
    sc.blocks = 2 * blocks_for(37 + 6 - 1, v.page);  // and wait for blocks, reusing freed ones
    for (const bool graphs : {false, true}) {  // graphs: decode-only steps replayed, padded to their bucket
      CudaServeDecoder decoder(w, sc.blocks, sc.page, 64, -1, graphs);
      if (graphs) decoder.prepare_steps(sc.token_budget, sc.max_sequences);
      const bool split = v.page >= 16 && v.head_dim != 96;
      CHECK_THAT(decoder.implementation(), Catch::Contains(split ? "split-KV" : "generic"));
      CHECK_THAT(decoder.implementation(), Catch::Contains(graphs && split ? "CUDA graphs" : "eager launches"));
      const auto served = check_served_tokens(w, decoder, sc, requests, alone, 7);
      INFO((graphs ? "graphs: " : "eager: ") << served.worst_element);
      CHECK(served.passed);
      CHECK(served.elements_checked == 39);
    }
  }
}
