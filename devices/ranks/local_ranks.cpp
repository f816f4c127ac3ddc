// `rooftop run --ranks N`: one process per GPU on this host without an MPI launcher, as
// torchrun starts them. The launcher forks N copies of this command line; rank 0 listens on
// a Unix socket in a private folder and the others connect to it. Every exchange goes
// through rank 0 (a star): N is one host's GPU count and the messages are small (NCCL's
// unique id, a plan's hash, the slowest rank's time).
#include "devices/ranks/local_ranks.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "harness/errors.hpp"

namespace rooftop {
namespace {

constexpr const char* kRankVar = "ROOFTOP_RANK";
constexpr const char* kRanksVar = "ROOFTOP_RANKS";
constexpr const char* kRendezvousVar = "ROOFTOP_RENDEZVOUS";
constexpr double kConnectTimeoutS = 60;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(fmt::format("local ranks: {}: {}", what, std::strerror(errno)));
}

void send_all(int fd, const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("a rank's connection closed while sending (did it end?)");
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void receive_all(int fd, void* data, std::size_t bytes) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::recv(fd, p, bytes, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) throw std::runtime_error("local ranks: another rank ended before the exchange finished");
    if (n < 0) fail("receiving from another rank");
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void send_string(int fd, const std::string& s) {
  const std::uint64_t n = s.size();
  send_all(fd, &n, sizeof n);
  send_all(fd, s.data(), s.size());
}

std::string receive_string(int fd) {
  std::uint64_t n = 0;
  receive_all(fd, &n, sizeof n);
  std::string s(n, '\0');
  receive_all(fd, s.data(), s.size());
  return s;
}

sockaddr_un address_of(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) throw InputError("local ranks: the rendezvous path is too long: " + path);
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return a;
}

class LocalRanks final : public ProcessGroup {
 public:
  LocalRanks(int rank, int size, const std::string& path) : rank_(rank), size_(size) {
    const auto address = address_of(path);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kConnectTimeoutS);
    if (rank_ == 0) {
      const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (listener < 0) fail("socket");
      if (::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) fail("bind " + path);
      if (::listen(listener, size_) != 0) fail("listen");
      peers_.assign(size_, -1);
      for (int joined = 1; joined < size_; ++joined) {
        pollfd p{listener, POLLIN, 0};
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (::poll(&p, 1, static_cast<int>(std::max<long long>(0, left.count()))) <= 0)
          throw std::runtime_error(fmt::format("local ranks: {} of {} ranks joined within {:.0f} s", joined, size_,
                                               kConnectTimeoutS));
        const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) fail("accept");
        std::int32_t r = 0;
        receive_all(fd, &r, sizeof r);
        if (r <= 0 || r >= size_ || peers_[r] >= 0) throw std::runtime_error(fmt::format("local ranks: a bad rank {} joined", r));
        peers_[r] = fd;
      }
      ::close(listener);
      ::unlink(path.c_str());
    } else {
      server_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (server_ < 0) fail("socket");
      while (::connect(server_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        if (std::chrono::steady_clock::now() > deadline) fail("rank 0 did not listen at " + path);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      const std::int32_t r = rank_;
      send_all(server_, &r, sizeof r);
    }
  }
  ~LocalRanks() override {
    for (int fd : peers_)
      if (fd >= 0) ::close(fd);
    if (server_ >= 0) ::close(server_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return fmt::format("rooftop --ranks {}", size_); }
  double max(double v) override {
    double best = v;
    for (const auto& s : gather(std::string(reinterpret_cast<const char*>(&v), sizeof v))) {
      double x = 0;
      std::memcpy(&x, s.data(), sizeof x);
      best = std::max(best, x);
    }
    return best;
  }
  bool all(bool v) override {
    const auto votes = gather(v ? "1" : "0");
    return std::all_of(votes.begin(), votes.end(), [](const std::string& s) { return s == "1"; });
  }
  std::vector<std::string> gather(const std::string& mine) override {
    std::vector<std::string> out(size_);
    if (rank_ == 0) {
      out[0] = mine;
      for (int r = 1; r < size_; ++r) out[r] = receive_string(peers_[r]);
      for (int r = 1; r < size_; ++r)
        for (const auto& s : out) send_string(peers_[r], s);
    } else {
      send_string(server_, mine);
      for (auto& s : out) s = receive_string(server_);
    }
    return out;
  }
  void broadcast(void* data, std::size_t bytes) override {
    if (rank_ == 0)
      for (int r = 1; r < size_; ++r) send_all(peers_[r], data, bytes);
    else
      receive_all(server_, data, bytes);
  }
  void barrier() override { gather(std::string()); }
  // The launcher sees this rank end and ends the others, as mpirun does.
  [[noreturn]] void abort(int exit_code) override { std::_Exit(exit_code); }

 private:
  int rank_, size_;
  std::vector<int> peers_;  // rank 0: a connection per rank
  int server_ = -1;         // other ranks: the connection to rank 0
};

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : -1;
}

// This process's own arguments, exactly as it was started.
std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string a; std::getline(in, a, '\0');) args.push_back(a);
  return args;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

