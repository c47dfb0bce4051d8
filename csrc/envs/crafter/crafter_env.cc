#include "crafter_env.h"

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

#include "python_hash.h"

namespace envhive::crafter {

namespace {

// The largest map side and image side accepted (a map of 4096 x 4096 cells is 16M cells).
constexpr int64_t kMaxArea = 4096, kMaxSize = 4096;

std::array<int, 2> pair_of(const Config& c, const std::string& name, int64_t lo, int64_t hi) {
  const std::vector<double>& v = c.reals(name);
  if (v.size() != 2)
    throw std::invalid_argument("crafter: " + name + " must be two integers (x, y), got " + std::to_string(v.size()) +
                                " values");
  std::array<int, 2> out{};
  for (int i = 0; i < 2; ++i) {
    if (!std::isfinite(v[i]) || v[i] != std::floor(v[i]) || v[i] < static_cast<double>(lo) ||
        v[i] > static_cast<double>(hi))
      throw std::invalid_argument("crafter: " + name + " must be integers in [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "], got " + std::to_string(v[i]));
    out[i] = static_cast<int>(v[i]);
  }
  return out;
}

}  // namespace

std::vector<ConfigField> CrafterEnv::config(const std::shared_ptr<const TextureLoader>&, bool) {
  return {
      {"area", std::vector<double>{64, 64}, "The world's size in cells (x, y)."},
      {"view", std::vector<double>{9, 9}, "The cells the image shows (x, y); the bottom rows show the inventory."},
      {"size", std::vector<double>{64, 64}, "The image's size in pixels (x, y): observations are (y, x, 3)."},
      {"length", int64_t{10000}, "The episode's length in steps (crafter's own clock, a truncation); 0: none."},
  };
}

CrafterEnv::Shape CrafterEnv::shape_of(const Config& c) {
  const auto area = pair_of(c, "area", 1, kMaxArea);
  const auto view = pair_of(c, "view", 1, 1024);
  const auto size = pair_of(c, "size", 1, kMaxSize);
  const int rows = Renderer::item_rows(view[0]);
  if (view[1] <= rows)
    throw std::invalid_argument("crafter: view[1] must exceed the " + std::to_string(rows) +
                                " inventory rows a view " + std::to_string(view[0]) + " cells wide needs");
  if (size[0] / view[0] < 2 || size[1] / view[1] < 2)
    throw std::invalid_argument("crafter: size must give each view cell at least 2 x 2 pixels (size // view >= 2)");
  const int64_t length = c.integer("length");
  if (length < 0) throw std::invalid_argument("crafter: length must be >= 0 (0: no limit)");
  return {area[0], area[1], view[0], view[1], size[0], size[1], length};
}

Spaces CrafterEnv::spaces(const Config& c, const std::shared_ptr<const TextureLoader>&, bool) {
  const Shape s = shape_of(c);
  Spaces sp{SpaceSpec::box(DType::kUInt8, {s.size_y, s.size_x, 3}, {0.0}, {255.0}),
            SpaceSpec::discrete(kNumActions),
            {{"achievements", DType::kInt32, {kNumAchievements}},
             {"inventory", DType::kInt32, {kNumItems}},
             {"discount", DType::kFloat64, {}},
             {"player_pos", DType::kInt64, {2}},
             {"reward", DType::kFloat64, {}}}};
  sp.render = {s.size_y, s.size_x, 30};
  return sp;
}

CrafterEnv::CrafterEnv(const Config& c, int, const std::shared_ptr<const TextureLoader>& textures, bool reward)
    : textures_(textures->get()),
      reward_enabled_(reward),
      shape_(shape_of(c)),
      game_(shape_.area_x, shape_.area_y, 2 * std::max(shape_.view_x, shape_.view_y)),
      renderer_(*textures_, shape_.size_x, shape_.size_y, shape_.view_x, shape_.view_y),
      frame_(static_cast<size_t>(shape_.size_x) * shape_.size_y * 3) {}

void CrafterEnv::seed(uint64_t s) {
  seed_ = s;
  episode_ = 0;
}

void CrafterEnv::seed_from_os() {
  std::random_device rd;
  seed(((static_cast<uint64_t>(rd()) << 32) | rd()) % ((uint64_t{1} << 31) - 1));
}

void CrafterEnv::reset() {
  ++episode_;
  game_.reset(episode_world_seed(seed_, episode_));
  last_health_ = game_.health();
  unlocked_.fill(false);
  raw_reward_ = 0;
  dead_ = false;
  renderer_.draw(game_, frame_.data());
}

StepResult CrafterEnv::step(const void* action) {
  const int64_t a = *static_cast<const int64_t*>(action);
  if (a < 0 || a >= kNumActions)
    throw std::invalid_argument("crafter: action " + std::to_string(a) + " is not in [0, 17)");
  game_.step(static_cast<int>(a));
  renderer_.draw(game_, frame_.data());
  double reward = static_cast<double>(game_.health() - last_health_) / 10;
  last_health_ = game_.health();
  bool unlocked = false;
  for (int i = 0; i < kNumAchievements; ++i)
    if (game_.player.achievements[i] > 0 && !unlocked_[i]) unlocked_[i] = unlocked = true;
  if (unlocked) reward += 1.0;
  raw_reward_ = reward;
  dead_ = game_.health() <= 0;
  const bool over = shape_.length > 0 && game_.steps >= shape_.length;
  return {reward_enabled_ ? reward : 0.0, dead_, over};
}

void CrafterEnv::write_obs(void* dst) const { std::memcpy(dst, frame_.data(), frame_.size()); }

void CrafterEnv::write_info(void* const* dst) const {
  auto* achievements = static_cast<int32_t*>(dst[0]);
  for (int i = 0; i < kNumAchievements; ++i) achievements[i] = game_.player.achievements[i];
  auto* inventory = static_cast<int32_t*>(dst[1]);
  for (int i = 0; i < kNumItems; ++i) inventory[i] = game_.player.inventory[i];
  *static_cast<double*>(dst[2]) = dead_ ? 0.0 : 1.0;
  auto* pos = static_cast<int64_t*>(dst[3]);
  pos[0] = game_.player_pos().x;
  pos[1] = game_.player_pos().y;
  *static_cast<double*>(dst[4]) = raw_reward_;
}

// crafter's render() draws the observation again, which at night draws noise from the world's
// generator; envhive's frame is the last observation, so rendering never changes an episode.
void CrafterEnv::render(uint8_t* rgb, RenderSlot&) { std::memcpy(rgb, frame_.data(), frame_.size()); }

}  // namespace envhive::crafter
