// Declarations a task makes once: its config fields, its spaces and its info fields.
// Python derives gymnasium spaces, dm_env specs and docs from these; nothing is declared twice.
#pragma once

#include <charconv>
#include <cstdint>
#include <map>
#include <utility>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace envhive {

// Numbered as the pool C interface numbers them (bindings/pool_abi.h): append, never reorder.
enum class DType : uint8_t { kBool, kUInt8, kInt32, kInt64, kFloat32, kFloat64, kInt8 };

inline size_t dtype_size(DType d) {
  switch (d) {
    case DType::kBool:
    case DType::kUInt8:
    case DType::kInt8: return 1;
    case DType::kInt32:
    case DType::kFloat32: return 4;
    case DType::kInt64:
    case DType::kFloat64: return 8;
  }
  return 0;
}

inline const char* dtype_name(DType d) {
  switch (d) {
    case DType::kBool: return "bool";
    case DType::kUInt8: return "uint8";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kInt8: return "int8";
  }
  return "?";
}

// The DType named as numpy names it ("float32", ...); throws std::invalid_argument otherwise.
inline DType dtype_from_name(const std::string& name) {
  for (DType d : {DType::kBool, DType::kUInt8, DType::kInt8, DType::kInt32, DType::kInt64, DType::kFloat32,
                  DType::kFloat64})
    if (name == dtype_name(d)) return d;
  throw std::invalid_argument("unsupported dtype '" + name +
                              "' (supported: bool, uint8, int8, int32, int64, float32, float64)");
}

