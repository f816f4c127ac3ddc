#include "devices/cuda/nccl_transport.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "devices/cuda/gpu_kernels.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/nccl_api.hpp"
#include "harness/errors.hpp"
#include "devices/ranks/local_ranks.hpp"

namespace rooftop {
namespace {

using gpu::nccl;

int nccl_version() {
  static const int version = [] {
    int v = 0;
    ROOFTOP_NCCL_CHECK(nccl().ncclGetVersion(&v));
    return v;
  }();
  return version;
}

ncclDataType_t nccl_type(Dtype d) {
  switch (d) {
    case Dtype::fp32: return ncclFloat32;
    case Dtype::bf16: return ncclBfloat16;
    case Dtype::fp16: return ncclFloat16;
    case Dtype::int8: return ncclInt8;
    case Dtype::fp8:
#if ROOFTOP_GPU_HAS_FP8
      if (nccl_version() < 22400) throw PointSkipped("fp8 collectives need NCCL 2.24 or later");
      return ncclFloat8e4m3;
#else
      throw PointSkipped(gpu::kNoFp8);
#endif
    default: throw PointSkipped(fmt::format("NCCL collectives take fp32, bf16, fp16, fp8 or int8, not {}", dtype_name(d)));
  }
}

class NcclTransport final : public Transport {
 public:
  explicit NcclTransport(ProcessGroup& world) : world_(world) {
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0)
      throw DeviceUnavailable("no CUDA GPU is visible: NCCL collectives need one GPU a rank");
    const auto& api = nccl();
    const int version = nccl_version();
    name_ = fmt::format("NCCL {}.{}.{} ({})", version / 10000, version / 100 % 100, version % 100, api.path);
    if (world_.size() == 1) {
      devices_.resize(gpus);
      for (int i = 0; i < gpus; ++i) devices_[i] = i;
      comms_.resize(gpus);
      ROOFTOP_NCCL_CHECK(api.ncclCommInitAll(comms_.data(), gpus, devices_.data()));
      ranks_ = gpus;
      first_rank_ = 0;
    } else {
      const int local = node_local_rank();
      if (local >= gpus)
        throw InputError(fmt::format("node-local rank {} has no GPU of its own ({} visible): launch at most one rank a GPU",
                                     local, gpus));
      devices_ = {local};
      ncclUniqueId id{};
      if (world_.rank() == 0) ROOFTOP_NCCL_CHECK(api.ncclGetUniqueId(&id));
      world_.broadcast(&id, sizeof id);
      ROOFTOP_GPU_CHECK(cudaSetDevice(local));
      comms_.resize(1);
      ROOFTOP_NCCL_CHECK(api.ncclCommInitRank(&comms_[0], world_.size(), id, world_.rank()));
      ranks_ = world_.size();
      first_rank_ = world_.rank();
    }
    streams_.resize(devices_.size());
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      ROOFTOP_GPU_CHECK(cudaSetDevice(devices_[i]));
      ROOFTOP_GPU_CHECK(cudaStreamCreateWithFlags(&streams_[i], cudaStreamNonBlocking));
    }
  }
  ~NcclTransport() override {
    for (auto c : comms_) nccl().ncclCommDestroy(c);
    if (!borrowed_)
      for (auto s : streams_) cudaStreamDestroy(s);
  }

