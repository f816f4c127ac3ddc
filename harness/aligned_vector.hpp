#pragma once
// A std::vector whose storage starts on a 64-byte boundary: one cache line, one AVX-512
// register. malloc gives 16, and then every 64-byte load of a kernel that walks rows of
// 64-byte multiples straddles two cache lines.
#include <cstddef>
#include <new>
#include <vector>

namespace rooftop {

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, std::size_t n) { ::operator delete(p, n * sizeof(T), kAlignment); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
};

template <typename T>
using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace rooftop
