#pragma once
// The paged KV cache's block allocator with admission by reservation: a request is admitted
// only when blocks for its whole footprint (prompt plus forced output) can be reserved, so a
// running sequence's next block is always there (take() never fails) and a full cache
// makes requests wait in the queue instead of failing or being preempted.
#include <cstdint>
#include <span>
#include <vector>

namespace rooftop::inference {

class BlockPool {
 public:
  explicit BlockPool(std::int64_t blocks);
  // Sets `count` free blocks aside for one sequence; false (nothing changes) when fewer than
  // that are neither in use nor reserved: the caller queues the request.
  bool reserve(std::int64_t count);
  // A block from the reservations made (std::logic_error when none is left: a scheduler bug).
  std::int32_t take();
  // A finished sequence's blocks back to the pool, and what it reserved but never took.
  void release(std::span<const std::int32_t> blocks, std::int64_t unused_reservation);

  std::int64_t total() const { return total_; }
  std::int64_t in_use() const { return total_ - static_cast<std::int64_t>(free_.size()); }
  std::int64_t reserved() const { return reserved_; }  // set aside, not yet taken
  std::int64_t available() const { return static_cast<std::int64_t>(free_.size()) - reserved_; }

 private:
  std::int64_t total_;
  std::int64_t reserved_ = 0;
  std::vector<std::int32_t> free_;  // a stack: the most recently freed block is reused first
};

// Blocks that `positions` positions need at `page` positions a block.
// Rounded up without forming positions + page - 1: cache=9223372036854775807 wrapped to a
// negative count, and the cache asked for was silently replaced by the default.
inline std::int64_t blocks_for(std::int64_t positions, std::int64_t page) {
  return positions / page + (positions % page != 0 ? 1 : 0);
}

}  // namespace rooftop::inference
