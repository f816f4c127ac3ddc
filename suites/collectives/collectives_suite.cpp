// The collectives family: its descriptor and tier sweeps. One implementation serves every
// backend that has a transport between ranks (Backend::make_transport: MPI, NCCL).
#include <fmt/format.h>

#include "harness/registry.hpp"
#include "harness/tier_sweep.hpp"
#include "suites/collectives/collective_instance.hpp"
#include "suites/collectives/collectives_plan.hpp"
#include "suites/shape_data.hpp"

namespace rooftop::collectives {
namespace {

Family make_collectives_family() {
  Family f;
  f.name = "collectives";
  f.description = "Collectives between ranks, as nccl-tests measures them: all_reduce, all_gather, reduce_scatter, "
                  "alltoall, broadcast, reduce, sendrecv; algbw, busbw and the link's share";
  f.measurement = Measurement::lockstep_ranks;
  f.dtypes = {Dtype::fp32, Dtype::bf16, Dtype::fp16, Dtype::fp8, Dtype::int8};
  f.shape_dtypes = {Dtype::fp32};
  f.shape_syntax = "NAME:MIN[-MAX[:fFACTOR]][:inplace], e.g. all_reduce:1K-4G:f2";
  f.shape_points = [](std::string_view shape, Dtype dtype, const PlanContext& c) {
    return parse_collective_shape(shape, dtype, c.ranks, c.backend);
  };
  // A tier's ranges hold sizes that cannot be split over every rank count: those are left
  // out of the sweep (a user's shape with one is refused when it runs).
  f.sweep = [](const PlanContext& c) {
    auto points = sweep_from_shape_set(*family_named("collectives"), embedded_shape_set("collectives", tier_name(c.tier)),
                                       fmt::format("suites/collectives/shapes/{}.txt", tier_name(c.tier)), c);
    std::erase_if(points, [&](const Problem& p) {
      return !unusable_size(collective_of(p), point_of(p).size_bytes, p.dtype, c.ranks).empty();
    });
    return points;
  };
  return f;
}

const RegisterFamily kCollectives(make_collectives_family);
const RegisterImplementation kOnEveryTransport("collectives", kAnyBackend.data(), create_collective);

}  // namespace
}  // namespace rooftop::collectives
