// The inference suite's serve scenario: the offered load (shape, lengths, arrival schedule,
// objective), the paged cache's allocator, the scheduler's budget and admission, the
// metrics and the INVALID verdict, and served tokens equal to each request alone.
#include <catch2/catch.hpp>

#include <random>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <thread>

#include "harness/errors.hpp"
#include "harness/measurement_loops.hpp"
#include "suites/inference/cpu_decoder.hpp"
#include "suites/inference/decoder_weights.hpp"
#include "suites/inference/inference_problem.hpp"
#include "suites/inference/kv_block_pool.hpp"
#include "suites/inference/serve_engine.hpp"
#include "suites/inference/serve_instance.hpp"
#include "suites/inference/serve_metrics.hpp"
#include "suites/inference/serve_point_name.hpp"
#include "suites/inference/serve_scheduler.hpp"

using namespace rooftop;
using namespace rooftop::inference;

namespace {

std::filesystem::path temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("serve shapes: rate, requests and options parsed, bad loads refused with the reason", "[inference][serve]") {
  const auto s = parse_inference_shape("tiny:serve:8x64");
  CHECK(s.scenario == Scenario::serve);
  CHECK(s.model == "tiny");
  CHECK(s.serve.rate == 8);
  CHECK(s.serve.requests == 64);
  CHECK(s.serve.lengths == "chat");
  CHECK(s.serve.warmup_requests() == 6);  // N / 10, rounded
  const auto f = parse_inference_shape("tiny:serve:0.5x10:fixed=32/16:warmup=0:window=2.5:seed=9:batch=8:budget=64");
  CHECK(f.serve.rate == 0.5);
  CHECK(f.serve.lengths == "fixed=32/16");
  CHECK(f.serve.warmup_requests() == 0);
  CHECK(f.serve.window_s == 2.5);
  CHECK(f.serve.seed == 9);
  CHECK(f.serve.batch == 8);
  CHECK(f.serve.budget == 64);
  CHECK(parse_serve_load(serve_load_label(f.serve)).lengths == "fixed=32/16");  // the label parses back
  CHECK(parse_inference_shape("tiny:serve:1x4:file=/a:b/c.txt").serve.lengths == "file=/a:b/c.txt");
  CHECK_THROWS_WITH(parse_inference_shape("tiny:serve:0x64"), Catch::Contains("not a positive number of requests a second"));
  CHECK_THROWS_WITH(parse_inference_shape("tiny:serve:8x0"), Catch::Contains("not a positive integer"));
  CHECK_THROWS_WITH(parse_inference_shape("tiny:serve:8"), Catch::Contains("RATExN"));
  CHECK_THROWS_WITH(parse_inference_shape("tiny:serve:8x4:fixed=3/0"), Catch::Contains("not two positive lengths"));
  CHECK_THROWS_WITH(parse_inference_shape("tiny:serve:8x4:graph"), Catch::Contains("'graph' is not an option"));
  CHECK_THROWS_WITH(parse_inference_shape("tiny:serve:8x4:batch=64:budget=8"), Catch::Contains("token budget"));
  CHECK_THROWS_WITH(parse_inference_shape("tiny:serve:8x4:chat:fixed=1/1"), Catch::Contains("lengths twice"));
  // Issue 52, N12: an option given twice ran with the last.
  for (const char* twice : {"warmup=2:warmup=5", "window=0:batch=4:window=1", "seed=1:seed=1", "batch=4:budget=64:budget=32",
                            "cache=64:cache=128"})
    CHECK_THROWS_WITH(parse_serve_load(std::string("8x4:fixed=16/6:") + twice), Catch::Contains("is given twice"));
}

// Issue 52, N6: two loads that differed in batch= (or any option but the lengths, or in the
// lengths file) had one name: refused as a shape asked for twice, and across runs a baseline
// of one gated the other.
TEST_CASE("serve point names: every option not at its default, a lengths file by its pairs", "[inference][serve]") {
  const auto slug = [](const std::string& load) { return serve_point_slug(parse_serve_load(load)); };
  // A load of default options keeps the name it always had; defaults given are defaults.
  CHECK(slug("8x512") == "r8_n512_chat");
  CHECK(slug("4x64:fixed=128/64") == "r4_n64_fixed128-64");
  CHECK(slug("8x512:chat:warmup=51:window=10:seed=43:batch=64:budget=512") == "r8_n512_chat");
  CHECK(slug("0.5x10:warmup=2") == "r0p5_n10_chat");  // N / 10, at least 2
  // Each option that differs, in one order.
  CHECK(slug("40x6:fixed=16/6:window=0:batch=4") == "r40_n6_fixed16-6_window0_batch4");
  CHECK(slug("40x6:fixed=16/6:window=0:batch=8") == "r40_n6_fixed16-6_window0_batch8");
  CHECK(slug("0.5x10:cache=4096:budget=64:batch=8:seed=9:window=2.5:warmup=0:fixed=32/16") ==
        "r0p5_n10_fixed32-16_warmup0_window2p5_seed9_batch8_budget64_cache4096");
  // A lengths file by its pairs in order: the same pairs written otherwise are one load.
  const auto a = temp_file("n6-a.txt", "16 6\n24 4\n"), same = temp_file("n6-same.txt", "# a's\n16,6\n\n24 4\n"),
             other = temp_file("n6-other.txt", "24 4\n16 6\n");
  const auto file = [&](const std::filesystem::path& p) { return slug("40x6:file=" + p.string()); };
  CHECK(file(a).starts_with("r40_n6_file-"));
  CHECK(file(a).size() == std::string("r40_n6_file-").size() + 8);
  CHECK(file(a) == file(same));
  CHECK(file(a) != file(other));
  CHECK(slug("40x6:batch=8:file=" + a.string()) == file(a) + "_batch8");
  for (const auto& p : {a, same, other}) std::filesystem::remove(p);
}

TEST_CASE("the service-level objective: ttft and tpot with units, defaults kept, bad text refused", "[inference][serve]") {
  const auto d = parse_slo("ttft=500ms,tpot=50ms");
  CHECK(d.ttft_s == Approx(0.5));
  CHECK(d.tpot_s == Approx(0.05));
  const auto one = parse_slo("ttft=1s");
  CHECK(one.ttft_s == Approx(1));
  CHECK(one.tpot_s == Approx(Slo{}.tpot_s));
  CHECK(parse_slo("tpot=200us").tpot_s == Approx(2e-4));
  CHECK_THROWS_AS(parse_slo(""), InputError);
  CHECK_THROWS_WITH(parse_slo("ttft=fast"), Catch::Contains("not a positive time"));
  CHECK_THROWS_WITH(parse_slo("ttft=0ms"), Catch::Contains("not a positive time"));
  CHECK_THROWS_WITH(parse_slo("latency=1s"), Catch::Contains("not an objective"));
  CHECK_THROWS_WITH(parse_slo("ttft=500"), Catch::Contains("'ttft=500' has no unit: write ttft=500ms"));
  CHECK_THROWS_WITH(parse_slo("ttft=1s,tpot=20ms,ttft=2s"), Catch::Contains("'ttft' is given twice"));
}

TEST_CASE("the arrival schedule: fixed by the seed, Poisson at the rate, warm-up first, count and window both minimums",
          "[inference][serve]") {
  ServeLoad load = parse_serve_load("20x4000:fixed=8/4:warmup=10:window=0");
  const auto a = serve_schedule(load, 4096), b = serve_schedule(load, 4096);
  REQUIRE(a.size() == 4010);
  CHECK(std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) { return x.arrival_s == y.arrival_s; }));
  CHECK(std::count_if(a.begin(), a.end(), [](const auto& r) { return r.warmup; }) == 10);
  CHECK((a[9].warmup && !a[10].warmup));
  // Exponential gaps: mean 1/rate (standard error 1.6% at 4000), coefficient of variation 1.
  std::vector<double> gaps;
  for (std::size_t i = 1; i < a.size(); ++i) gaps.push_back(a[i].arrival_s - a[i - 1].arrival_s);
  const double mean = std::accumulate(gaps.begin(), gaps.end(), 0.0) / static_cast<double>(gaps.size());
  double var = 0;
  for (double g : gaps) var += (g - mean) * (g - mean);
  const double cv = std::sqrt(var / static_cast<double>(gaps.size())) / mean;
  CHECK(mean == Approx(1.0 / 20).epsilon(0.06));
  CHECK(cv == Approx(1.0).epsilon(0.08));
  CHECK(std::is_sorted(a.begin(), a.end(), [](const auto& x, const auto& y) { return x.arrival_s < y.arrival_s; }));
  // Another seed, another schedule.
  load.seed = 44;
  CHECK(serve_schedule(load, 4096)[5].arrival_s != a[5].arrival_s);
  // The window extends a short count: 10 requests at 20/s span ~0.5 s; a 5 s window needs ~100.
  const auto windowed = serve_schedule(parse_serve_load("20x10:fixed=8/4:warmup=0:window=5"), 4096);
  CHECK(windowed.back().arrival_s - windowed.front().arrival_s >= 5);
  CHECK(windowed.size() > 50);
  CHECK_THROWS_WITH(serve_schedule(parse_serve_load("1000x10:window=100000"), 4096), Catch::Contains("shorter window"));
}