bool launched_as_local_rank() { return std::getenv(kRanksVar) != nullptr; }

int local_rank() { return env_int(kRankVar); }

int node_local_rank() {
  if (launched_as_local_rank()) return local_rank();
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID", "PMIX_LOCAL_RANK"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return 0;
}

std::unique_ptr<ProcessGroup> make_local_ranks_group() {
  const int rank = env_int(kRankVar), size = env_int(kRanksVar);
  const char* path = std::getenv(kRendezvousVar);
  if (rank < 0 || size < 1 || rank >= size || !path)
    throw InputError(fmt::format("{}, {} and {} must name this rank, the rank count and the rendezvous socket "
                                 "(`rooftop run --ranks N` sets them)", kRankVar, kRanksVar, kRendezvousVar));
  return std::make_unique<LocalRanks>(rank, size, path);
}

namespace {
std::vector<pid_t> g_children;  // the launcher's ranks, for its signal handler

// A signal to the launcher goes on to its ranks (each in a process group of its own, so
// the terminal's Ctrl-C reaches them only this way): Ctrl-C lets them save and end
// (exit 130); a SIGTERM or SIGHUP from a job scheduler or a closed terminal ends them too.
void forward_to_ranks(int sig) {
  for (pid_t pid : g_children)
    if (pid > 0) ::kill(pid, sig);
}
}  // namespace

int launch_local_ranks(int ranks) {
  char folder[] = "/tmp/rooftop-ranks.XXXXXX";
  if (!::mkdtemp(folder)) fail("mkdtemp");
  const std::string rendezvous = std::string(folder) + "/rank0.sock";
  const auto args = own_arguments();
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // Each rank's environment, made before fork: a child of a threaded process may only
  // call async-signal-safe functions until exec.
  std::vector<std::vector<std::string>> environments(ranks);
  std::vector<std::vector<char*>> envps(ranks);
  for (int r = 0; r < ranks; ++r) {
    for (char** e = environ; *e; ++e) {
      const std::string_view entry(*e);
      if (!entry.starts_with(std::string(kRankVar) + "=") && !entry.starts_with(std::string(kRanksVar) + "=") &&
          !entry.starts_with(std::string(kRendezvousVar) + "="))
        environments[r].emplace_back(entry);
    }
    environments[r].push_back(fmt::format("{}={}", kRankVar, r));
    environments[r].push_back(fmt::format("{}={}", kRanksVar, ranks));
    environments[r].push_back(fmt::format("{}={}", kRendezvousVar, rendezvous));
    for (auto& e : environments[r]) envps[r].push_back(e.data());
    envps[r].push_back(nullptr);
  }

  ::signal(SIGCHLD, SIG_DFL);  // an inherited SIG_IGN would reap the ranks before waitpid
  const pid_t launcher = ::getpid();
  g_children.assign(ranks, -1);
  for (int r = 0; r < ranks; ++r) {
    const pid_t pid = ::fork();
    if (pid < 0) fail("fork");
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the launcher killed by SIGKILL: the ranks end too
      if (::getppid() != launcher) std::_Exit(128 + SIGTERM);
      // A process group of its own: Ctrl-C reaches the launcher alone, which passes it on
      // once (a rank takes a second Ctrl-C as "end now, unsaved").
      ::setpgid(0, 0);
      // What the launcher forwards must reach them: a launcher started in the background of
      // a script inherits SIGINT ignored, and exec would keep it so.
      for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
      ::execve("/proc/self/exe", argv.data(), envps[r].data());
      std::_Exit(127);
    }
    g_children[r] = pid;
  }
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, forward_to_ranks);

  // The first rank to end with an error gives the exit code. The others end by themselves
  // when they failed the same point; one left waiting in a collective for the failed rank
  // is sent SIGTERM after a grace period (rank 0 has saved every finished point by then),
  // and SIGKILL after another.
  constexpr auto kGrace = std::chrono::seconds(10);
  using Clock = std::chrono::steady_clock;
  int result = 0;
  std::optional<Clock::time_point> term_at, kill_at;
  std::size_t running = g_children.size();
  while (running > 0) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, term_at ? WNOHANG : 0);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) {  // ECHILD with ranks unaccounted for: their exit codes are lost
      if (result == 0) result = 1;
      fmt::print(stderr, "rooftop: lost track of {} rank(s) ({}); counting the run as failed\n", running,
                 std::strerror(errno));
      break;
    }
    if (pid == 0) {
      const auto now = Clock::now();
      if (kill_at && now > *kill_at) {
        forward_to_ranks(SIGKILL);
        kill_at = Clock::time_point::max();
      } else if (!kill_at && now > *term_at) {
        forward_to_ranks(SIGTERM);
        kill_at = now + kGrace;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    const auto it = std::find(g_children.begin(), g_children.end(), pid);
    if (it == g_children.end()) continue;
    *it = -1;
    --running;
    if (const int code = exit_code_of(status); code != 0 && result == 0) {
      result = code;
      term_at = Clock::now() + kGrace;
    }
  }
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
  std::filesystem::remove_all(folder);
  return result;
}

}  // namespace rooftop
