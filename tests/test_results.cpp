#include <catch2/catch.hpp>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include <iterator>
#include <optional>
#include <sstream>
#include <thread>
#include <filesystem>
#include <fstream>

#include "harness/atomic_file.hpp"
#include "harness/energy_window.hpp"
#include "harness/errors.hpp"
#include "harness/results.hpp"
#include "reports/diagnosis.hpp"
#include "reports/terminal_table.hpp"
#include "test_run_meta.hpp"

using namespace rooftop;
namespace fs = std::filesystem;

namespace {
RunResults sample_run() {
  RunResults run;
  auto& m = run.meta;
  m = testing::test_run_meta("smoke");
  m.seed = 42;
  m.ceilings = Ceilings{{{"fp32_vector_fma", "fp32", "avx512_fma", 1e12}}, {{"DRAM", 1e11, 0}}, 2e-6, {}};
  m.ceilings_source = "profile.json";
  ResultRecord ok;
  ok.problem = {"gemm", "cpu", Dtype::fp32, "m2_n2_k2", {{"m", 2}, {"n", 2}, {"k", 2}}, {16, 48}, 64};
  ok.implementation = "brg:avx512_core";
  ok.correctness = Correctness{true, 4, 4, 1e-7, 0.01, "formula", "C[0,0]"};
  ok.samples = {{1e-6, 100, 2500}, {1.1e-6, 100, 2500}, {0.9e-6, 100, 2400}};
  ResultRecord failed = ok;
  failed.problem.shape = "m3_n3_k3";  // a file holds each benchmark once
  failed.status = Status::failed;
  failed.reason = "wrong results";
  failed.samples.clear();
  failed.correctness->passed = false;
  failed.correctness->max_error_ratio = std::numeric_limits<double>::infinity();  // NaN output
  ResultRecord skipped = ok;
  skipped.problem.shape = "m4_n4_k4";
  skipped.status = Status::skipped;
  skipped.reason = "no implementation";
  skipped.samples.clear();
  skipped.correctness.reset();
  run.results = {ok, failed, skipped};
  derive_records(run);
  return run;
}
}  // namespace

TEST_CASE("results round-trip through JSON", "[results]") {
  const auto run = sample_run();
  const auto j = results_to_json(run);
  CHECK(j["schema"] == kResultsSchemaVersion);
  const auto back = results_from_json(nlohmann::ordered_json::parse(j.dump()), "mem");
  REQUIRE(back.results.size() == 3);
  CHECK(back.meta.seed == 42);
  CHECK(back.meta.ceilings->compute.at(0).flops_per_s == 1e12);
  CHECK(back.results[0].samples.size() == 3);
  CHECK(back.results[0].samples[2].clock_mhz == 2400);
  CHECK(back.results[1].status == Status::failed);
  CHECK(std::isinf(back.results[1].correctness->max_error_ratio));
  CHECK(back.results[2].reason == "no implementation");
  // Writing what was read gives the same document.
  CHECK(results_to_json(back).dump() == j.dump());
}

TEST_CASE("a datasheet is kept when the run had no measured ceilings", "[results]") {
  auto run = sample_run();
  run.meta.ceilings.reset();
  run.meta.datasheet = Datasheet{"NVIDIA H200 SXM", "https://example.invalid/h200", Ceilings{{}, {}, 0, {{"nvlink", 450e9}}}, 700};
  derive_records(run);
  const auto back = results_from_json(nlohmann::ordered_json::parse(results_to_json(run).dump()), "mem");
  CHECK_FALSE(back.meta.ceilings);
  REQUIRE(back.meta.datasheet);
  CHECK(back.meta.datasheet->name == "NVIDIA H200 SXM");
  CHECK(back.meta.datasheet->ceilings.links.at(0).bytes_per_s == 450e9);
  CHECK(back.meta.datasheet->tdp_w == 700);
}

TEST_CASE("derived fields: throughput from the median, roofline from the ceilings", "[results]") {
  const auto j = results_to_json(sample_run());
  const auto& r = j["results"][0];
  CHECK(r["summary"]["median_s"].get<double>() == Approx(1e-6));
  CHECK(r["throughput"]["flops_per_s"].get<double>() == Approx(16e6));
  CHECK(r["roofline"]["memory_level"] == "DRAM");
  CHECK(r["roofline"]["bound"] == "latency");  // 16 FLOP on a 2 us dispatch
  CHECK(j["results"][1]["summary"].is_null());
  CHECK(j["results"][1]["correctness"]["max_error_ratio"].is_null());
}