TEST_CASE("serve lengths: chat-like medians inside the model's positions, a file of pairs, too long or malformed refused",
          "[inference][serve]") {
  std::vector<double> prompts, outputs;
  for (std::uint64_t i = 0; i < 2001; ++i) {
    const auto l = chat_lengths(kDefaultScheduleSeed, i, 4096);
    CHECK((l.prompt >= kChatPromptMin && l.prompt <= kChatPromptMax && l.output >= kChatOutputMin && l.output <= kChatOutputMax));
    prompts.push_back(static_cast<double>(l.prompt));
    outputs.push_back(static_cast<double>(l.output));
  }
  std::nth_element(prompts.begin(), prompts.begin() + 1000, prompts.end());
  std::nth_element(outputs.begin(), outputs.begin() + 1000, outputs.end());
  CHECK(prompts[1000] == Approx(kChatPromptMedian).epsilon(0.1));
  CHECK(outputs[1000] == Approx(kChatOutputMedian).epsilon(0.1));
  // A short model caps both: every request fits its positions.
  for (std::uint64_t i = 0; i < 200; ++i) {
    const auto l = chat_lengths(1, i, 256);
    CHECK(l.prompt + l.output <= 256);
  }
  const auto good = temp_file("lengths.txt", "# prompt output\n12 3\n40,7  # a comment\n\n5 1\n");
  const auto pairs = read_lengths_file(good);
  REQUIRE(pairs.size() == 3);
  CHECK((pairs[1].prompt == 40 && pairs[1].output == 7));
  auto load = parse_serve_load("10x5:warmup=0:window=0:file=" + good.string());
  const auto s = serve_schedule(load, 4096);
  CHECK((s[3].prompt == 12 && s[3].output == 3));  // pairs taken in turn
  const auto bad = temp_file("bad-lengths.txt", "12 3\n40 x\n");
  CHECK_THROWS_WITH(read_lengths_file(bad), Catch::Contains("line 2"));
  CHECK_THROWS_WITH(read_lengths_file(good.string() + ".absent"), Catch::Contains("cannot open lengths file"));
  CHECK_THROWS_WITH(serve_schedule(parse_serve_load("10x5:fixed=4000/200"), 4096), Catch::Contains("max_position_embeddings"));
  std::filesystem::remove(good);
  std::filesystem::remove(bad);
}

