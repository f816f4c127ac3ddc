// Ranks on several hosts are drawn against the network between them (harness/network_link.hpp).
#include <catch2/catch.hpp>

#include "harness/device_profile.hpp"
#include "harness/network_link.hpp"

using namespace rooftop;

TEST_CASE("hosts are counted from the placement, one process's GPUs split on a semicolon", "[collectives]") {
  CHECK(hosts_in_placement({}) == 0);
  CHECK(hosts_in_placement({"a:cpu (pid 1)", "a:cpu (pid 2)"}) == 1);
  CHECK(hosts_in_placement({"a:cpu (pid 1)", "a:cpu (pid 2)", "b:cpu (pid 1)", "b:cpu (pid 2)"}) == 2);
  CHECK(hosts_in_placement({"a:gpu0 (H200, bus 1b:00);a:gpu1 (H200, bus 2b:00)"}) == 1);
  CHECK(hosts_in_placement({"a:gpu0 (x);b:gpu0 (x)", "c:gpu1 (x)"}) == 3);
}

TEST_CASE("across hosts the link is the profile's network link, or none", "[collectives]") {
  Ceilings c;
  CHECK_FALSE(network_link(nullptr, 2));
  CHECK_FALSE(network_link(&c, 2));
  c.links = {{"host_to_device", 50e9}};
  CHECK_FALSE(network_link(&c, 2));  // a PCIe link is not the network
  c.links.push_back({"network 25GbE", 3.1e9});
  const auto l = network_link(&c, 2);
  REQUIRE(l);
  CHECK(l->name == "network 25GbE (profile, between 2 hosts)");
  CHECK(l->bytes_per_s == 3.1e9);
}

TEST_CASE("a profile's link that a new measurement lacks is kept when merging", "[profile]") {
  Ceilings stored, measured;
  stored.links = {{"host_to_device", 50e9}, {"network", 3e9}};
  measured.links = {{"host_to_device", 40e9}};
  const auto m = merge_ceilings(stored, measured);
  REQUIRE(m.links.size() == 2);
  CHECK(m.links[0].bytes_per_s == 50e9);  // the stored figure was higher
  CHECK(m.links[1].name == "network");
  CHECK(m.links[1].bytes_per_s == 3e9);
}