TEST_CASE("energy: the board's mean power over the repetitions, joules an iteration and a token", "[results]") {
  auto run = sample_run();
  auto& r = run.results[0];
  r.problem.params["tokens_per_iteration"] = 4;
  r.declared = declared_facts(r.problem.params);
  // 30 J over 0.1 s, then 20 J over 0.1 s: 250 W on average (not the mean of 300 and 200 W
  // weighted equally by count only by chance: the sums are what count).
  r.samples = {{1e-6, 100, 2500, 30, 0.1}, {1.1e-6, 100, 2500, 20, 0.1}, {0.9e-6, 100, 2400, 10, 0.2}};
  derive_records(run);
  const auto j = results_to_json(run);
  const auto& power = j["results"][0]["power"];
  CHECK(power["board_w"].get<double>() == Approx(60.0 / 0.4));
  CHECK(power["joules_per_iteration"].get<double>() == Approx(150.0 * 1e-6));
  CHECK(power["joules_per_token"].get<double>() == Approx(150.0 * 1e-6 / 4));
  CHECK(power["flops_per_watt"].get<double>() == Approx(16e6 / 150.0));
  const auto back = results_from_json(nlohmann::ordered_json::parse(j.dump()), "mem");
  CHECK(back.results[0].samples[1].energy_j == 20);
  CHECK(back.results[0].samples[2].wall_s == 0.2);
  CHECK(results_to_json(back).dump() == j.dump());
  // Without a counter there is no power, and the sample arrays stay as they were.
  const auto plain = results_to_json(sample_run());
  CHECK_FALSE(plain["results"][0].contains("power"));
  CHECK_FALSE(plain["results"][0]["samples"].contains("energy_j"));
  // A negative energy is not something a counter gives.
  auto bad = j;
  bad["results"][0]["samples"]["energy_j"][0] = -1;
  CHECK_THROWS_WITH(results_from_json(bad, "r.json"), Catch::Contains("samples.energy_j[0]"));
}

namespace {
// A backend whose energy counter reads the values given, one a call (none: no counter).
class CountingBackend final : public Backend {
 public:
  explicit CountingBackend(std::vector<std::optional<double>> readings) : readings_(std::move(readings)) {}
  std::string name() const override { return "test"; }
  std::string summary() const override { return "test"; }
  nlohmann::ordered_json properties() const override { return nlohmann::ordered_json::object(); }
  std::string fingerprint() const override { return "test-0"; }
  double clock_mhz() const override { return 0; }
  std::optional<double> energy_j() const override { return readings_.at(next_++); }
  DeviceProfile characterize(const CharacterizeOptions&, std::ostream&) const override { return {}; }
  double available_memory_bytes() const override { return 0; }

 private:
  std::vector<std::optional<double>> readings_;
  mutable std::size_t next_ = 0;
};

Sample drawn_over(const Backend& b) {
  const EnergyWindow window(b);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  Sample s;
  window.close(s);
  return s;
}
}  // namespace

TEST_CASE("a repetition's energy: the counter's difference over the repetition's wall time, or nothing", "[results]") {
  const auto measured = drawn_over(CountingBackend({1000.0, 1030.5}));
  CHECK(measured.energy_j == 30.5);
  CHECK(measured.wall_s >= 0.002);
  CHECK(measured.wall_s < 1);
  // No counter, a reading that failed, a counter that went back (the driver reloaded): not measured.
  for (const auto& readings : std::vector<std::vector<std::optional<double>>>{
           {std::nullopt, std::nullopt}, {1000.0, std::nullopt}, {1000.0, 10.0}}) {
    const auto s = drawn_over(CountingBackend(readings));
    CHECK(s.energy_j == 0);
    CHECK(s.wall_s == 0);
  }
}