TEST_CASE("the block pool: reservations never overcommit, take never fails inside one, release frees", "[inference][serve]") {
  BlockPool pool(10);
  CHECK(pool.reserve(6));
  CHECK_FALSE(pool.reserve(5));  // 4 left: the caller queues
  CHECK(pool.available() == 4);
  std::vector<std::int32_t> taken;
  for (int i = 0; i < 6; ++i) taken.push_back(pool.take());
  CHECK(pool.in_use() == 6);
  CHECK_THROWS_AS(pool.take(), std::logic_error);  // beyond the reservation
  std::sort(taken.begin(), taken.end());
  CHECK(std::adjacent_find(taken.begin(), taken.end()) == taken.end());  // distinct blocks
  CHECK(pool.reserve(4));
  pool.take();
  pool.release(std::span(taken).first(6), 0);
  CHECK(pool.in_use() == 1);
  CHECK(pool.available() == 6);  // 9 free, 3 still reserved
  CHECK(blocks_for(17, 16) == 2);
  CHECK(blocks_for(16, 16) == 1);
  // cache=2^63-1 positions: rounded up without wrapping (it became negative and was ignored).
  CHECK(blocks_for(std::numeric_limits<std::int64_t>::max(), 16) == std::int64_t{1} << 59);
}

TEST_CASE("a wait for an arrival far away is slept in slices: one interrupt ends it, even at 1e300 s", "[inference][serve]") {
  using namespace std::chrono_literals;
  const auto config = load_model_config("tiny");
  const auto w = random_decoder_weights(config, Dtype::fp32, 5);
  SchedulerConfig sc;
  sc.token_budget = 16;
  sc.max_sequences = 2;
  sc.page = 4;
  sc.blocks = 8;
  CpuDecoder paged(w, CpuDecoder::PagedCache{sc.blocks, sc.page}, 16);
  // An hour away (before: seen only when the repetition ended) and 1e300 s away (before: the
  // clock overflowed, the sleep returned at once and the engine spun for ever).
  for (const double arrival : {3600.0, 1e300}) {
    INFO(arrival);
    const std::vector<ScheduledRequest> schedule{{arrival, 4, 2, false}};
    const auto prompts = serve_prompts(schedule, config.vocab, 1);
    const auto started = std::chrono::steady_clock::now();
    std::thread ctrl_c([] {
      std::this_thread::sleep_for(200ms);
      g_interrupted.store(true);
    });
    CHECK_THROWS_AS(run_serve(paged, sc, schedule, prompts, true, false), Interrupted);
    ctrl_c.join();
    g_interrupted.store(false);
    CHECK(std::chrono::steady_clock::now() - started < 2s);
  }
}

