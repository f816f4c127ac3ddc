// The serve scenario's offered load: its syntax, the length distributions, the arrival
// schedule and the service-level objective.
#include "suites/inference/serve_load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <charconv>
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>

#include "harness/errors.hpp"
#include "harness/input_file.hpp"
#include "harness/random_fill.hpp"

namespace rooftop::inference {
namespace {

// Stream identifiers mixed into the seed: arrivals and each length draw their own numbers.
constexpr std::uint64_t kArrivals = 0x61727269, kPrompt = 0x70726f6d, kOutput = 0x6f757470;

template <class T>
bool parse_number(std::string_view text, T& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Uniform in (0, 1): never 0, so its logarithm is finite.
double open_uniform(std::uint64_t seed, std::uint64_t index) { return 1.0 - uniform_at(seed, index, 0.0, 1.0); }

// A standard normal (Box-Muller on two seeded uniforms).
double standard_normal(std::uint64_t seed, std::uint64_t index) {
  const double u1 = open_uniform(seed, 2 * index), u2 = open_uniform(seed, 2 * index + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

std::int64_t lognormal(std::uint64_t seed, std::uint64_t index, double median, double sigma, std::int64_t lo, std::int64_t hi) {
  const double x = median * std::exp(sigma * standard_normal(seed, index));
  return std::clamp<std::int64_t>(std::llround(x), lo, hi);
}

std::string seconds_text(double s) { return fmt::format("{:g}", s); }

}  // namespace

ServeLoad parse_serve_load(std::string_view text) {
  const std::string whole(text);
  const auto usage = [&](std::string_view why) {
    return InputError(fmt::format("serve load '{}': {}; write RATExN[:chat|:fixed=P/O|:file=PATH][:warmup=W][:window=S]"
                                  "[:seed=S][:batch=B][:budget=T][:cache=POSITIONS], e.g. 8x512 (8 requests/s, 512 "
                                  "measured) or 4x64:fixed=128/64",
                                  whole, why));
  };
  ServeLoad load;
  std::string_view rest = text;
  const auto colon = rest.find(':');
  const auto sizes = rest.substr(0, colon);
  rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
  const auto x = sizes.find('x');
  if (x == std::string_view::npos) throw usage("the load needs a rate and a request count, RATExN");
  if (!parse_number(sizes.substr(0, x), load.rate) || !std::isfinite(load.rate) || load.rate <= 0)
    throw usage(fmt::format("the rate '{}' is not a positive number of requests a second", sizes.substr(0, x)));
  if (!parse_number(sizes.substr(x + 1), load.requests) || load.requests <= 0)
    throw usage(fmt::format("the request count '{}' is not a positive integer", sizes.substr(x + 1)));
  bool lengths_given = false;
  std::vector<std::string_view> given;
  while (!rest.empty()) {
    std::string_view option = rest;
    if (!rest.starts_with("file=")) {  // a path may hold ':': file= takes the rest
      const auto next = rest.find(':');
      option = rest.substr(0, next);
      rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next + 1);
    } else {
      rest = {};
    }
    const auto eq = option.find('=');
    const auto key = option.substr(0, eq), value = eq == std::string_view::npos ? std::string_view{} : option.substr(eq + 1);
    // Each option once (issue 52, N12: warmup=2:warmup=5 ran with 5, the first said nothing).
    if (key != "chat" && key != "fixed" && key != "file") {
      if (std::find(given.begin(), given.end(), key) != given.end())
        throw usage(fmt::format("'{}' is given twice: give each option once", key));
      given.push_back(key);
    }
    if (key == "chat" || key == "fixed" || key == "file") {
      if (lengths_given) throw usage("it names its lengths twice");
      lengths_given = true;
      if (key == "chat") {
        if (eq != std::string_view::npos) throw usage("'chat' takes no value");
        load.lengths = "chat";
        continue;
      }
      if (value.empty()) throw usage(fmt::format("'{}' needs a value ({})", key, key == "fixed" ? "fixed=P/O" : "file=PATH"));
      if (key == "fixed") {
        const auto slash = value.find('/');
        std::int64_t p = 0, o = 0;
        if (slash == std::string_view::npos || !parse_number(value.substr(0, slash), p) || !parse_number(value.substr(slash + 1), o) ||
            p <= 0 || o <= 0)
          throw usage(fmt::format("'fixed={}' is not two positive lengths, PROMPT/OUTPUT", value));
      }
      load.lengths = std::string(option);
    } else if (key == "warmup") {
      if (!parse_number(value, load.warmup) || load.warmup < 0) throw usage(fmt::format("'warmup={}' is not a count", value));
    } else if (key == "window") {
      if (!parse_number(value, load.window_s) || !std::isfinite(load.window_s) || load.window_s < 0)
        throw usage(fmt::format("'window={}' is not a number of seconds", value));
    } else if (key == "batch" || key == "budget" || key == "cache") {
      auto& field = key == "batch" ? load.batch : key == "budget" ? load.budget : load.cache;
      if (!parse_number(value, field) || field <= 0) throw usage(fmt::format("'{}={}' is not a positive count", key, value));
    } else if (key == "seed") {
      if (!parse_number(value, load.seed)) throw usage(fmt::format("'seed={}' is not an unsigned integer", value));
    } else {
      throw usage(fmt::format("'{}' is not an option (chat, fixed=P/O, file=PATH, warmup=W, window=S, seed=S, batch=B, "
                              "budget=T, cache=POSITIONS)",
                              option));
    }
  }
  if (load.budget < load.batch)
    throw usage(fmt::format("a step's token budget ({}) must cover one token of every sequence in the batch ({})", load.budget,
                            load.batch));
  return load;
}

std::string serve_load_label(const ServeLoad& l) {
  std::string s = fmt::format("{}x{}", l.rate, l.requests);
  if (l.warmup >= 0) s += fmt::format(":warmup={}", l.warmup);
  if (l.window_s != kDefaultWindowS) s += ":window=" + seconds_text(l.window_s);
  if (l.seed != kDefaultScheduleSeed) s += fmt::format(":seed={}", l.seed);
  if (l.batch != ServeLoad{}.batch) s += fmt::format(":batch={}", l.batch);
  if (l.budget != ServeLoad{}.budget) s += fmt::format(":budget={}", l.budget);
  if (l.cache) s += fmt::format(":cache={}", l.cache);
  if (l.lengths != "chat") s += ":" + l.lengths;  // last: a file's path may hold ':'

  return s;
}

std::vector<LengthPair> read_lengths_file(const std::filesystem::path& path) {
  std::istringstream in(read_input_file(path, "lengths file ('PROMPT OUTPUT' pairs, one a line)"));
  std::vector<LengthPair> pairs;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (w.empty()) continue;
    LengthPair pair;
    if (w.size() != 2 || !parse_number(std::string_view(w[0]), pair.prompt) || !parse_number(std::string_view(w[1]), pair.output) ||
        pair.prompt <= 0 || pair.output <= 0)
      throw InputError(fmt::format("lengths file '{}' line {}: '{}' is not two positive lengths 'PROMPT OUTPUT'",
                                   path.string(), number, line));
    pairs.push_back(pair);
  }
  if (pairs.empty()) throw InputError(fmt::format("lengths file '{}' holds no 'PROMPT OUTPUT' pairs", path.string()));
  return pairs;
}

LengthPair chat_caps(std::int64_t max_positions) {
  // Two thirds of the positions for the prompt at most; the output gets the rest.
  const std::int64_t prompt = std::min(kChatPromptMax, max_positions * 2 / 3);
  return {prompt, std::min(kChatOutputMax, max_positions - prompt)};
}

LengthPair chat_lengths(std::uint64_t seed, std::uint64_t index, std::int64_t max_positions) {
  const auto caps = chat_caps(max_positions);
  return {lognormal(seed ^ kPrompt, index, kChatPromptMedian, kChatPromptSigma, std::min(kChatPromptMin, caps.prompt), caps.prompt),
          lognormal(seed ^ kOutput, index, kChatOutputMedian, kChatOutputSigma, std::min(kChatOutputMin, caps.output), caps.output)};
}

std::vector<ScheduledRequest> serve_schedule(const ServeLoad& load, std::int64_t max_positions) {
  std::vector<LengthPair> file;
  LengthPair fixed;
  if (load.lengths.starts_with("file=")) file = read_lengths_file(load.lengths.substr(5));
  if (load.lengths.starts_with("fixed=")) {
    const auto v = std::string_view(load.lengths).substr(6);
    const auto slash = v.find('/');
    parse_number(v.substr(0, slash), fixed.prompt);
    parse_number(v.substr(slash + 1), fixed.output);
  }
  if (max_positions < 2) throw InputError("the model has fewer than 2 positions: nothing to serve");
  const std::int64_t warmup = load.warmup_requests();
  std::vector<ScheduledRequest> out;
  double t = 0, first_measured = 0;
  for (std::uint64_t i = 0;; ++i) {
    const auto n = static_cast<std::int64_t>(out.size());
    const std::int64_t measured = n - warmup;
    if (measured >= load.requests && out.back().arrival_s - first_measured >= load.window_s) break;
    if (n >= kMaxScheduledRequests)
      throw InputError(fmt::format("serve load {}: a window of {} s at {} requests/s needs more than {} requests; choose a "
                                   "shorter window or a lower rate",
                                   serve_load_label(load), load.window_s, load.rate, kMaxScheduledRequests));
    t += -std::log(open_uniform(load.seed ^ kArrivals, i)) / load.rate;
    if (!(t <= kMaxScheduleSeconds))
      throw InputError(fmt::format("serve load {}: request {} would arrive {:.3g} s into the run, past the day a serve "
                                   "point may span ({} requests at {:.3g}/s); choose a higher rate or fewer requests",
                                   serve_load_label(load), i, t, load.requests, load.rate));
    ScheduledRequest r;
    r.arrival_s = t;
    r.warmup = n < warmup;
    if (n == warmup) first_measured = t;
    const LengthPair lengths = !file.empty()           ? file[i % file.size()]
                               : fixed.prompt > 0 ? fixed
                                                  : chat_lengths(load.seed, i, max_positions);
    if (lengths.prompt > max_positions - lengths.output)  // not prompt + output: both may be near 2^63
      throw InputError(fmt::format("serve load {}: request {} needs {} positions (prompt {} plus output {}); the model has {} "
                                   "(max_position_embeddings): choose shorter lengths",
                                   serve_load_label(load), i,
                                   lengths.prompt > std::numeric_limits<std::int64_t>::max() - lengths.output
                                       ? std::string("more than 2^63")
                                       : std::to_string(lengths.prompt + lengths.output),
                                   lengths.prompt, lengths.output,
                                   max_positions));
    r.prompt = lengths.prompt;
    r.output = lengths.output;
    out.push_back(r);
  }
  return out;
}

Slo parse_slo(std::string_view text) {
  const std::string whole(text);
  const auto usage = [&](std::string_view why) {
    return InputError(fmt::format("--slo '{}': {}; write e.g. --slo ttft=500ms,tpot=50ms (units s, ms, us)", whole, why));
  };
  Slo slo;
  bool seen_ttft = false, seen_tpot = false;
  if (text.empty()) throw usage("it is empty");
  for (std::string_view rest = text; !rest.empty();) {
    const auto comma = rest.find(',');
    const auto item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) throw usage(fmt::format("'{}' is not KEY=VALUE", item));
    const auto key = item.substr(0, eq);
    auto value = item.substr(eq + 1);
    double scale = 0;  // a time needs its unit: "ttft=500" read as seconds hid a 1000x mistake
    for (const auto& [unit, factor] : {std::pair{"ms", 1e-3}, {"us", 1e-6}, {"s", 1.0}})
      if (value.ends_with(unit)) {
        value.remove_suffix(std::string_view(unit).size());
        scale = factor;
        break;
      }
    double v = 0;
    if (!parse_number(value, v) || !std::isfinite(v) || v <= 0)
      throw usage(fmt::format("'{}' is not a positive time", item.substr(eq + 1)));
    if (scale == 0) throw usage(fmt::format("'{}' has no unit: write {}ms, {}s or {}us", item, item, item, item));
    if ((key == "ttft" && seen_ttft) || (key == "tpot" && seen_tpot))
      throw usage(fmt::format("'{}' is given twice", key));
    (key == "ttft" ? seen_ttft : seen_tpot) = true;
    if (key == "ttft") slo.ttft_s = v * scale;
    else if (key == "tpot") slo.tpot_s = v * scale;
    else throw usage(fmt::format("'{}' is not an objective (ttft, tpot)", key));
  }
  return slo;
}

}  // namespace rooftop::inference
