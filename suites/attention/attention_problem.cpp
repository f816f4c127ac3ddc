#include "suites/attention/attention_problem.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>

#include "devices/backend_traits.hpp"
#include "harness/errors.hpp"

namespace rooftop::attention {

double unmasked_pairs(std::int64_t sq, std::int64_t skv, bool causal) {
  if (!causal) return static_cast<double>(sq) * static_cast<double>(skv);
  // Row i sees keys 0 .. i + (skv - sq): the queries are the last sq positions.
  double pairs = 0;
  for (std::int64_t i = 0; i < sq; ++i) pairs += static_cast<double>(std::clamp<std::int64_t>(i + skv - sq + 1, 0, skv));
  return pairs;
}

Work attention_work(const AttentionShape& s, Dtype dtype) {
  const double in = static_cast<double>(input_size(dtype));
  const double pairs = unmasked_pairs(s.sq, s.skv, s.causal);
  const double q = static_cast<double>(s.b * s.hq * s.sq * s.d), kv = static_cast<double>(s.b * s.hkv * s.skv * s.d);
  return {4.0 * static_cast<double>(s.b * s.hq) * pairs * static_cast<double>(s.d), (2 * q + 2 * kv) * in};
}

bool is_split_count(std::string_view t) {
  return t.size() >= 2 && t.size() <= 6 && t[0] == 's' && t[1] != '0' &&
         t.find_first_not_of("0123456789", 1) == std::string_view::npos;
}
std::int64_t split_count(std::string_view t) {
  std::int64_t n = 0;  // 0 (refused by splits_fit) for anything that is not s<digits>
  if (is_split_count(t)) std::from_chars(t.data() + 1, t.data() + t.size(), n);
  return n;
}

bool splits_fit(std::int64_t splits, std::int64_t skv) {
  return splits >= 1 && splits <= kDecodeMaxSplits && (skv + splits - 1) / splits <= kDecodeMaxSplitKeys &&
         splits * kDecodeMinSplitKeys <= std::max(skv, kDecodeMinSplitKeys);
}

std::vector<std::string> decode_split_candidates(const AttentionShape& s) {
  std::vector<std::string> out;
  if (!s.tile.empty() || s.impl != "fused") return out;
  for (std::int64_t splits = 1; splits <= 1024; splits *= 2)
    if (splits_fit(splits, s.skv)) out.push_back(fmt::format("s{}", splits));
  return out;
}

namespace {
PrefillTileLister& prefill_tile_lister() {
  static PrefillTileLister lister = nullptr;
  return lister;
}
}  // namespace

void register_cuda_prefill_tiles(PrefillTileLister lister) { prefill_tile_lister() = lister; }

std::vector<std::string> cuda_prefill_tile_candidates(const AttentionShape& s, Dtype dtype) {
  if (s.decode || !s.tile.empty() || s.impl != "fused" || !prefill_tile_lister()) return {};
  return prefill_tile_lister()(s, dtype);
}

std::string cudnn_unsupported(const AttentionShape& s, Dtype dtype) {
  if (dtype != Dtype::bf16 && dtype != Dtype::fp16)
    return fmt::format("cuDNN's fused attention takes bf16 or fp16, not {}", dtype_name(dtype));
  if (s.block) return "cuDNN's attention runs here on contiguous caches; its paged form is not wired in";
  if (s.causal && s.sq != s.skv) return "the causal mask is built for square attention (Sq = Skv)";
  return "";
}

void validate(const AttentionShape& s) {
  const auto bad = [](const std::string& what) { throw InputError("attention shape: " + what); };
  if (s.b <= 0 || s.hq <= 0 || s.hkv <= 0 || s.d <= 0) bad("batch, heads and head dim must be positive");
  if (s.sq <= 0 || s.skv <= 0) bad("sequence lengths must be positive (a zero-length sequence has no attention)");
  if (s.hq % s.hkv != 0)
    bad(fmt::format("{} query heads do not divide into {} KV heads: GQA needs Hq a multiple of Hkv", s.hq, s.hkv));
  if (s.d != 64 && s.d != 128) bad(fmt::format("head dim {} is not supported: use 64 or 128", s.d));
  if (s.decode && s.causal) bad("decode has one query, which sees the whole cache: causal does not apply");
  if (s.block != 0 && (s.block != 16 && s.block != 32)) bad(fmt::format("paged block size {}: use 16 or 32", s.block));
  if (s.block != 0 && !s.decode) bad("a paged cache is a decode layout");
  if (s.block != 0 && s.skv % s.block != 0)
    bad(fmt::format("cache length {} is not a whole number of {}-token blocks", s.skv, s.block));
  if (s.impl != "fused" && s.impl != "onednn" && s.impl != "cublaslt" && s.impl != "cudnn")
    bad("implementation '" + s.impl + "': use fused, onednn (CPU), cublaslt or cudnn (CUDA)");
  if ((s.impl == "onednn" || s.impl == "cublaslt") && s.decode) bad("the unfused " + s.impl + " path is a prefill path");
  if (!s.tile.empty() && s.impl == "cudnn") bad("cuDNN picks its own kernel: a cudnn point takes no tile");
  if (!s.tile.empty() && s.decode && !is_split_count(s.tile))
    bad("a decode point's tile is its split count, s<splits> (e.g. s32)");
  if (!s.tile.empty() && !s.decode && (is_split_count(s.tile) || s.impl != "fused"))
    bad("a tile configuration names a fused prefill kernel");
  if (s.decode && !s.tile.empty()) {
    const std::int64_t splits = split_count(s.tile);
    if (!splits_fit(splits, s.skv))
      bad(fmt::format("{} splits of {} keys: each split walks {} to {} keys, and there are at most {} splits", splits,
                      s.skv, kDecodeMinSplitKeys, kDecodeMaxSplitKeys, kDecodeMaxSplits));
  }
}

Problem make_attention_problem(const AttentionShape& s, Dtype dtype, std::string_view backend) {
  validate(s);
  const auto& traits = backend_traits(backend);
  // The GPU decode kernel's, one source for CUDA and HIP.
  if (s.decode && !s.tile.empty() && !traits.rooftop_gpu_kernels)
    throw InputError(fmt::format("tile {}: a split count is a setting of the CUDA decode kernel (HIP builds it too)", s.tile));
  if (traits.gpu && !s.decode && !s.tile.empty() && s.tile.find('w') == std::string::npos)
    throw InputError(fmt::format("tile {} names the CPU path's tiles (m<rows>n<keys>); the {} prefill's are "
                                 "[wg]m<M>n<N>w<warps>s<stages>, e.g. m128n64w4s2", s.tile, backend));
  if (s.impl == "cudnn" && !traits.cudnn_attention)
    throw InputError(fmt::format("implementation cudnn is NVIDIA's cuDNN: run it with --backend {}, not {}",
                                 fmt::join(backends_with(&BackendTraits::cudnn_attention), " or "), backend));
  Problem p;
  p.family = "attention";
  p.backend = std::string(backend);
  p.dtype = dtype;
  if (s.decode)
    p.shape = fmt::format("decode_b{}_hq{}_hkv{}_kv{}_d{}_{}{}{}", s.b, s.hq, s.hkv, s.skv, s.d,
                          s.block ? fmt::format("paged{}", s.block) : "contiguous", s.impl == "fused" ? "" : "_" + s.impl,
                          s.tile.empty() ? "" : "_" + s.tile);
  else
    p.shape = fmt::format("prefill_b{}_hq{}_hkv{}_s{}_d{}_{}_{}{}", s.b, s.hq, s.hkv, s.sq, s.d,
                          s.causal ? "causal" : "full", s.impl, s.tile.empty() ? "" : "_" + s.tile);
  p.params = {{"kind", s.decode ? "decode" : "prefill"}, {"b", s.b}, {"hq", s.hq}, {"hkv", s.hkv}, {"sq", s.sq},
              {"skv", s.skv}, {"d", s.d}, {"causal", s.causal}, {"block", s.block}, {"impl", s.impl}, {"tile", s.tile},
              {"layout", s.block ? "Q, O [B,Hq,1,D]; K, V in blocks [blocks,Hkv,block,D] via a shuffled block table"
                                 : "Q, O [B,Hq,S,D]; K, V [B,Hkv,S,D]; query head h uses KV head h / (Hq/Hkv)"}};
  attach_shape(p, s);
  p.work = attention_work(s, dtype);
  // Inputs and output, plus an unfused path's score matrix (fp32) and its copy in the input type.
  const bool unfused = s.impl == "onednn" || s.impl == "cublaslt";
  const double scores = unfused ? static_cast<double>(s.b * s.hq * s.sq * s.skv) * 6 : 0;
  p.memory_bytes = p.work.bytes + scores;
  return p;
}

AttentionShape shape_of(const Problem& p) {
  AttentionShape s = shape_as<AttentionShape>(p);
  if (!p.tile.empty()) s.tile = p.tile;  // the runner's choice (rooftop tune's, or a candidate)
  return s;
}

namespace {
// A prefill tile configuration: "[wg]m<digits>n<digits>w<digits>s<digits>[o][t][p]" names a GPU
// kernel; "m<digits>n<digits>" the CPU path's tile (query rows a task x keys a tile).
bool is_tile_name(std::string_view t) {
  std::size_t at = t.starts_with("wg") ? 2 : 0;
  const auto number_after = [&](char key) {
    if (at >= t.size() || t[at] != key) return false;
    const auto start = ++at;
    while (at < t.size() && t[at] >= '0' && t[at] <= '9') ++at;
    return at > start;
  };
  if (!number_after('m') || !number_after('n')) return false;
  if (at == t.size()) return !t.starts_with("wg");
  if (!number_after('w') || !number_after('s')) return false;
  // The suffix letters, each at most once and in this order: o(verlap), t(ma producer), p(ing-pong).
  for (char flag : {'o', 't', 'p'})
    if (at < t.size() && t[at] == flag) ++at;
  return at == t.size();
}
}  // namespace

AttentionShape parse_attention_shape(std::string_view text) {
  const auto usage = [&] {
    throw InputError(fmt::format("attention shape '{}': write prefill:BxHqxHkvxSxD[:causal][:onednn|:cublaslt|:cudnn]"
                                 "[:m128n64w4s2] or decode:BxHqxHkvxSkvxD[:paged16|:paged32][:cudnn|:s<splits>], e.g. "
                                 "prefill:1x32x8x4096x128:causal",
                                 text));
  };
  const auto split = [](std::string_view t, char sep) {
    std::vector<std::string_view> parts;
    for (std::size_t at = 0;;) {
      const auto next = t.find(sep, at);
      parts.push_back(t.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
      if (next == std::string_view::npos) return parts;
      at = next + 1;
    }
  };
  const auto fields = split(text, ':');
  if (fields.size() < 2 || (fields[0] != "prefill" && fields[0] != "decode")) usage();
  AttentionShape s;
  s.decode = fields[0] == "decode";
  const auto dims = split(fields[1], 'x');
  if (dims.size() != 5) usage();
  std::int64_t v[5];
  for (int i = 0; i < 5; ++i) {
    const auto [end, ec] = std::from_chars(dims[i].data(), dims[i].data() + dims[i].size(), v[i]);
    if (ec != std::errc() || end != dims[i].data() + dims[i].size())
      throw InputError(fmt::format("attention shape '{}': '{}' is not a whole number", text, dims[i]));
  }
  s.b = v[0];
  s.hq = v[1];
  s.hkv = v[2];
  s.sq = s.decode ? 1 : v[3];
  s.skv = v[3];
  s.d = v[4];
  for (std::size_t i = 2; i < fields.size(); ++i) {
    if (fields[i] == "causal") s.causal = true;
    else if (fields[i] == "onednn" || fields[i] == "fused" || fields[i] == "cublaslt" || fields[i] == "cudnn")
      s.impl = std::string(fields[i]);
    else if (fields[i] == "paged16") s.block = 16;
    else if (fields[i] == "paged32") s.block = 32;
    else if (is_tile_name(fields[i]) || (s.decode && is_split_count(fields[i]))) s.tile = std::string(fields[i]);
    else usage();
  }
  validate(s);
  return s;
}

}  // namespace rooftop::attention