TEST_CASE("the rate search's lowest rate: the shape's halved kSweepRuns - 1 times, as --sweep-rate goes", "[inference][serve]") {
  std::vector<double> tried;
  search_rate(8.0, kSweepRuns, [&](double rate) {
    tried.push_back(rate);
    return false;
  });
  CHECK(*std::min_element(tried.begin(), tried.end()) == lowest_swept_rate(8.0));
  CHECK(lowest_swept_rate(8.0) == 0.25);
}

TEST_CASE("the scheduler: decode first, chunked prefill inside the token budget, the queue waits for cache blocks",
          "[inference][serve]") {
  SchedulerConfig config;
  config.token_budget = 8;
  config.max_sequences = 3;
  config.page = 4;
  config.blocks = 6;  // 24 positions: two of the 10-position requests below at once
  ServeScheduler s(config);
  const std::vector<std::int32_t> prompt(7, 1);
  for (int r = 0; r < 4; ++r) s.arrive(r, prompt, 4);  // 7 + 4 - 1 = 10 positions, 3 blocks
  std::vector<std::vector<std::int32_t>> out(4);
  int steps = 0;
  bool queued_for_blocks = false;
  while (!s.idle()) {
    REQUIRE(++steps < 100);
    const auto plan = s.plan();
    REQUIRE_FALSE(plan.empty());
    CHECK(plan.decode_tokens + plan.prefill_tokens <= config.token_budget);
    CHECK(static_cast<std::int64_t>(plan.tokens.size()) == plan.decode_tokens + plan.prefill_tokens);
    CHECK(s.pool().in_use() <= config.blocks);
    // Decode chunks come first, one token each.
    bool prefill_seen = false;
    for (const auto& c : plan.chunks) {
      const bool decode = c.tokens == 1 && c.start >= 7;
      CHECK_FALSE((decode && prefill_seen));
      prefill_seen = prefill_seen || !decode;
    }
    if (s.running() == 2 && s.waiting() > 0) queued_for_blocks = true;  // a slot free, no blocks
    std::vector<std::int32_t> next(static_cast<std::size_t>(plan.sampled()), 5);
    for (const auto& e : s.complete(plan, next)) out[static_cast<std::size_t>(e.request)].push_back(e.token);
  }
  CHECK(queued_for_blocks);
  for (const auto& o : out) CHECK(o.size() == 4);
  CHECK(s.pool().in_use() == 0);
  CHECK(s.pool().reserved() == 0);
  // A 7-token prompt through an 8-token budget with another prompt beside it is chunked.
  ServeScheduler chunked(config);
  chunked.arrive(0, prompt, 2);
  chunked.arrive(1, prompt, 2);
  const auto first = chunked.plan();
  REQUIRE(first.chunks.size() == 2);
  CHECK(first.chunks[0].tokens == 7);
  CHECK(first.chunks[1].tokens == 1);
  CHECK_FALSE(first.chunks[1].sample);  // a prompt's chunk before its last has no token
}

