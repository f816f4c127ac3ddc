#pragma once
// Ranks on more than one host exchange data through the network between them: that link, not
// the host's memory or NVLink, bounds a collective's bus bandwidth. Its roof is given in the
// device profile as a link whose name starts with "network" (measured.links), since no
// characterize run here can see another host.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.hpp"
#include "harness/roofline.hpp"

namespace rooftop {

inline constexpr std::string_view kNetworkLinkPrefix = "network";

// How many hosts a transport's placement names ("host:cpu (pid 7)", or one process's GPUs
// as "host:gpu0 (...);host:gpu1 (...)").
int hosts_in_placement(const std::vector<std::string>& placement);

// The profile's network link, named for the results ("network ... (profile, between 2 hosts)");
// none when the profile gives no network link.
std::optional<Link> network_link(const Ceilings* measured, int hosts);

}  // namespace rooftop
