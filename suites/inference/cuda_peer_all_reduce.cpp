#include "suites/inference/cuda_peer_all_reduce.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <stdexcept>

namespace rooftop::inference {
namespace {

std::string to_hex(const void* p, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", static_cast<const unsigned char*>(p)[i]);
  return out;
}

void from_hex(const std::string& hex, void* p, std::size_t n) {
  if (hex.size() != 2 * n) throw std::runtime_error("a peer's IPC handle came garbled");
  for (std::size_t i = 0; i < n; ++i)
    static_cast<unsigned char*>(p)[i] = static_cast<unsigned char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
}

// host|pci bus id|handle, split on '|'.
std::vector<std::string> fields(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t at = 0;;) {
    const auto bar = s.find('|', at);
    out.push_back(s.substr(at, bar == std::string::npos ? std::string::npos : bar - at));
    if (bar == std::string::npos) return out;
    at = bar + 1;
  }
}

}  // namespace

PeerAllReduce::PeerAllReduce(int ranks, int rank, std::size_t capacity, double timeout_s)
    : ranks_(ranks), rank_(rank), capacity_(capacity), timeout_ns_(static_cast<std::uint64_t>((timeout_s + 5) * 1e9)),  // the watchdog's first
      region_(2 * static_cast<std::size_t>(ranks) * capacity * 8),
      epochs_(kernels::kPeerBlocks * 4) {
  ROOFTOP_GPU_CHECK(cudaMemset(region_.get(), 0, region_.bytes()));
  ROOFTOP_GPU_CHECK(cudaMemset(epochs_.get(), 0, epochs_.bytes()));
  ROOFTOP_GPU_CHECK(cudaDeviceSynchronize());  // epoch 0 everywhere before any peer writes
}

std::unique_ptr<PeerAllReduce> PeerAllReduce::open(Transport& t, std::size_t capacity, double timeout_s,
                                                   std::string& why) {
  const int ranks = t.ranks();
  // Every rank reaches the same verdict on these (the same transport everywhere).
  if (ranks > kernels::kPeerMaxRanks) {
    why = fmt::format("{} ranks, more than the {} it handles", ranks, kernels::kPeerMaxRanks);
    return nullptr;
  }
  if (t.local_ranks() != 1) {
    why = "one process drives several GPUs";
    return nullptr;
  }
  const int rank = t.rank_of(0);
  std::unique_ptr<PeerAllReduce> self(new PeerAllReduce(ranks, rank, capacity, timeout_s));
  int device = 0;
  ROOFTOP_GPU_CHECK(cudaGetDevice(&device));
  char bus[32] = {}, host[256] = {};
  ROOFTOP_GPU_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
  gethostname(host, sizeof host - 1);
  cudaIpcMemHandle_t handle{};
  ROOFTOP_GPU_CHECK(cudaIpcGetMemHandle(&handle, self->region_.get()));
  const auto all = t.gather_strings(fmt::format("{}|{}|{}", host, bus, to_hex(&handle, sizeof handle)));
  std::string mine_why;
  for (int q = 0; q < ranks && mine_why.empty(); ++q) {
    const auto f = fields(all.at(static_cast<std::size_t>(q)));
    char* base = nullptr;
    if (q == rank) {
      base = static_cast<char*>(self->region_.get());
    } else if (f.size() != 3 || f[0] != host) {
      mine_why = fmt::format("rank {} runs on another host", q);
    } else {
      int peer = -1, can = 0;
      if (cudaDeviceGetByPCIBusId(&peer, f[1].c_str()) != cudaSuccess) {
        mine_why = fmt::format("rank {}'s GPU ({}) is not visible to rank {}", q, f[1], rank);
      } else if (cudaDeviceCanAccessPeer(&can, device, peer) != cudaSuccess || !can) {
        mine_why = fmt::format("GPU {} cannot reach GPU {}'s memory (no peer access)", bus, f[1]);
      } else {
        cudaIpcMemHandle_t theirs{};
        from_hex(f[2], &theirs, sizeof theirs);
        void* p = nullptr;
        const auto status = cudaIpcOpenMemHandle(&p, theirs, cudaIpcMemLazyEnablePeerAccess);
        if (status != cudaSuccess) mine_why = fmt::format("cudaIpcOpenMemHandle: {}", cudaGetErrorString(status));
        else self->opened_.push_back(base = static_cast<char*>(p));
      }
    }
    if (base) self->peers_.data[q] = reinterpret_cast<std::uint64_t*>(base);
  }
  (void)cudaGetLastError();  // a refused peer's error is in mine_why
  if (t.all_processes(mine_why.empty())) return self;
  why = mine_why.empty() ? "another rank's GPU cannot reach a peer's memory" : mine_why;
  return nullptr;
}

PeerAllReduce::~PeerAllReduce() {
  for (void* p : opened_) cudaIpcCloseMemHandle(p);
}

void PeerAllReduce::queue(float* data, std::size_t count, kernels::L2Prefetch prefetch) {
  if (count > capacity_) throw std::logic_error("a peer all-reduce larger than its buffers");
  kernels::peer_all_reduce(peers_, ranks_, rank_, data, count, capacity_, epochs_.as<std::uint32_t>(), timeout_ns_,
                           prefetch);
}

}  // namespace rooftop::inference
