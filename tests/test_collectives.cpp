// Collectives: nccl-tests' byte counts and bus factors, sizes, and the check catching a
// rank's wrong data (a transport that corrupts one element).
#include <catch2/catch.hpp>


#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "harness/errors.hpp"
#include "harness/gate.hpp"
#include "suites/collectives/collectives_plan.hpp"
#include "devices/devices.hpp"
#include "harness/backend.hpp"
#include "harness/runner.hpp"
#include "devices/ranks/local_ranks.hpp"
#include "devices/ranks/host_transports.hpp"

using namespace rooftop;
using namespace rooftop::collectives;

TEST_CASE("bus factors and byte counts follow nccl-tests for 2, 4 and 8 ranks", "[collectives]") {
  for (int n : {2, 4, 8}) {
    INFO(n << " ranks");
    CHECK(kAllReduce.bus_factor(n) == Approx(2.0 * (n - 1) / n));
    for (const auto* c : {&kAllGather, &kReduceScatter, &kAlltoall}) CHECK(c->bus_factor(n) == Approx((n - 1.0) / n));
    for (const auto* c : {&kBroadcast, &kReduce, &kSendRecv}) CHECK(c->bus_factor(n) == 1.0);
    const std::size_t size = 1 << 20, elem = 2;  // 1 MiB of bf16
    const auto ar = kAllReduce.counts(size, elem, n);
    CHECK((ar.send == size / elem && ar.recv == size / elem && ar.call == size / elem));
    const auto ag = kAllGather.counts(size, elem, n);  // size = the gathered buffer
    CHECK((ag.send * n == size / elem && ag.recv == size / elem && ag.call == ag.send));
    const auto rs = kReduceScatter.counts(size, elem, n);  // size = the buffer each rank sends
    CHECK((rs.send == size / elem && rs.recv * n == size / elem && rs.call == rs.recv));
    const auto a2a = kAlltoall.counts(size, elem, n);
    CHECK((a2a.send == size / elem && a2a.recv == size / elem && a2a.call * n == size / elem));
  }
  const auto p = make_collective_problem(kAllReduce, Dtype::bf16, 4ull << 30, false, 2, "cuda");
  CHECK(p.shape == "all_reduce_4G_oop_r2");
  CHECK(p.work.bytes == 4.0 * (1ull << 30));
  CHECK(p.params["bus_factor"].get<double>() == 1.0);
  auto typed = p;
  typed.params = nlohmann::ordered_json::object();  // the suite reads its typed shape, never the params
  CHECK(point_of(typed).size_bytes == 4ull << 30);
  CHECK(&collective_of(typed) == &kAllReduce);
  CHECK_FALSE(point_of(typed).in_place);
  CHECK(point_of(typed).ranks == 2);
}

TEST_CASE("collective sizes: nccl-tests ranges, and sizes that do not divide are refused", "[collectives]") {
  CHECK(parse_size("4G") == 4ull << 30);
  CHECK(parse_size("8") == 8);
  CHECK(size_label(3ull << 20) == "3M");
  CHECK(size_label(1000) == "1000");
  CHECK(size_range(1024, 1 << 20, 4).size() == 6);
  CHECK_THROWS_AS(parse_size("4T"), InputError);
  CHECK_THROWS_AS(parse_size("-1"), InputError);
  CHECK(unusable_size(kAllReduce, 1000, Dtype::fp32, 3).empty());
  CHECK_THAT(unusable_size(kAllGather, 1000, Dtype::fp32, 3), Catch::Contains("refused, not padded"));
  CHECK_THAT(unusable_size(kAllReduce, 1001, Dtype::fp32, 2), Catch::Contains("4-byte units"));
  CHECK(parse_collective_shape("all_gather:1K-1M:f4", Dtype::bf16, 2, "cpu").size() == 6);
  // Sums that e4m3 cannot hold exactly are refused; moving fp8 data is not.
  CHECK_THAT(unusable_size(kAllReduce, 1024, Dtype::fp8, 8), Catch::Contains("not exact in fp8"));
  CHECK(unusable_size(kAllReduce, 1024, Dtype::fp8, 4).empty());
  CHECK(unusable_size(kAllGather, 1024, Dtype::fp8, 8).empty());
  CHECK_THROWS_WITH(parse_collective_shape("allreduce:1K", Dtype::bf16, 2, "cpu"), Catch::Contains("NAME:MIN"));
  CHECK_THROWS_WITH(parse_collective_shape("alltoall:1K:inplace", Dtype::bf16, 2, "cpu"), Catch::Contains("no in-place"));
}