TEST_CASE("the rate search: the bound first, then bisection, bounded, the highest rate met", "[inference][serve]") {
  const auto below = [](double limit) { return [limit](double rate) { return rate <= limit; }; };
  const auto met = search_rate(40, kSweepRuns, below(100));
  CHECK(met.sustainable == 40);
  CHECK(met.tried.size() == 1);  // the bound met: one run
  const auto search = search_rate(40, kSweepRuns, below(13));
  REQUIRE(search.tried.size() == static_cast<std::size_t>(kSweepRuns));
  const std::vector<std::pair<double, bool>> expected{{40, false}, {20, false}, {10, true}, {15, false}, {12.5, true}, {13.75, false}};
  CHECK(search.tried == expected);
  CHECK(search.sustainable == 12.5);
  CHECK(search_rate(40, kSweepRuns, below(0.1)).sustainable == 0);  // none met
}

TEST_CASE("serve metrics: percentiles, per-request TPOT, inter-token gaps, goodput at the objective", "[inference][serve]") {
  CHECK(percentiles({}).p99 == 0);
  const auto p = percentiles({5, 1, 4, 2, 3});
  CHECK(p.p50 == Approx(3));
  CHECK(p.p90 == Approx(4.6));
  CHECK(p.p99 == Approx(4.96));
  std::vector<RequestTiming> r(3);
  r[0] = {0.0, {0.1, 0.2, 0.3}, true};    // warm-up: not counted
  r[1] = {1.0, {1.2, 1.21, 1.22}, false};  // ttft 0.2, tpot 0.01: meets
  r[2] = {2.0, {2.9, 3.0}, false};         // ttft 0.9: misses
  std::vector<StepSample> steps{{1.5, 2, 2, 3, 0, 1}, {2.5, 4, 4, 6, 0, 1}};
  const auto s = summarize_serve(r, steps, Slo{0.5, 0.05}, 12);
  CHECK(s.measured == 2);
  CHECK(s.output_tokens == 5);
  CHECK(s.meeting_slo == 1);
  CHECK(s.window_s == Approx(2.0));  // 1.0 to 3.0
  CHECK(s.output_tokens_per_s == Approx(2.5));
  CHECK(s.goodput_requests_per_s == Approx(0.5));
  CHECK(s.ttft.p50 == Approx(0.55));
  CHECK(s.tpot.p50 == Approx((0.01 + 0.1) / 2));
  CHECK(s.itl.p50 == Approx(0.01));
  CHECK(s.batch_max == 4);
  CHECK(s.occupancy_max == Approx(0.5));
  CHECK(s.valid);
}

