#include "harness/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/errors.hpp"

namespace rooftop {
namespace {
std::vector<Family>& family_table() {
  static std::vector<Family> table;
  return table;
}
}  // namespace

void register_family(Family family) {
  for (const auto& f : family_table())
    if (f.name == family.name) return;  // registering twice is harmless
  family_table().push_back(std::move(family));
}

const std::vector<Family>& families() { return family_table(); }

const Family& find_family(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& f : family_table()) {
    if (f.name == name) return f;
    names.push_back(f.name);
  }
  throw InputError(fmt::format("unknown suite '{}': choose one of {}", name, fmt::join(names, ", ")));
}

}  // namespace rooftop
