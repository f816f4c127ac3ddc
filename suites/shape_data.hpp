#pragma once
// The tier sweeps' shape-set files (suites/<family>/shapes/<tier>.txt), compiled into the
// binary by suites/embed_shape_sets.cmake; parse them with rooftop::parse_shape_set
// (harness/shape_sets.hpp).
#include <string_view>
#include <vector>

namespace rooftop {

// The text of suites/<family>/shapes/<tier>.txt as it was at build time, e.g.
// embedded_shape_set("gemm", "quick"); empty when there is no such file.
std::string_view embedded_shape_set(std::string_view family, std::string_view tier);
// Any other data file of a family compiled in (suites/<family>/models/<name>.json):
// embedded_file("inference", "models/tiny.json"); empty when there is none.
std::string_view embedded_file(std::string_view family, std::string_view path);
// The names of a family's files in one folder ("models"), e.g. {"tiny.json", ...}.
std::vector<std::string_view> embedded_files(std::string_view family, std::string_view folder);

}  // namespace rooftop
