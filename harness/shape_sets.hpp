#pragma once
// Shape sets: a tier's sweep as data, benchdnn's batch files in spirit. A shape-set file is
// lines of text:
//
//   # a comment, to the end of the line; blank lines are ignored
//   --backend=cpu,cuda   backends of the shape lines that follow (--backend=* : any; the default)
//   --dtype=fp32,bf16    their dtypes (required before the first shape line)
//   --set=square         any other --key=value labels the shape lines that follow;
//   --set=               an empty value clears that label
//   256x256x256          any other line is one shape in the family's own --shape syntax
//
// Several directives may share a line, separated by spaces. The parser does not read the
// shapes: each family turns (shape, dtype) into points with its own shape parser.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rooftop {

struct ShapeEntry {
  std::vector<std::string> backends;  // empty = any backend
  std::vector<std::string> dtypes;    // dtype names, as written (each one parse_dtype knows)
  std::string shape;                  // the family's shape text, e.g. "2048x2048x2048"
  std::vector<std::pair<std::string, std::string>> labels;  // in the order they were first set
  int line = 0;                       // 1-based line in the file
};

// Throws InputError "ORIGIN:LINE: what is wrong and how to write it" on a shape line before
// any --dtype, an unknown dtype, a directive without '=', an empty backend or dtype list,
// or a shape line with spaces in it.
std::vector<ShapeEntry> parse_shape_set(std::string_view text, std::string_view origin);

bool applies_to(const ShapeEntry& entry, std::string_view backend);

// The points' order: for each dtype in order of its first appearance among the entries that
// apply to `backend`, each of those entries listing that dtype, in file order.
std::vector<std::pair<const ShapeEntry*, std::string>> expand_by_dtype(const std::vector<ShapeEntry>& entries,
                                                                       std::string_view backend);

}  // namespace rooftop
