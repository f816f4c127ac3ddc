#include "harness/name_filter.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include "harness/errors.hpp"

namespace rooftop {

struct NameFilter::Compiled {
  explicit Compiled(std::string_view pattern) : re(re2::StringPiece(pattern.data(), pattern.size()), options()) {}
  static RE2::Options options() {
    RE2::Options o;
    o.set_log_errors(false);
    return o;
  }
  RE2 re;
};

NameFilter::NameFilter(std::string_view pattern, std::string_view flag, bool negatable) {
  if (negatable && pattern.starts_with("-")) {
    negative_ = true;
    pattern.remove_prefix(1);
  }
  re_ = std::make_unique<Compiled>(pattern);
  if (!re_->re.ok())
    throw InputError(fmt::format("{} '{}' is not a valid regular expression ({}; RE2 syntax: no backreferences or "
                                 "lookaround)", flag, pattern, re_->re.error()));
}

NameFilter::~NameFilter() = default;
NameFilter::NameFilter(NameFilter&&) noexcept = default;

bool NameFilter::matches(std::string_view name) const {
  return RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), re_->re) != negative_;
}

std::string exact_names_pattern(const std::vector<std::string>& names) {
  std::string re = "^(?:";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) re += "|";
    for (char c : names[i]) {
      if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) re += '\\';
      re += c;
    }
  }
  return re + ")$";
}

}  // namespace rooftop