// a * b and a + b of sizes, saturating at UINT64_MAX instead of wrapping: sizes computed from a
// task's kwargs are compared against limits (kMaxSpaceBytes) before anything is allocated.
inline uint64_t saturating_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
inline uint64_t saturating_add(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

// A gymnasium space as a task declares it. Leaves: Box (bounds per element, or one bound
// broadcast), Discrete(n, start) and Text (a string of at most max_length UTF-8 bytes, carried as
// max_length uint8 bytes, zero padded: no Python object per step). Composites (observations only):
// Dict (named items, kept in the declared order) and Tuple; their leaves are laid out depth first.
struct SpaceSpec {
  enum class Kind : uint8_t { kBox, kDiscrete, kText, kDict, kTuple };
  Kind kind = Kind::kBox;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<double> low, high;  // Box only; size 1 broadcasts, else one per element
  int64_t n = 0, start = 0;       // Discrete only
  int64_t min_length = 0;         // Text only (max_length is shape[0])
  std::string charset;            // Text only: the characters it may hold; empty: Gymnasium's default
  std::vector<std::pair<std::string, SpaceSpec>> items;  // Dict (names) and Tuple (empty names)

  static SpaceSpec box(DType dtype, std::vector<int64_t> shape, std::vector<double> low,
                       std::vector<double> high) {
    SpaceSpec s;
    s.kind = Kind::kBox;
    s.dtype = dtype;
    s.shape = std::move(shape);
    s.low = std::move(low);
    s.high = std::move(high);
    return s;
  }
  static SpaceSpec discrete(int64_t n, int64_t start = 0) {
    SpaceSpec s;
    s.kind = Kind::kDiscrete;
    s.dtype = DType::kInt64;
    s.n = n;
    s.start = start;
    return s;
  }
  static SpaceSpec text(int64_t max_length, int64_t min_length = 0, std::string charset = "") {
    SpaceSpec s;
    s.kind = Kind::kText;
    s.dtype = DType::kUInt8;
    s.shape = {max_length};
    s.min_length = min_length;
    s.charset = std::move(charset);
    return s;
  }
  static SpaceSpec dict(std::vector<std::pair<std::string, SpaceSpec>> items) {
    SpaceSpec s;
    s.kind = Kind::kDict;
    s.dtype = DType::kUInt8;
    s.items = std::move(items);
    return s;
  }
  static SpaceSpec tuple(std::vector<SpaceSpec> items) {
    SpaceSpec s;
    s.kind = Kind::kTuple;
    s.dtype = DType::kUInt8;
    for (auto& item : items) s.items.emplace_back(std::string(), std::move(item));
    return s;
  }
  bool is_leaf() const { return kind != Kind::kDict && kind != Kind::kTuple; }
  // A leaf's values (1 for a Discrete; a Text's max_length bytes).
  size_t count() const {
    size_t c = 1;
    for (auto d : shape) c *= static_cast<size_t>(d);
    return c;
  }
  // A leaf's bytes; a composite's, every leaf's together.
  size_t bytes() const {
    if (is_leaf()) return count() * dtype_size(dtype);
    size_t b = 0;
    for (const auto& [name, item] : items) b += item.bytes();
    return b;
  }
  // bytes(), saturating instead of wrapping (UINT64_MAX: more than any limit); for a space that
  // validate_spaces has not checked yet (a negative dimension counts as 0 here).
  uint64_t checked_bytes() const {
    if (is_leaf()) {
      uint64_t c = dtype_size(dtype);
      for (auto d : shape) c = saturating_mul(c, d < 0 ? 0 : static_cast<uint64_t>(d));
      return c;
    }
    uint64_t b = 0;
    for (const auto& [name, item] : items) b = saturating_add(b, item.checked_bytes());
    return b;
  }
  double low_at(size_t i) const { return low.size() == 1 ? low[0] : low[i]; }
  double high_at(size_t i) const { return high.size() == 1 ? high[0] : high[i]; }
};

// The leaves of a space, depth first (a leaf is its own only leaf). A leaf's path names it from
// the top: Dict keys and Tuple indexes joined by '/' ("image", "0/pos"); empty for a lone leaf.
struct SpaceLeaf {
  std::string path;
  const SpaceSpec* spec;
};
inline void collect_leaves(const SpaceSpec& s, const std::string& path, std::vector<SpaceLeaf>& out) {
  if (s.is_leaf()) {
    out.push_back({path, &s});
    return;
  }
  for (size_t i = 0; i < s.items.size(); ++i) {
    const std::string name = s.kind == SpaceSpec::Kind::kDict ? s.items[i].first : std::to_string(i);
    collect_leaves(s.items[i].second, path.empty() ? name : path + "/" + name, out);
  }
}
inline std::vector<SpaceLeaf> space_leaves(const SpaceSpec& s) {
  std::vector<SpaceLeaf> out;
  collect_leaves(s, "", out);
  return out;
}

// The most leaves an observation may have (write_obs_leaves hands an env one pointer per leaf
// from a fixed array), and the deepest nesting of Dict / Tuple.
inline constexpr size_t kMaxObsLeaves = 64;
inline constexpr int kMaxSpaceDepth = 8;
// The most dimensions of a Box (numpy's arrays hold 32 in older versions; one is the batch's).
inline constexpr size_t kMaxSpaceDims = 31;
// The most bytes one env's observation (every leaf together), its action, or one info field may
// take: 1 GiB (a 16384 x 16384 RGB frame, the largest render side, is 768 MiB). validate_spaces
// refuses more before anything is allocated, whatever kwargs made the shape (ValueError naming them).
inline constexpr uint64_t kMaxSpaceBytes = uint64_t{1} << 30;

// An extra per-env output reported in info (scalar or small array).
struct InfoSpec {
  std::string name;
  DType dtype = DType::kFloat64;
  std::vector<int64_t> shape;
  size_t bytes() const {
    size_t c = dtype_size(dtype);
    for (auto d : shape) c *= static_cast<size_t>(d);
    return c;
  }
};

// A table of named numbers and number lists: a config value that is a dict in Python (MuJoCo's
// default_camera_config = {"distance": 4.0, "lookat": [0, 0, 1.15]}). A scalar is a list of one.
using ConfigTable = std::map<std::string, std::vector<double>>;

// A config value as it crosses from Python: bool, int, float, string, list of floats, or a dict of
// numbers / lists of numbers.
using ConfigValue = std::variant<bool, int64_t, double, std::string, std::vector<double>, ConfigTable>;

struct ConfigField {
  std::string name;
  ConfigValue default_value;
  std::string doc;
};

// The resolved config of one pool: every declared field has a value.
class Config {
 public:
  Config() = default;
  explicit Config(std::map<std::string, ConfigValue> values) : values_(std::move(values)) {}

  const ConfigValue& raw(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) throw std::invalid_argument("config has no field '" + name + "'");
    return it->second;
  }
  double real(const std::string& name) const {
    const auto& v = raw(name);
    if (auto* d = std::get_if<double>(&v)) return *d;
    if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    throw std::invalid_argument("config field '" + name + "' is not a number");
  }
  int64_t integer(const std::string& name) const {
    const auto& v = raw(name);
    if (auto* i = std::get_if<int64_t>(&v)) return *i;
    throw std::invalid_argument("config field '" + name + "' is not an integer");
  }
  // integer(name), or std::invalid_argument "name must be in [lo, hi]<why>, got v": the one way a
  // task bounds an integer kwarg before it computes sizes or loops from it.
  int64_t integer_in(const std::string& name, int64_t lo, int64_t hi, const std::string& why = "") const {
    const int64_t v = integer(name);
    if (v < lo || v > hi)
      throw std::invalid_argument(name + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]" + why +
                                  ", got " + std::to_string(v));
    return v;
  }
  // real(name), or std::invalid_argument "name must be in [lo, hi]<why>, got v" (NaN is never in).
  double real_in(const std::string& name, double lo, double hi, const std::string& why = "") const {
    const double v = real(name);
    if (!(v >= lo && v <= hi))
      throw std::invalid_argument(name + " must be in [" + format_real(lo) + ", " + format_real(hi) + "]" + why +
                                  ", got " + format_real(v));
    return v;
  }
  // A number as Python prints it for messages (inf, nan, 0.5, 1e+300).
  static std::string format_real(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v);  // the shortest form that reads back as v
    return std::string(buf, r.ptr);
  }
  bool flag(const std::string& name) const {
    const auto& v = raw(name);
    if (auto* b = std::get_if<bool>(&v)) return *b;
    throw std::invalid_argument("config field '" + name + "' is not a bool");
  }
  const std::string& text(const std::string& name) const {
    const auto& v = raw(name);
    if (auto* s = std::get_if<std::string>(&v)) return *s;
    throw std::invalid_argument("config field '" + name + "' is not a string");
  }
  const std::vector<double>& reals(const std::string& name) const {
    const auto& v = raw(name);
    if (auto* s = std::get_if<std::vector<double>>(&v)) return *s;
    throw std::invalid_argument("config field '" + name + "' is not a list of numbers");
  }
  const ConfigTable& table(const std::string& name) const {
    const auto& v = raw(name);
    if (auto* t = std::get_if<ConfigTable>(&v)) return *t;
    throw std::invalid_argument("config field '" + name + "' is not a dict of numbers");
  }
  const std::map<std::string, ConfigValue>& values() const { return values_; }

 private:
  std::map<std::string, ConfigValue> values_;
};

