// A serve point's name: what it serves, options at their defaults left out.
#include "suites/inference/serve_point_name.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace rooftop::inference {
namespace {

// A number as a name may hold it: 2.5 as "2p5".
std::string name_number(double x) {
  std::string s = fmt::format("{}", x);
  std::replace(s.begin(), s.end(), '.', 'p');
  return s;
}

// FNV-1a over the pairs in order, folded to 32 bits.
std::uint32_t pairs_digest(const std::vector<LengthPair>& pairs) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto mix = [&](std::int64_t v) {
    for (int byte = 0; byte < 8; ++byte) h = (h ^ ((static_cast<std::uint64_t>(v) >> (8 * byte)) & 0xff)) * 0x100000001b3ull;
  };
  for (const auto& p : pairs) {
    mix(p.prompt);
    mix(p.output);
  }
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

std::string lengths_slug(const std::string& lengths) {
  if (lengths.starts_with("fixed=")) {
    auto v = lengths.substr(6);
    std::replace(v.begin(), v.end(), '/', '-');
    return "fixed" + v;
  }
  if (lengths.starts_with("file=")) return fmt::format("file-{:08x}", pairs_digest(read_lengths_file(lengths.substr(5))));
  return "chat";
}

}  // namespace

std::string serve_point_slug(const ServeLoad& l) {
  const ServeLoad defaults;
  ServeLoad default_warmup;
  default_warmup.requests = l.requests;
  std::string s = fmt::format("r{}_n{}_{}", name_number(l.rate), l.requests, lengths_slug(l.lengths));
  if (l.warmup_requests() != default_warmup.warmup_requests()) s += fmt::format("_warmup{}", l.warmup_requests());
  if (l.window_s != defaults.window_s) s += "_window" + name_number(l.window_s);
  if (l.seed != defaults.seed) s += fmt::format("_seed{}", l.seed);
  if (l.batch != defaults.batch) s += fmt::format("_batch{}", l.batch);
  if (l.budget != defaults.budget) s += fmt::format("_budget{}", l.budget);
  if (l.cache != defaults.cache) s += fmt::format("_cache{}", l.cache);
  return s;
}

}  // namespace rooftop::inference
