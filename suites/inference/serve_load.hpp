#pragma once
// The serve scenario's offered load, as MLPerf LoadGen's Server scenario defines it: Poisson
// arrivals at a rate, fixed in advance from a seed (not paced by completions), warm-up
// requests first (run, not counted), then measured requests until both the request count
// and the measurement window are reached. Each request's prompt and output lengths come from
// a seeded chat-like distribution, fixed lengths or a file; the output length is forced
// (end-of-sequence ignored) so runs are comparable. And the service-level objective.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace rooftop::inference {

// The chat-like default (docs/inference.md): lognormal prompt and output lengths, clipped.
inline constexpr double kChatPromptMedian = 256, kChatPromptSigma = 1.0, kChatOutputMedian = 128, kChatOutputSigma = 0.8;
inline constexpr std::int64_t kChatPromptMin = 16, kChatPromptMax = 2048, kChatOutputMin = 16, kChatOutputMax = 1024;
inline constexpr double kDefaultWindowS = 10;
inline constexpr std::uint64_t kDefaultScheduleSeed = 43;
// A schedule longer than this is a typo (a window of hours at a high rate), refused.
inline constexpr std::int64_t kMaxScheduledRequests = 200000;
// A schedule whose arrivals span more than a day is refused at planning: a rate of 1e-300
// would wait for ever (and overflowed the clock's sleep, spinning a core).
inline constexpr double kMaxScheduleSeconds = 86400;

struct ServeLoad {
  double rate = 0;             // requests a second (Poisson)
  std::int64_t requests = 0;   // measured requests, at least
  std::string lengths = "chat";  // "chat", "fixed=P/O" or "file=PATH"
  std::int64_t warmup = -1;    // requests before the measured ones; -1: the default (N / 10, at least 2)
  double window_s = kDefaultWindowS;  // the measured arrivals span at least this
  std::uint64_t seed = kDefaultScheduleSeed;  // the schedule's: arrivals and lengths
  // The engine (serve_scheduler.hpp): sequences in the batch at most, new tokens a step, and
  // the KV cache in positions (0: room for `batch` requests of the schedule's mean footprint).
  std::int64_t batch = 64;
  std::int64_t budget = 512;
  std::int64_t cache = 0;
  std::int64_t warmup_requests() const { return warmup >= 0 ? warmup : std::max<std::int64_t>(2, (requests + 5) / 10); }
};

struct LengthPair {
  std::int64_t prompt = 0, output = 0;
};

struct ScheduledRequest {
  double arrival_s = 0;  // from the start of the run
  std::int64_t prompt = 0, output = 0;
  bool warmup = false;
};

// "RATExN[:OPTION]...": OPTION is chat, fixed=P/O, file=PATH (last: a path may hold ':'),
// warmup=W, window=SECONDS, seed=S, batch=B, budget=T or cache=POSITIONS. Throws InputError naming the part that is wrong.
ServeLoad parse_serve_load(std::string_view text);
// The shape's text for the load, options that differ from the defaults only.
std::string serve_load_label(const ServeLoad& load);

// Reads "PROMPT OUTPUT" pairs, one a line (space or comma between; '#' starts a comment).
// Throws InputError with the line of a malformed pair.
std::vector<LengthPair> read_lengths_file(const std::filesystem::path& path);

// The chat-like distribution's caps on a model of `max_positions` positions.
LengthPair chat_caps(std::int64_t max_positions);
// Request `index`'s chat-like lengths (seeded; the same on every machine).
LengthPair chat_lengths(std::uint64_t seed, std::uint64_t index, std::int64_t max_positions);

// Every request of the run in arrival order, warm-up first. Throws InputError when a
// request does not fit `max_positions` (prompt plus output) or the schedule would exceed
// kMaxScheduledRequests.
std::vector<ScheduledRequest> serve_schedule(const ServeLoad& load, std::int64_t max_positions);

struct Slo {
  double ttft_s = 0.5;   // time to first token, each request's
  double tpot_s = 0.05;  // time per output token after the first, each request's mean
};
// "ttft=500ms,tpot=50ms" (units s, ms, us; either key may be left out: its default stays).
Slo parse_slo(std::string_view text);

}  // namespace rooftop::inference
