#include "harness/shape_sets.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "harness/dtype.hpp"
#include "harness/errors.hpp"

namespace rooftop {
namespace {

constexpr std::string_view kSpace = " \t\r\v\f";

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (std::size_t at = 0;;) {
    const auto next = s.find(sep, at);
    parts.push_back(s.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    if (next == std::string_view::npos) return parts;
    at = next + 1;
  }
}

bool contains(const std::vector<std::string>& v, std::string_view x) { return std::find(v.begin(), v.end(), x) != v.end(); }

struct State {
  std::vector<std::string> backends;  // empty = any
  std::vector<std::string> dtypes;
  bool dtypes_set = false;
  std::vector<std::pair<std::string, std::string>> labels;
};

class Parser {
 public:
  Parser(std::string_view origin, int line) : origin_(origin), line_(line) {}

  [[noreturn]] void fail(const std::string& what) const { throw InputError(fmt::format("{}:{}: {}", origin_, line_, what)); }

  void directive(std::string_view token, State& state) const {
    const auto eq = token.find('=');
    if (eq == std::string_view::npos)
      fail(fmt::format("directive '{}' has no '=': write --key=value, e.g. --dtype=fp32 (--key= clears a label)", token));
    const std::string_view key = token.substr(2, eq - 2), value = token.substr(eq + 1);
    if (key.empty()) fail(fmt::format("directive '{}' names no key: write --key=value, e.g. --set=square", token));
    if (key == "backend") state.backends = backends(value);
    else if (key == "dtype") {
      state.dtypes = dtypes(value);
      state.dtypes_set = true;
    } else {
      const auto label = std::find_if(state.labels.begin(), state.labels.end(), [&](const auto& l) { return l.first == key; });
      if (value.empty()) {
        if (label != state.labels.end()) state.labels.erase(label);
      } else if (label != state.labels.end()) {
        label->second = std::string(value);
      } else {
        state.labels.emplace_back(std::string(key), std::string(value));
      }
    }
  }

 private:
  std::vector<std::string> backends(std::string_view value) const {
    const auto usage = "write --backend=cpu,cuda, or --backend=* for any backend";
    if (value.empty()) fail(fmt::format("--backend= lists no backend: {}", usage));
    if (value == "*") return {};
    std::vector<std::string> list;
    for (auto b : split(value, ',')) {
      if (b.empty()) fail(fmt::format("--backend={} has an empty name in its list: {}", value, usage));
      if (b == "*") fail(fmt::format("--backend={}: '*' (any backend) stands alone: {}", value, usage));
      if (contains(list, b)) fail(fmt::format("--backend={} lists {} twice", value, b));
      list.emplace_back(b);
    }
    return list;
  }

  std::vector<std::string> dtypes(std::string_view value) const {
    if (value.empty()) fail("--dtype= lists no dtype: write e.g. --dtype=fp32,bf16");
    std::vector<std::string> list;
    for (auto d : split(value, ',')) {
      if (d.empty()) fail(fmt::format("--dtype={} has an empty name in its list: write e.g. --dtype=fp32,bf16", value));
      try {
        parse_dtype(d);
      } catch (const InputError& e) {
        fail(fmt::format("--dtype={}: {}", value, e.what()));
      }
      if (contains(list, d)) fail(fmt::format("--dtype={} lists {} twice", value, d));
      list.emplace_back(d);
    }
    return list;
  }

  std::string_view origin_;
  int line_;
};

}  // namespace

std::vector<ShapeEntry> parse_shape_set(std::string_view text, std::string_view origin) {
  std::vector<ShapeEntry> entries;
  State state;
  int number = 0;
  for (std::string_view line : split(text, '\n')) {
    ++number;
    const Parser parser(origin, number);
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    if (line.starts_with("--")) {
      // One or more directives, separated by spaces.
      while (!line.empty()) {
        const auto end = line.find_first_of(kSpace);
        const std::string_view token = line.substr(0, end);
        if (!token.starts_with("--"))
          parser.fail(fmt::format("'{}' follows a directive on its line: a directive line holds only --key=value "
                                  "directives; put each shape on a line of its own",
                                  token));
        parser.directive(token, state);
        line = end == std::string_view::npos ? std::string_view() : trim(line.substr(end));
      }
      continue;
    }
    if (line.find_first_of(kSpace) != std::string_view::npos)
      parser.fail(fmt::format("'{}' is not one shape: write one shape a line, with no spaces, and directives "
                              "(--key=value) on lines that start with --",
                              line));
    if (!state.dtypes_set)
      parser.fail(fmt::format("shape '{}' comes before any --dtype: put a line such as --dtype=fp32,bf16 above it", line));
    entries.push_back({state.backends, state.dtypes, std::string(line), state.labels, number});
  }
  return entries;
}

bool applies_to(const ShapeEntry& entry, std::string_view backend) {
  return entry.backends.empty() || contains(entry.backends, backend);
}

std::vector<std::pair<const ShapeEntry*, std::string>> expand_by_dtype(const std::vector<ShapeEntry>& entries,
                                                                       std::string_view backend) {
  std::vector<std::string> order;
  for (const auto& e : entries)
    if (applies_to(e, backend))
      for (const auto& d : e.dtypes)
        if (!contains(order, d)) order.push_back(d);
  std::vector<std::pair<const ShapeEntry*, std::string>> points;
  for (const auto& d : order)
    for (const auto& e : entries)
      if (applies_to(e, backend) && contains(e.dtypes, d)) points.emplace_back(&e, d);
  return points;
}

}  // namespace rooftop
