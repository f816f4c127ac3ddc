#pragma once
// A regular expression over point names (--filter, --benchmark_filter), matched by RE2 in
// time linear in the name: std::regex backtracks, and a pattern such as '(.*)*X' took
// minutes on one name. RE2's syntax is Perl's without backreferences and lookaround.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rooftop {

class NameFilter {
 public:
  // Throws InputError naming `flag` and what is wrong with the pattern. A leading '-'
  // negates when `negatable` (Google Benchmark's --benchmark_filter=-pattern).
  NameFilter(std::string_view pattern, std::string_view flag, bool negatable = false);
  ~NameFilter();
  NameFilter(NameFilter&&) noexcept;
  // True when the pattern is found anywhere in the name (an unanchored search).
  bool matches(std::string_view name) const;

 private:
  struct Compiled;
  std::unique_ptr<Compiled> re_;
  bool negative_ = false;
};

// An RE2 pattern that matches exactly these names and no other.
std::string exact_names_pattern(const std::vector<std::string>& names);

}  // namespace rooftop