TEST_CASE("INVALID: outstanding requests that grow over the arrivals, or arrivals over too soon, and a steady backlog valid", "[inference][serve]") {
  // Steady: every request waits 50 ms (with a little scatter) and is done 1 s later. Growing:
  // a request every 0.1 s and one served every 0.2 s, each waiting for all before it.
  std::vector<RequestTiming> steady_requests, growing_requests;
  for (int i = 0; i < 100; ++i) {
    const double t = i * 0.1, wait = 0.05 + 0.01 * (i % 3), served = 0.2 * (i + 1);
    steady_requests.push_back({t, {t + wait, t + 1.0}, false});
    growing_requests.push_back({t, {served, served + 1.0}, false});
  }
  std::vector<StepSample> steady, growing;
  for (int i = 0; i < 100; ++i) {
    steady.push_back({i * 0.1 + 0.01, 4, 4, 4, 0, 3 + i % 3});
    growing.push_back({i * 0.1 + 0.01, 4, 4, 4, i / 3, 3 + i / 2});  // ~50 more outstanding by the end
  }
  const auto ok = summarize_serve(steady_requests, steady, Slo{}, 16);
  CHECK(ok.valid);
  CHECK(ok.verdict == "VALID");
  const auto bad = summarize_serve(growing_requests, growing, Slo{}, 16);
  CHECK_FALSE(bad.valid);
  CHECK(bad.backlog_growth > 40);
  CHECK(bad.wait_growth_s == Approx(9.9));  // request i waits 0.1 x (i + 1) s
  CHECK_THAT(bad.verdict, Catch::StartsWith("INVALID: the engine did not keep up: the wait for a first token grew"));
  // A burst over before its requests are served: no steady state, whatever the trend.
  std::vector<RequestTiming> burst;
  for (int i = 0; i < 50; ++i) burst.push_back({i * 0.001, {1.0 + i * 0.01}, false});
  const auto short_span = summarize_serve(burst, steady, Slo{}, 16);
  CHECK_FALSE(short_span.valid);
  CHECK_THAT(short_span.verdict, Catch::Contains("no steady state"));
}

TEST_CASE("INVALID is judged against the backlog's own noise: a Poisson stream kept up with is valid, an overload is not",
          "[inference][serve]") {
  // 64 measured requests at 4 a second. Kept up with: each served in its own time (mean 1.5
  // s, as an 8B at chat lengths) after a wait with some scatter, so the outstanding count
  // wanders about 6 with no trend. Overloaded: one request at a time, each 1/3 s (3 a second
  // against 4 arriving), so each waits for the ones before it.
  const auto simulate = [](std::uint64_t seed, bool overloaded) {
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> gap(4.0), service(1.0 / 1.5), scatter(1.0 / 0.05);
    std::vector<RequestTiming> requests;
    double t = 0, server_free = 0;
    for (int i = 0; i < 74; ++i) {
      t += gap(rng);
      double done = t + service(rng);
      double first = t + 0.02 + scatter(rng);
      if (overloaded) {  // waits for the server, then is served
        first = std::max(server_free, t) + 0.05;
        done = server_free = std::max(server_free, t) + 1.0 / 3.0;
      }
      requests.push_back({t, {first, done}, i < 10});
    }
    std::vector<double> arrivals, finishes;
    for (const auto& r : requests) {
      arrivals.push_back(r.arrival_s);
      finishes.push_back(r.token_s.back());
    }
    std::sort(finishes.begin(), finishes.end());
    std::vector<StepSample> steps;
    for (double now = 0; now < finishes.back(); now += 0.01) {
      const auto outstanding = (std::upper_bound(arrivals.begin(), arrivals.end(), now) - arrivals.begin()) -
                               (std::upper_bound(finishes.begin(), finishes.end(), now) - finishes.begin());
      steps.push_back({now, outstanding, outstanding, 4, 0, outstanding});
    }
    return summarize_serve(requests, steps, Slo{}, 64);
  };
  int valid = 0, caught = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    valid += simulate(seed, false).valid;
    caught += !simulate(seed, true).valid;
  }
  CHECK(valid >= 39);  // 3 sigmas: about one false INVALID in 700 runs, were the trend normal
  CHECK(caught == 40);
}

