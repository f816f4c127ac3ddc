#pragma once
// Device fingerprints: "<backend>-<model words>-<size>-<hash of what defines the roof>",
// stable across runs of the same hardware and safe as a directory name.
#include <string>

namespace rooftop {

// `identity` lists what defines the device's roof; `model` gives the readable words
// (lower case, trademark marks dropped); `size` is e.g. "2c" or "132sm".
std::string make_fingerprint(const std::string& backend, const std::string& model, const std::string& size,
                             const std::string& identity);

}  // namespace rooftop
