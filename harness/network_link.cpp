#include "harness/network_link.hpp"

#include <fmt/format.h>

#include <set>

namespace rooftop {

int hosts_in_placement(const std::vector<std::string>& placement) {
  std::set<std::string> hosts;
  for (const auto& process : placement) {
    std::size_t start = 0;
    while (start <= process.size()) {
      const auto end = std::min(process.find(';', start), process.size());
      const auto place = process.substr(start, end - start);
      if (!place.empty()) hosts.insert(place.substr(0, place.find(':')));
      start = end + 1;
    }
  }
  return static_cast<int>(hosts.size());
}

std::optional<Link> network_link(const Ceilings* measured, int hosts) {
  if (!measured) return std::nullopt;
  for (const auto& l : measured->links)
    if (l.name.starts_with(kNetworkLinkPrefix))
      return Link{fmt::format("{} (profile, between {} hosts)", l.name, hosts), l.bytes_per_s};
  return std::nullopt;
}

}  // namespace rooftop