// Bytes per pixel of a frame (RGB) and of a render image (RGBA).
inline constexpr int64_t kRgbChannels = 3, kRgbaChannels = 4;

// What a task's renderer draws for render_mode="rgb_array" (Env::render): frames of height x
// width x 3 uint8, rows top first, played back at `fps` frames per second (Gymnasium's
// metadata["render_fps"]). height == width == 0: the task has no renderer.
struct RenderSpec {
  int64_t height = 0, width = 0;
  int64_t fps = 0;
  // The most pool threads that render at once (0: every thread). A renderer whose per-thread state
  // is heavy (a GL context, uploaded meshes: tens of MiB and ~0.5 s to make) declares a few.
  int64_t threads = 0;

  bool available() const { return height > 0 && width > 0; }
  size_t frame_bytes() const { return static_cast<size_t>(height) * static_cast<size_t>(width) * kRgbChannels; }
};

// The largest frame side validate_spaces accepts.
inline constexpr int64_t kMaxRenderSide = 16384;

// One agent of a multi-agent task (csrc/core/multi_agent.h): its name (PettingZoo's agent id), its
// observation (any space) and its action (one Box or Discrete leaf).
struct AgentSpec {
  std::string name;
  SpaceSpec observation;
  SpaceSpec action;
};

// What a task exposes once its config is known.
struct Spaces {
  SpaceSpec observation;
  SpaceSpec action;
  std::vector<InfoSpec> infos;
  RenderSpec render = {};  // none unless the task renders
  // A multi-agent task's agents, in order (multi_agent_spaces builds observation, action and the
  // first infos from them); empty: a single-agent task.
  std::vector<AgentSpec> agents = {};
};

// The most info fields a task may declare (write_row hands an env one pointer per field from a
// fixed array). validate_spaces enforces it wherever a task's spaces are resolved.
inline constexpr size_t kMaxInfoFields = 64;
// Info keys every batch carries; a task may not declare them.
inline constexpr const char* kPoolInfoNames[] = {"env_id", "elapsed_step"};
// The first info fields of every multi-agent task, in this order, each of shape [n_agents]
// (multi_agent_spaces declares them; a single-agent task may not): float64, bool, bool, bool.
inline constexpr const char* kAgentInfoNames[] = {"agent_reward", "agent_terminated", "agent_truncated", "agent_live"};

// A task's declarations are wrong (not its config's values): thrown by validate_spaces.
struct InvalidDeclaration : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
// Spaces over kMaxSpaceBytes (what kwargs made them, usually): TaskDef::resolve_spaces adds the
// kwargs that differ from their defaults to the message.
struct SpaceTooLarge : InvalidDeclaration {
  using InvalidDeclaration::InvalidDeclaration;
};

// Throws InvalidDeclaration naming `task` when its spaces cannot be served: too many or
// duplicate info fields, a reserved info name, a bad shape or bounds, an empty Discrete, a frame
// size outside [1, kMaxRenderSide] (or only one side set), a negative fps or thread count.
void validate_spaces(const Spaces& spaces, const std::string& task);

}  // namespace envhive
