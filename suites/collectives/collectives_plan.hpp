#pragma once
// The points of a collectives run: collective x dtype x size (nccl-tests' min, max, factor)
// x in place or not, for a known number of ranks. Sizes are nccl-tests' "size" column; the
// tiers' ranges are in shapes/*.txt.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "harness/dtype.hpp"
#include "harness/problem.hpp"
#include "suites/collectives/collective.hpp"

namespace rooftop::collectives {

// "8", "64K", "256M", "4G" (powers of 1024); throws InputError.
std::size_t parse_size(std::string_view text);
std::string size_label(std::size_t bytes);  // the reverse, exact: "4G", "1536K", "100"
// min, min x factor, ... up to max (nccl-tests' -b, -e, -f).
std::vector<std::size_t> size_range(std::size_t min, std::size_t max, double factor);

// The reason a size cannot be used on `ranks` ranks (empty if it can): sizes that do not
// divide into whole elements per rank are refused, not padded.
std::string unusable_size(const Collective& c, std::size_t size, Dtype dtype, int ranks);

// A collectives point's typed shape, attached by make_collective_problem.
struct CollectivePoint {
  const Collective* collective = nullptr;  // the registered collective (collectives_table.cpp)
  std::size_t size_bytes = 0;              // nccl-tests' "size"
  bool in_place = false;
  int ranks = 1;
};

// `c` outlives the point (a registered collective: find_collective).
Problem make_collective_problem(const Collective& c, Dtype dtype, std::size_t size, bool in_place, int ranks,
                                std::string_view backend);
const CollectivePoint& point_of(const Problem& p);
const Collective& collective_of(const Problem& p);
// The user's shape: NAME:MIN[-MAX[:fFACTOR]][:inplace], e.g. all_reduce:1K-4G:f2.
std::vector<Problem> parse_collective_shape(std::string_view text, Dtype dtype, int ranks, std::string_view backend);

}  // namespace rooftop::collectives
