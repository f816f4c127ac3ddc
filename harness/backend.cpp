#include "harness/backend.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/errors.hpp"

namespace rooftop {
namespace {
std::vector<std::unique_ptr<Backend>>& backend_table() {
  static std::vector<std::unique_ptr<Backend>> table;
  return table;
}
}  // namespace

void register_backend(std::unique_ptr<Backend> backend) {
  for (const auto& b : backend_table())
    if (b->name() == backend->name()) return;
  backend_table().push_back(std::move(backend));
}

std::unique_ptr<Transport> Backend::make_transport() const {
  throw InputError(fmt::format("backend '{}' has no transport between ranks: collectives run on the cpu (MPI) and "
                               "cuda (NCCL) backends", name()));
}

std::optional<Link> Backend::collective_link(const Ceilings*, const Datasheet*) const { return std::nullopt; }

const std::vector<std::unique_ptr<Backend>>& backends() { return backend_table(); }

const Backend& find_backend(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& b : backend_table()) {
    if (b->name() == name) {
      if (const auto why = b->unavailable_reason(); !why.empty())
        throw DeviceUnavailable(fmt::format("backend '{}' cannot run here: {}; the cpu backend still runs (--backend cpu)",
                                            name, why));
      return *b;
    }
    names.push_back(b->name());
  }
  throw InputError(fmt::format("unknown backend '{}': choose one of {} (this build)", name, fmt::join(names, ", ")));
}

}  // namespace rooftop