TEST_CASE("bad results files name the file and the field", "[results]") {
  auto j = nlohmann::ordered_json::parse(results_to_json(sample_run()).dump());
  CHECK_THROWS_WITH(results_from_json(nlohmann::ordered_json::object(), "x.json"), Catch::Contains("x.json") && Catch::Contains("schema"));
  auto v = j;
  v["schema"] = 99;
  CHECK_THROWS_WITH(results_from_json(v, "x.json"), Catch::Contains("schema 99 is not supported"));
  v = j;
  v["results"][0].erase("samples");
  CHECK_THROWS_WITH(results_from_json(v, "x.json"), Catch::Contains("results[0].samples"));
  v = j;
  v["results"][0]["samples"]["seconds_per_iteration"][1] = -1;
  CHECK_THROWS_WITH(results_from_json(v, "x.json"), Catch::Contains("seconds_per_iteration[1]"));
  v = j;
  v["results"][0]["status"] = "great";
  CHECK_THROWS_AS(results_from_json(v, "x.json"), InputError);

  const auto dir = fs::temp_directory_path() / "rooftop_test_results";
  fs::create_directories(dir);
  std::ofstream(dir / "empty.json").close();
  CHECK_THROWS_WITH(load_results(dir / "empty.json"), Catch::Contains("empty"));
  std::ofstream(dir / "corrupt.json") << "{\"schema\": 1, ";
  CHECK_THROWS_WITH(load_results(dir / "corrupt.json"), Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(load_results(dir / "missing.json"), Catch::Contains("cannot open"));
  std::ofstream(dir / "overflow.json") << "{\"schema\": 1, \"x\": 1e999}";
  CHECK_THROWS_WITH(load_results(dir / "overflow.json"), Catch::Contains("overflow.json") && Catch::Contains("not valid JSON"));
}

TEST_CASE("results that cannot be what a run wrote are refused: repeats, ok without samples, negative counts", "[results]") {
  const auto j = nlohmann::ordered_json::parse(results_to_json(sample_run()).dump());
  REQUIRE(j["results"][0]["status"] == "ok");
  auto v = j;
  v["results"].push_back(v["results"][0]);  // the same benchmark twice, e.g. a 3x slower copy
  v["results"].back()["samples"]["seconds_per_iteration"][0] = 3.0;
  CHECK_THROWS_WITH(results_from_json(v, "x.json"), Catch::Contains("repeats benchmark"));
  v = j;
  for (auto& a : v["results"][0]["samples"]) a = nlohmann::ordered_json::array();
  CHECK_THROWS_WITH(results_from_json(v, "x.json"), Catch::Contains("results[0].samples") && Catch::Contains("status is ok"));
  v = j;
  v["results"][0]["samples"]["iterations"][0] = -5;
  CHECK_THROWS_WITH(results_from_json(v, "x.json"), Catch::Contains("iterations[0]"));
  v = j;
  v["results"][0]["samples"]["clock_mhz"][0] = -1;
  CHECK_THROWS_WITH(results_from_json(v, "x.json"), Catch::Contains("clock_mhz[0]"));
  v = j;
  v["results"][0]["work"]["flops"] = -1e9;
  CHECK_THROWS_WITH(results_from_json(v, "x.json"), Catch::Contains("work.flops"));
  // Issue 52, N15: samples of 1e308 s overflowed the gate's sums ("-nan%", "slower by inf").
  for (const double seconds : {1e308, 2e6, 1e-13, 1e-300}) {
    v = j;
    v["results"][0]["samples"]["seconds_per_iteration"][0] = seconds;
    CHECK_THROWS_WITH(results_from_json(v, "x.json"),
                      Catch::Contains("x.json") && Catch::Contains("seconds_per_iteration[0]' is ") &&
                          Catch::Contains("outside [1e-12, 1e+06] s") && Catch::Contains("not a time a run measures"));
  }
  for (const double seconds : {1e6, 1e-12, 3e-10}) {
    v = j;
    v["results"][0]["samples"]["seconds_per_iteration"][0] = seconds;
    CHECK(results_from_json(v, "x.json").results[0].samples[0].seconds_per_iteration == seconds);
  }
}

TEST_CASE("results are written atomically and leave no temporary file", "[results]") {
  const auto dir = fs::temp_directory_path() / "rooftop_test_atomic";
  fs::remove_all(dir);
  save_results(dir / "r.json", sample_run());
  save_results(dir / "r.json", sample_run());
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  CHECK(files == 1);
  CHECK(load_results(dir / "r.json").results.size() == 3);
}

TEST_CASE("an output path that is a link, a pipe or a directory: the target written, nothing replaced", "[results]") {
  const auto dir = fs::temp_directory_path() / "rooftop_test_special_outputs";
  fs::remove_all(dir);
  fs::create_directories(dir / "real");
  // A symbolic link: the file it points to gets the content, the link stays a link.
  fs::create_symlink("real/target.json", dir / "link.json");
  write_file_atomically(dir / "link.json", "{}\n");
  CHECK(fs::is_symlink(fs::symlink_status(dir / "link.json")));
  CHECK(fs::file_size(dir / "real" / "target.json") == 3);
  // A FIFO (as /dev/stdout can be): written through, and still a FIFO afterwards.
  const auto fifo = dir / "pipe";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // The reader opens without waiting for a writer and gives up after 5 s, so a writer
  // that replaced the FIFO instead of writing it fails this test rather than hanging it.
  std::string received;
  const int fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(fd >= 0);
  std::thread reader([&] {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    bool writer_seen = false;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      char buf[256];
      const auto n = read(fd, buf, sizeof buf);
      if (n > 0) {
        received.append(buf, static_cast<std::size_t>(n));
        writer_seen = true;
      } else if (n == 0 && writer_seen) {
        break;  // the writer closed
      }
    }
    close(fd);
  });
  write_file_atomically(fifo, "through the pipe");
  reader.join();
  CHECK(received == "through the pipe");
  CHECK(fs::is_fifo(fs::status(fifo)));
  // A directory is refused by name, and left as it was.
  CHECK_THROWS_WITH(write_file_atomically(dir / "real", "x"), Catch::Contains("not a regular file"));
  CHECK(fs::is_directory(dir / "real"));
  fs::remove_all(dir);
}

