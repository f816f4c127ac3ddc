// A uniform batch on a paged decoder: sequence b owns blocks b * per .. (b + 1) * per - 1.
#include <fmt/format.h>

#include <numeric>
#include <stdexcept>

#include "suites/inference/kv_block_pool.hpp"
#include "suites/inference/paged_decoder.hpp"

namespace rooftop::inference {
namespace {

class UniformOverPaged final : public Decoder {
 public:
  UniformOverPaged(std::unique_ptr<PagedDecoder> paged, std::int64_t batch, std::int64_t max_context, std::int64_t page)
      : paged_(std::move(paged)), batch_(batch), max_context_(max_context), per_(blocks_for(max_context, page)) {
    blocks_.resize(static_cast<std::size_t>(batch * per_));
    std::iota(blocks_.begin(), blocks_.end(), 0);
  }
  void forward(std::span<const std::int32_t> tokens, std::int64_t per_seq, std::span<std::int32_t> next) override {
    if (length_ + per_seq > max_context_) throw std::logic_error("the KV cache is full");
    std::vector<SequenceChunk> chunks;
    for (std::int64_t b = 0; b < batch_; ++b)
      chunks.push_back({length_, per_seq, std::span<const std::int32_t>(blocks_).subspan(static_cast<std::size_t>(b * per_),
                                                                                         static_cast<std::size_t>(per_)),
                        true});
    paged_->forward_chunks(tokens, chunks, next);
    length_ += per_seq;
  }
  std::int64_t length() const override { return length_; }
  void set_length(std::int64_t length) override {
    if (length < 0 || length > max_context_) throw std::logic_error("cache length out of range");
    length_ = length;
  }
  void fill_cache_randomly(std::int64_t, std::uint64_t) override {
    throw std::logic_error("a paged decoder's uniform view runs from real tokens only");
  }
  void prepare_rows(std::int64_t) override {}
  const std::vector<float>& logits() override { return paged_->logits(); }
  void poison_logits() override { paged_->poison_logits(); }
  std::string implementation() const override { return paged_->implementation(); }
  std::string implementation_label() const override { return paged_->implementation_label(); }
  void set_recorder(StageRecorder*) override {}

 private:
  std::unique_ptr<PagedDecoder> paged_;
  std::int64_t batch_, max_context_, per_, length_ = 0;
  std::vector<std::int32_t> blocks_;
};

}  // namespace

DecoderFactory uniform_over_paged(PagedDecoderFactory paged, std::int64_t page) {
  return [paged = std::move(paged), page](const DecoderWeights& w, std::int64_t batch, std::int64_t context, std::int64_t layers) {
    return std::unique_ptr<Decoder>(std::make_unique<UniformOverPaged>(paged(w, batch * blocks_for(context, page), page, context, layers),
                                                                       batch, context, page));
  };
}

}  // namespace rooftop::inference
