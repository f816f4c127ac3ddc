#include "suites/inference/kv_block_pool.hpp"

#include <stdexcept>

namespace rooftop::inference {

BlockPool::BlockPool(std::int64_t blocks) : total_(blocks) {
  if (blocks <= 0) throw std::logic_error("a block pool needs blocks");
  for (std::int64_t b = blocks - 1; b >= 0; --b) free_.push_back(static_cast<std::int32_t>(b));
}

bool BlockPool::reserve(std::int64_t count) {
  if (count < 0 || count > available()) return false;
  reserved_ += count;
  return true;
}

std::int32_t BlockPool::take() {
  if (reserved_ <= 0 || free_.empty()) throw std::logic_error("a block taken without a reservation");
  --reserved_;
  const auto block = free_.back();
  free_.pop_back();
  return block;
}

void BlockPool::release(std::span<const std::int32_t> blocks, std::int64_t unused_reservation) {
  if (unused_reservation < 0 || unused_reservation > reserved_) throw std::logic_error("released more than was reserved");
  reserved_ -= unused_reservation;
  for (const auto b : blocks) {
    if (b < 0 || b >= total_ || static_cast<std::int64_t>(free_.size()) >= total_) throw std::logic_error("a block released twice");
    free_.push_back(b);
  }
}

}  // namespace rooftop::inference
