#pragma once
// What a run measured, for its headers: "tier quick", or "given shapes" for a run of --shape
// (its points are the user's shapes, not the tier's sweep: it has no tier to name).
#include <algorithm>
#include <string>
#include <string_view>

namespace rooftop::reports {

inline std::string run_scope(const std::string& tier, const std::string& command) {
  std::size_t start = 0;
  while (start < command.size()) {  // the command line as run records it: arguments joined by spaces
    const auto end = std::min(command.find(' ', start), command.size());
    const std::string_view word(command.data() + start, end - start);
    if (word == "--shape" || word.starts_with("--shape=")) return "given shapes";
    start = end + 1;
  }
  return "tier " + (tier.empty() ? std::string("?") : tier);
}

}  // namespace rooftop::reports
