#include "cli/profile_lookup.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "cli/program_name.hpp"
#include "harness/errors.hpp"
#include "harness/paths.hpp"

namespace rooftop::cli {

ProfileLookup find_profile(const Backend& backend, const std::string& explicit_path) {
  const auto path = explicit_path.empty() ? default_profile_path(backend.fingerprint()) : std::filesystem::path(explicit_path);
  if (explicit_path.empty() && !std::filesystem::exists(path))
    return {std::nullopt, fmt::format("no device profile for {} (run `{} characterize --backend {}`)",
                                      backend.fingerprint(), program_name(), backend.name())};
  auto profile = load_profile(path);
  if (profile.backend != backend.name() || profile.fingerprint != backend.fingerprint())
    throw InputError(fmt::format("{}: this profile was measured on {} ({}), not on this device {} ({}); "
                                 "run `rooftop characterize --backend {}` here or pass this device's profile",
                                 path.string(), profile.fingerprint, profile.backend, backend.fingerprint(),
                                 backend.name(), backend.name()));
  return {std::move(profile), path.string()};
}

}  // namespace rooftop::cli
