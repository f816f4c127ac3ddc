#include "harness/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "harness/backend.hpp"
#include "harness/errors.hpp"

namespace rooftop {
namespace {
// Function-local tables: registrars in other files run during static initialisation, in
// an order the language leaves open.
std::vector<Family>& family_table() {
  static std::vector<Family> table;
  return table;
}
std::map<std::pair<std::string, std::string>, InstanceFactory, std::less<>>& implementation_table() {
  static std::map<std::pair<std::string, std::string>, InstanceFactory, std::less<>> table;
  return table;
}
}  // namespace

std::string_view measurement_name(Measurement m) {
  switch (m) {
    case Measurement::kernel_loop: return "kernel loop";
    case Measurement::lockstep_ranks: return "lockstep ranks";
    case Measurement::scenario: return "scenario";
  }
  return "?";
}

void register_family(Family family) {
  for (const auto& f : family_table())
    if (f.name == family.name) return;  // registering twice is harmless
  family_table().push_back(std::move(family));
  // Listed in a stable order whatever the order of static initialisation.
  std::sort(family_table().begin(), family_table().end(), [](const Family& a, const Family& b) { return a.name < b.name; });
}

const std::vector<Family>& families() { return family_table(); }

const Family* family_named(std::string_view name) {
  for (const auto& f : family_table())
    if (f.name == name) return &f;
  return nullptr;
}

const Family& find_family(std::string_view name) {
  if (const auto* f = family_named(name)) return *f;
  std::vector<std::string> names;
  for (const auto& f : family_table()) names.push_back(f.name);
  throw InputError(fmt::format("unknown suite '{}': choose one of {}", name, fmt::join(names, ", ")));
}

void register_implementation(std::string_view family, std::string_view backend, InstanceFactory factory) {
  implementation_table()[{std::string(family), std::string(backend)}] = std::move(factory);
}

std::vector<std::string> family_backends(std::string_view family) {
  std::vector<std::string> out;
  for (const auto& [key, factory] : implementation_table())
    if (key.first == family && key.second != kAnyBackend) out.push_back(key.second);
  if (implementation_table().count(std::pair{std::string(family), std::string(kAnyBackend)}))
    for (const auto& b : backends())
      if (std::find(out.begin(), out.end(), b->name()) == out.end()) out.push_back(b->name());
  std::sort(out.begin(), out.end());
  return out;
}

const InstanceFactory* find_implementation(std::string_view family, std::string_view backend) {
  const auto& table = implementation_table();
  for (const std::string_view b : {backend, kAnyBackend}) {
    const auto it = table.find(std::pair{std::string(family), std::string(b)});
    if (it != table.end()) return &it->second;
  }
  return nullptr;
}

}  // namespace rooftop
