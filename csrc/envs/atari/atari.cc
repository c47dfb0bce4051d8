#include "atari.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "atari_env.h"

#include <ale/emucore/MD5.hxx>

namespace envhive {
namespace {

using atari::AtariConfig;
using atari::AtariEnv;
using atari::RomInfo;
using atari::RomPtr;

constexpr int kMaxImageSide = 4096;

// ale-py's rom_id_to_name: str.title() without the underscores (tic_tac_toe_3d -> TicTacToe3D).
std::string task_name(const std::string& rom) {
  std::string out;
  bool prev_letter = false;
  for (char ch : rom) {
    const bool letter = std::isalpha(static_cast<unsigned char>(ch)) != 0;
    if (letter) out += static_cast<char>(prev_letter ? std::tolower(ch) : std::toupper(ch));
    else if (ch != '_') out += ch;
    prev_letter = letter;
  }
  return out;
}

std::string join(const std::vector<int>& v) {
  std::ostringstream s;
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  return s.str();
}

// Reads a ROM and asks ALE whether it knows it (by MD5), without emulating anything. Unknown
// files are skipped: ALE would exit the process when asked to load them.
std::shared_ptr<const RomInfo> inspect_rom(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (!f.good() && !f.eof()) return nullptr;
  const std::string md5 = ale::stella::MD5(bytes.data(), static_cast<uint32_t>(bytes.size()));
  std::unique_ptr<ale::RomSettings> settings(ale::buildRomRLWrapper(path, md5));
  if (!settings || settings->md5() != md5) return nullptr;
  auto info = std::make_shared<RomInfo>();
  info->game = path.stem().string();
  info->task_id = task_name(info->game) + "-v5";
  info->path = path.string();
  for (auto a : settings->getMinimalActionSet()) info->minimal_actions.push_back(static_cast<int>(a));
  for (auto m : settings->getAvailableModes()) info->modes.push_back(static_cast<int>(m));
  for (auto d : settings->getAvailableDifficulties()) info->difficulties.push_back(static_cast<int>(d));
  info->default_mode = static_cast<int>(settings->getDefaultMode());
  return info;
}

std::vector<ConfigField> config_fields() {
  return {
      {"frame_skip", int64_t{4}, "Emulator frames per step; the action repeats and rewards add up."},
      {"img_height", int64_t{84}, "Observation height (the 210-row screen is resized as cv2.resize does)."},
      {"img_width", int64_t{84}, "Observation width (from 160 columns)."},
      {"gray_scale", true, "Gray observations (ALE's luminance); False gives RGB, 3 channels per frame."},
      {"stack_num", int64_t{4}, "Frames stacked along the first axis, oldest first."},
      {"noop_max", int64_t{30},
       "Reset plays uniform{1..noop_max} NOOP frames (counting FIRE, see use_fire_reset); 0: none."},
      {"episodic_life", false,
       "A lost life terminates the episode; the next reset continues the same game (DQN's trick)."},
      {"zero_discount_on_life_loss", false,
       "Adds info['discount']: 0.0 on a step that lost a life or ended the game, else 1.0."},
      {"reward_clip", false, "Reward is the sign of the frame-skip reward; info['reward'] keeps the raw one."},
      {"repeat_action_probability", 0.0,
       "ALE's sticky actions: each frame repeats the previous action with this probability (0.25 is ALE v5)."},
      {"full_action_space", false, "All 18 joystick actions instead of the game's minimal set."},
      {"use_fire_reset", true, "Press FIRE once at reset (after the no-ops) in games that have FIRE."},
      {"use_inter_area_resize", true, "Resize with cv2.INTER_AREA (True) or cv2.INTER_LINEAR (False), bit for bit."},
      {"mode", int64_t{-1}, "Game mode (ALE setMode); -1: the ROM's default."},
      {"difficulty", int64_t{-1}, "Game difficulty (ALE setDifficulty); -1: the ROM's default."},
      {"ram", false, "Adds info['ram']: the console's 128 bytes of RAM after the step."},
  };
}

int checked_int(const Config& c, const char* name, int64_t lo, int64_t hi, const std::string& task) {
  const int64_t v = c.integer(name);
  if (v < lo || v > hi) {
    std::ostringstream msg;
    msg << task << ": " << name << " must be in [" << lo << ", " << hi << "], got " << v;
    throw std::invalid_argument(msg.str());
  }
  return static_cast<int>(v);
}

}  // namespace

namespace atari {

AtariConfig resolve_config(const Config& c, const RomInfo& rom) {
  const std::string& task = rom.task_id;
  AtariConfig a;
  a.frame_skip = checked_int(c, "frame_skip", 1, 1 << 20, task);
  a.img_height = checked_int(c, "img_height", 1, kMaxImageSide, task);
  a.img_width = checked_int(c, "img_width", 1, kMaxImageSide, task);
  a.stack_num = checked_int(c, "stack_num", 1, 1024, task);
  a.noop_max = checked_int(c, "noop_max", 0, 1 << 20, task);
  a.gray_scale = c.flag("gray_scale");
  a.episodic_life = c.flag("episodic_life");
  a.zero_discount_on_life_loss = c.flag("zero_discount_on_life_loss");
  a.reward_clip = c.flag("reward_clip");
  a.full_action_space = c.flag("full_action_space");
  a.use_fire_reset = c.flag("use_fire_reset");
  a.use_inter_area_resize = c.flag("use_inter_area_resize");
  a.ram = c.flag("ram");
  a.repeat_action_probability = c.real("repeat_action_probability");
  if (!(a.repeat_action_probability >= 0.0 && a.repeat_action_probability <= 1.0))
    throw std::invalid_argument(task + ": repeat_action_probability must be in [0, 1], got " +
                                std::to_string(a.repeat_action_probability));
  a.max_episode_steps = c.integer("max_episode_steps");
  a.mode = static_cast<int>(std::clamp<int64_t>(c.integer("mode"), -2, 1 << 20));
  if (a.mode != -1 && std::find(rom.modes.begin(), rom.modes.end(), a.mode) == rom.modes.end())
    throw std::invalid_argument(task + ": mode " + std::to_string(c.integer("mode")) +
                                " is not available; modes: " + join(rom.modes) + " (-1: the default, " +
                                std::to_string(rom.default_mode) + ")");
  a.difficulty = static_cast<int>(std::clamp<int64_t>(c.integer("difficulty"), -2, 1 << 20));
  if (a.difficulty != -1 &&
      std::find(rom.difficulties.begin(), rom.difficulties.end(), a.difficulty) == rom.difficulties.end())
    throw std::invalid_argument(task + ": difficulty " + std::to_string(c.integer("difficulty")) +
                                " is not available; difficulties: " + join(rom.difficulties) + " (-1: the default)");
  // A stacked observation must fit the pool's 32-bit row arithmetic comfortably.
  const double obs_bytes = static_cast<double>(a.stack_num) * a.channels() * a.img_height * a.img_width;
  if (obs_bytes > 256.0 * 1024 * 1024)
    throw std::invalid_argument(task + ": observation of " + std::to_string(static_cast<int64_t>(obs_bytes)) +
                                " bytes per env is too large");
  return a;
}

}  // namespace atari

namespace {

Spaces atari_spaces(const AtariConfig& a, const RomInfo& rom) {
  Spaces s;
  s.observation = SpaceSpec::box(DType::kUInt8, {int64_t{a.stack_num} * a.channels(), a.img_height, a.img_width},
                                 {0.0}, {255.0});
  s.action = SpaceSpec::discrete(a.full_action_space ? 18 : static_cast<int64_t>(rom.minimal_actions.size()));
  s.infos = {{"lives", DType::kInt32, {}}, {"reward", DType::kFloat64, {}}, {"terminated", DType::kBool, {}}};
  if (a.zero_discount_on_life_loss) s.infos.push_back({"discount", DType::kFloat32, {}});
  if (a.ram) s.infos.push_back({"ram", DType::kUInt8, {atari::kRamBytes}});
  // render(): ALE's RGB screen, as Gymnasium's ALE envs render it (30 fps is their render_fps).
  s.render = {.height = atari::kScreenHeight, .width = atari::kScreenWidth, .fps = 30};
  return s;
}

}  // namespace

namespace atari {

std::vector<ConfigField> AtariEnv::config(const RomPtr& /*rom*/) { return config_fields(); }
Spaces AtariEnv::spaces(const Config& c, const RomPtr& rom) { return atari_spaces(resolve_config(c, *rom), *rom); }

}  // namespace atari

void register_atari(TaskRegistry& registry, const FamilyData& data) {
  const char* env_dir = std::getenv("ALE_ROMS_DIR");
  const std::string rom_dir = env_dir != nullptr && *env_dir != 0 ? std::string(env_dir) : data.value("rom_dir");
  if (!std::filesystem::is_directory(rom_dir))
    throw std::runtime_error("ale-py has no ROM folder at " + rom_dir +
                             "; reinstall it: pip install --force-reinstall ale-py==" ENVHIVE_ALE_VERSION);
  ale::Logger::setMode(ale::Logger::Error);  // ALE greets on every construction otherwise
  std::vector<std::filesystem::path> roms;
  for (const auto& entry : std::filesystem::directory_iterator(rom_dir))
    if (entry.is_regular_file() && entry.path().extension() == ".bin") roms.push_back(entry.path());
  std::sort(roms.begin(), roms.end());
  for (const auto& path : roms) {
    RomPtr rom = inspect_rom(path);
    if (!rom) continue;
    register_task<AtariEnv>(registry,
                            {.id = rom->task_id,
                             .family = "atari",
                             .doc = "Atari 2600 " + task_name(rom->game) + " on ALE " ENVHIVE_ALE_VERSION " (ROM " +
                                    rom->game +
                                    ".bin), with EnvPool's preprocessing: frame skip with max-pooling, 84x84 gray, "
                                    "4 stacked frames, no-op and FIRE resets.",
                             .max_episode_steps = 27000},
                            rom);
  }
}

}  // namespace envhive
