#include "harness/fingerprint.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>

namespace rooftop {

std::string make_fingerprint(const std::string& backend, const std::string& model, const std::string& size,
                             const std::string& identity) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : identity) h = (h ^ c) * 0x100000001b3ull;
  std::string slug, word;
  for (std::size_t k = 0; k <= model.size(); ++k) {
    const auto u = k < model.size() ? static_cast<unsigned char>(model[k]) : ' ';
    if (std::isalnum(u)) {
      word += static_cast<char>(std::tolower(u));
    } else if (!word.empty()) {
      if (word != "r" && word != "tm" && word != "cpu") slug += (slug.empty() ? "" : "-") + word;
      word.clear();
    }
  }
  if (slug.size() > 40) slug.resize(40);
  return fmt::format("{}-{}-{}-{:08x}", backend, slug, size, static_cast<std::uint32_t>(h ^ (h >> 32)));
}

}  // namespace rooftop