namespace {
// One local rank whose all_reduce lands one element wrong: the check must fail and name it.
class CorruptingTransport final : public LocalTransport {
 public:
  std::string name() const override { return "corrupting test transport"; }
  void all_reduce(int l, const void* s, void* r, std::size_t n, Dtype d) override {
    LocalTransport::all_reduce(l, s, r, n, d);
    static_cast<float*>(r)[5] += 1.0f;
  }
};
}  // namespace

TEST_CASE("a rank's wrong element fails the collective's check, the other points still run", "[collectives]") {
  RunOptions o;
  o.backend = "cpu";
  o.tier = Tier::smoke;
  o.shapes = {"all_reduce:4K", "all_gather:4K"};
  o.repetitions = 2;
  o.suites = {"collectives"};
  CorruptingTransport t;
  register_all_backends();
  bool interrupted = false;
  const auto run = run_points(o, find_backend("cpu"), RunMetadata{}, &t, interrupted);
  REQUIRE(run.results.size() == 2);
  CHECK(run.results[0].status == Status::failed);
  CHECK_THAT(run.results[0].reason, Catch::Contains("element 5"));
  CHECK(run.results[0].samples.empty());
  CHECK(run.results[1].status == Status::ok);  // a fault in one point keeps the others
  CHECK(run.results[1].samples.size() == 2);
  CHECK(run.results[1].correctness->elements_checked == 1024);
}

TEST_CASE("the gate holds collectives to the 5% system threshold", "[collectives]") {
  const GateConfig config;
  CHECK(config.tau_for("collectives/cuda/bf16/all_reduce_4G_oop_r2", "collectives") == 0.05);
  CHECK(config.tau_for("gemm/cuda/bf16/m8192_n8192_k8192", "gemm") == 0.03);
}

TEST_CASE("local ranks of run --ranks agree through rank 0: gather, max, all, broadcast", "[collectives]") {
  char folder[] = "/tmp/rooftop-ranks-test.XXXXXX";
  REQUIRE(mkdtemp(folder));
  const std::string socket = std::string(folder) + "/rank0.sock";
  constexpr int kRanks = 3;
  std::vector<pid_t> children;
  for (int r = 0; r < kRanks; ++r) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // A child reports through its exit code: 0 when every exchange gave what it should.
      int bad = 0;
      try {
        setenv("ROOFTOP_RANK", std::to_string(r).c_str(), 1);
        setenv("ROOFTOP_RANKS", std::to_string(kRanks).c_str(), 1);
        setenv("ROOFTOP_RENDEZVOUS", socket.c_str(), 1);
        auto g = make_local_ranks_group();
        const auto all = g->gather("rank" + std::string(static_cast<std::size_t>(r + 1), '*'));
        bad |= all != std::vector<std::string>{"rank*", "rank**", "rank***"} ? 1 : 0;
        bad |= g->max(r * 1.5) != 3.0 ? 2 : 0;
        bad |= g->all(true) != true ? 4 : 0;
        bad |= g->all(r != 1) != false ? 8 : 0;
        char id[128] = {};
        if (r == 0) std::memset(id, 0x5a, sizeof id);
        g->broadcast(id, sizeof id);
        bad |= id[0] != 0x5a || id[127] != 0x5a ? 16 : 0;
        g->barrier();
      } catch (...) {
        bad = 64;
      }
      std::_Exit(bad);
    }
    children.push_back(pid);
  }
  for (int r = 0; r < kRanks; ++r) {
    int status = 0;
    REQUIRE(waitpid(children[r], &status, 0) == children[r]);
    INFO("rank " << r << " exit " << WEXITSTATUS(status));
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  std::filesystem::remove_all(folder);
}