// Issue 37: a point that took a generic path and sits far below its roof measures rooftop's
// fallback, not the machine: the results, the table and the diagnosis say so.
TEST_CASE("a generic path below 20% of the roof is flagged, the same path near the roof or the fast one is not",
          "[results]") {
  auto run = sample_run();
  auto& r = run.results[0];
  r.problem.work = {1e9, 1e9};  // AI 1 on a 100 GB/s DRAM: 100 GFLOP/s attainable
  r.samples = {{0.1, 1, 0}, {0.1, 1, 0}, {0.1, 1, 0}};  // 10 GFLOP/s: 10% of the roof
  r.generic_path = "no fast decode kernel for head dim 80: the generic kernel ran";
  run.results.resize(1);
  derive_records(run);
  auto j = results_to_json(run);
  CHECK(j["results"][0]["generic_path"] == r.generic_path);
  CHECK(j["results"][0]["roofline"]["slow_generic_path"] == true);
  const auto back = results_from_json(nlohmann::ordered_json::parse(j.dump()), "mem");
  CHECK(back.results[0].generic_path == r.generic_path);
  const auto d = reports::diagnose(run.results[0], nullptr);
  CHECK_THAT(d.finding, Catch::Contains("10% of its roof on a generic path: no fast decode kernel for head dim 80"));
  std::ostringstream table;
  reports::print_terminal_table(table, run, false);
  CHECK_THAT(table.str(), Catch::Contains("ok GENERIC [1]") && Catch::Contains("rooftop's fallback, not the machine"));

  r.samples = {{0.025, 1, 0}, {0.025, 1, 0}, {0.025, 1, 0}};  // 40% of the roof: the generic path is said, not flagged
  derive_records(run);
  j = results_to_json(run);
  CHECK(j["results"][0]["roofline"]["slow_generic_path"] == false);
  r.generic_path.clear();
  r.samples = {{0.1, 1, 0}, {0.1, 1, 0}, {0.1, 1, 0}};  // slow on the fast path: no flag
  derive_records(run);
  j = results_to_json(run);
  CHECK(j["results"][0]["generic_path"].is_null());
  CHECK(j["results"][0]["roofline"]["slow_generic_path"] == false);
}