  std::string name() const override { return name_; }
  int ranks() const override { return ranks_; }
  int local_ranks() const override { return static_cast<int>(devices_.size()); }
  int rank_of(int local) const override { return first_rank_ + local; }
  bool writes_results() const override { return world_.rank() == 0; }
  std::vector<std::string> placement() override {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::string mine;
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      cudaDeviceProp p{};
      ROOFTOP_GPU_CHECK(cudaGetDeviceProperties(&p, devices_[i]));
      mine += fmt::format("{}{}:gpu{} ({}, bus {:02x}:{:02x})", i ? ";" : "", host, devices_[i], p.name, p.pciBusID,
                          p.pciDeviceID);
    }
    std::vector<std::string> out;
    for (const auto& process : world_.gather(mine))
      for (std::size_t at = 0;;) {
        const auto next = process.find(';', at);
        out.push_back(process.substr(at, next == std::string::npos ? std::string::npos : next - at));
        if (next == std::string::npos) break;
        at = next + 1;
      }
    return out;
  }
  void* allocate(int local, std::size_t bytes) override {
    ROOFTOP_GPU_CHECK(cudaSetDevice(devices_[local]));
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      throw PointSkipped(fmt::format("{} bytes do not fit in GPU {}'s free memory", bytes, devices_[local]));
    }
    return p;
  }
  void release(int local, void* p) override {
    cudaSetDevice(devices_[local]);
    cudaFree(p);
  }
  // On the rank's own stream, finished before returning. A plain cudaMemcpy from pageable
  // memory returns once the data is staged, before its DMA lands, and the legacy stream it
  // runs on does not order the non-blocking NCCL streams: a collective queued next could
  // read its send buffer, and write its receive buffer, before the check's data arrived.
  void upload(int local, void* dst, const void* host, std::size_t bytes) override {
    ROOFTOP_GPU_CHECK(cudaSetDevice(devices_[local]));
    ROOFTOP_GPU_CHECK(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, streams_[local]));
    ROOFTOP_GPU_CHECK(cudaStreamSynchronize(streams_[local]));
  }
  void download(int local, void* host, const void* src, std::size_t bytes) override {
    ROOFTOP_GPU_CHECK(cudaSetDevice(devices_[local]));
    ROOFTOP_GPU_CHECK(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, streams_[local]));
    ROOFTOP_GPU_CHECK(cudaStreamSynchronize(streams_[local]));
  }

  void begin() override { ROOFTOP_NCCL_CHECK(nccl().ncclGroupStart()); }
  void end() override { ROOFTOP_NCCL_CHECK(nccl().ncclGroupEnd()); }
  void all_reduce(int l, const void* send, void* recv, std::size_t count, Dtype d) override {
    ROOFTOP_NCCL_CHECK(nccl().ncclAllReduce(send, recv, count, nccl_type(d), ncclSum, comms_[l], streams_[l]));
  }
  void all_gather(int l, const void* send, void* recv, std::size_t count, Dtype d) override {
    ROOFTOP_NCCL_CHECK(nccl().ncclAllGather(send, recv, count, nccl_type(d), comms_[l], streams_[l]));
  }
  void reduce_scatter(int l, const void* send, void* recv, std::size_t count, Dtype d) override {
    ROOFTOP_NCCL_CHECK(nccl().ncclReduceScatter(send, recv, count, nccl_type(d), ncclSum, comms_[l], streams_[l]));
  }
  void alltoall(int l, const void* send, void* recv, std::size_t count, Dtype d) override {
    const std::size_t bytes = count * input_size(d);
    ROOFTOP_NCCL_CHECK(nccl().ncclGroupStart());
    for (int q = 0; q < ranks_; ++q) {
      ROOFTOP_NCCL_CHECK(nccl().ncclSend(static_cast<const char*>(send) + q * bytes, count, nccl_type(d), q, comms_[l], streams_[l]));
      ROOFTOP_NCCL_CHECK(nccl().ncclRecv(static_cast<char*>(recv) + q * bytes, count, nccl_type(d), q, comms_[l], streams_[l]));
    }
    ROOFTOP_NCCL_CHECK(nccl().ncclGroupEnd());
  }
  void broadcast(int l, const void* send, void* recv, std::size_t count, Dtype d, int root) override {
    ROOFTOP_NCCL_CHECK(nccl().ncclBroadcast(send, recv, count, nccl_type(d), root, comms_[l], streams_[l]));
  }
  void reduce(int l, const void* send, void* recv, std::size_t count, Dtype d, int root) override {
    ROOFTOP_NCCL_CHECK(nccl().ncclReduce(send, recv, count, nccl_type(d), ncclSum, root, comms_[l], streams_[l]));
  }
  void send_recv(int l, const void* send, int to, void* recv, int from, std::size_t count, Dtype d) override {
    ROOFTOP_NCCL_CHECK(nccl().ncclGroupStart());
    ROOFTOP_NCCL_CHECK(nccl().ncclSend(send, count, nccl_type(d), to, comms_[l], streams_[l]));
    ROOFTOP_NCCL_CHECK(nccl().ncclRecv(recv, count, nccl_type(d), from, comms_[l], streams_[l]));
    ROOFTOP_NCCL_CHECK(nccl().ncclGroupEnd());
  }
  // Polls every stream (no sleeping: small collectives finish in microseconds), and the
  // communicators' asynchronous errors, until done or the deadline.
  void wait(double timeout_s) override {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (std::size_t polls = 0;; ++polls) {
      bool done = true;
      for (std::size_t i = 0; i < streams_.size(); ++i) {
        const auto status = cudaStreamQuery(streams_[i]);
        if (status == cudaErrorNotReady) done = false;
        else ROOFTOP_GPU_CHECK(status);
      }
      if (done) return;
      if (polls % 1024 == 0) {
        for (auto c : comms_) {
          ncclResult_t async = ncclSuccess;
          ROOFTOP_NCCL_CHECK(nccl().ncclCommGetAsyncError(c, &async));
          ROOFTOP_NCCL_CHECK(async);
        }
        if (std::chrono::steady_clock::now() > deadline)
          throw CommTimeout(fmt::format("NCCL work did not finish within {} s", timeout_s));
      }
    }
  }

  double max_over_processes(double v) override { return world_.max(v); }
  bool all_processes(bool v) override { return world_.all(v); }
  std::vector<std::string> gather_strings(const std::string& mine) override { return world_.gather(mine); }
  void barrier() override { world_.barrier(); }
  void queue_on(cudaStream_t stream) {
    if (streams_.size() != 1) throw std::logic_error("a decoder's stream binds a transport of one local rank");
    // The decoder's buffers and stream are made on the current GPU: it must be the communicator's.
    int device = -1;
    ROOFTOP_GPU_CHECK(cudaGetDevice(&device));
    if (device != devices_[0])
      throw std::logic_error(fmt::format("the decoder runs on GPU {}, this rank's communicator on GPU {}", device,
                                         devices_[0]));
    if (streams_[0] == stream) return;  // bound already (each decoder of a point binds it)
    if (!borrowed_) ROOFTOP_GPU_CHECK(cudaStreamDestroy(streams_[0]));
    streams_[0] = stream;
    borrowed_ = true;
  }
  [[noreturn]] void abort(int exit_code) override {
    for (auto c : comms_) nccl().ncclCommAbort(c);
    world_.abort(exit_code);
    std::_Exit(exit_code);  // not reached
  }

 private:
  ProcessGroup& world_;
  std::string name_;
  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
  bool borrowed_ = false;  // streams_[0] is a decoder's (queue_on): not ours to destroy
  int ranks_ = 1, first_rank_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_nccl_transport(ProcessGroup& world) { return std::make_unique<NcclTransport>(world); }

bool queue_nccl_on(Transport& transport, void* stream) {
  auto* nccl_transport = dynamic_cast<NcclTransport*>(&transport);
  if (!nccl_transport) return false;
  nccl_transport->queue_on(static_cast<cudaStream_t>(stream));
  return true;
}

}  // namespace rooftop