TEST_CASE("decode steps by batch: only decode-only steps in the window, their median time and mean context", "[inference][serve]") {
  std::vector<StepSample> steps;
  const auto step = [&](double t, std::int64_t batch, double seconds, bool decode_only, std::int64_t cached) {
    StepSample s;
    s.t_s = t;
    s.sequences = batch;
    s.tokens = batch;
    s.seconds = seconds;
    s.decode_only = decode_only;
    s.cached_positions = cached;
    steps.push_back(s);
  };
  step(0.5, 2, 9.0, true, 10);    // before the window: left out
  step(1.0, 2, 0.010, true, 20);  // batch 2: positions 10 a sequence
  step(1.1, 2, 0.030, true, 20);
  step(1.2, 2, 0.020, true, 20);
  step(1.3, 4, 0.5, false, 40);   // a prefill in it: not a decode step
  step(1.4, 4, 0.040, true, 100); // batch 4: positions 25 a sequence
  step(9.0, 4, 9.0, true, 10);    // after the window: left out
  const auto d = decode_steps_by_batch(steps, 1.0, 2.0);
  REQUIRE(d.size() == 2);
  CHECK(d[0].batch == 2);
  CHECK(d[0].steps == 3);
  CHECK(d[0].median_s == Approx(0.020));
  CHECK(d[0].mean_context == Approx(10));
  CHECK(d[1].batch == 4);
  CHECK(d[1].steps == 1);
  CHECK(d[1].median_s == Approx(0.040));
  CHECK(d[1].mean_context == Approx(25));
  // The decode step's work grows with the batch and the context, the weights read once.
  const auto tiny = load_model_config("tiny");
  const auto one = decode_step_work(tiny, 1, 10, Dtype::bf16), four = decode_step_work(tiny, 4, 10, Dtype::bf16);
  CHECK(four.flops == Approx(4 * one.flops).epsilon(0.01));
  CHECK(four.bytes < 2 * one.bytes);
  CHECK(decode_step_work(tiny, 4, 100, Dtype::bf16).bytes > four.bytes);
}

TEST_CASE("served tokens: batched, chunked and paged, each request's greedy tokens equal the request alone (CPU, tiny)",
          "[inference][serve]") {
  const auto config = load_model_config("tiny");
  const DecoderFactory solo = [](const DecoderWeights& w, std::int64_t batch, std::int64_t context, std::int64_t layers) {
    return std::make_unique<CpuDecoder>(w, batch, context, layers);
  };
  for (Dtype d : {Dtype::fp32, Dtype::bf16}) {
    INFO(dtype_name(d));
    const auto w = random_decoder_weights(config, d, 21);
    // Prompts longer than the budget (chunked), more requests than sequence slots and a cache
    // of two requests' blocks (requests queue, join mid-batch and reuse freed blocks).
    std::vector<ScheduledRequest> requests;
    const std::int64_t prompts[] = {37, 5, 23, 1, 30, 12, 19}, outputs[] = {6, 9, 1, 7, 3, 8, 5};
    for (int i = 0; i < 7; ++i) requests.push_back({0, prompts[i], outputs[i], false});
    SchedulerConfig sc;
    sc.token_budget = 12;
    sc.max_sequences = 3;
    sc.page = 4;
    sc.blocks = 2 * blocks_for(37 + 6 - 1, 4);
    CpuDecoder paged(w, CpuDecoder::PagedCache{sc.blocks, sc.page}, 64);
    const auto c = check_served_tokens(w, paged, sc, requests, solo, 7);
    INFO(c.worst_element);
    CHECK(c.passed);
    CHECK(c.elements_checked == 39);
  }
}
