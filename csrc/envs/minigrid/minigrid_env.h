// minigrid.minigrid_env.MiniGridEnv: the grid, its objects, the agent, the step every task
// shares, the agent's view with its visibility mask (gen_obs_grid), observation encodings
// (minigrid's `image`, and the wrappers users apply: FullyObs, RGBImg, RGBImgPartial, FlatObs)
// and frames. Tasks derive from it, write gen_grid() (minigrid's _gen_grid) and, where minigrid
// overrides step(), act(). Random draws go through the env's numpy generator in minigrid's order
// (_rand_int is Generator.integers, ...), so a seed gives minigrid's grid and mission.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../core/task.h"
#include "grid.h"
#include "world.h"

namespace envhive::minigrid {

// minigrid's Actions.
enum Action : int { kLeft = 0, kRight, kForward, kPickup, kDrop, kToggle, kDone };

// What a task's parameters fix beyond the common kwargs: the grid's size, the number of actions,
// and the longest mission it can state (the mission text's size).
struct Layout {
  int width = 0, height = 0;
  int num_actions = 7;
  int mission_length = 64;
  // BabyAI: max_episode_steps 0 (its default) lets each episode set its own budget.
  bool episode_budget = false;
};

// minigrid raises RecursionError when rejection sampling gives up (place_obj, connect_all, ...);
// BabyAI's levels catch it and generate again.
struct RecursionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Which image the observation carries: minigrid's partial view, or a wrapper's.
enum class ImageKind : uint8_t { kPartial, kFull, kRgb, kRgbPartial };

class MiniGridEnv : public Env {
 public:
  static constexpr int64_t kDefaultTileSize = 32;

  // The kwargs every task has (minigrid's constructor arguments and the wrappers' options).
  static std::vector<ConfigField> common_config();
  static Spaces common_spaces(const Config& c, const Layout& layout);
  template <class Params>
  static std::vector<ConfigField> config(const Params&) {
    return common_config();
  }
  template <class Params>
  static Spaces spaces(const Config& c, const Params& p) {
    return common_spaces(c, p.layout());
  }

  MiniGridEnv(const Config& c, const Layout& layout, bool see_through_walls);

  void reset() final;
  StepResult step(const void* action) final;
  // minigrid's observation, a Dict (direction, image, mission: gymnasium's Dict sorts its keys),
  // or with img_obs / flat_obs one Box.
  void write_obs_leaves(void* const* dst) const override;
  void write_obs(void* dst) const override;
  void render(uint8_t* rgb, RenderSlot& slot) override;

 protected:
  // _gen_grid: build the grid, place the agent and set the mission.
  virtual void gen_grid() = 0;
  // After gen_grid and minigrid's own reset bookkeeping (BabyAI: the verifier, the time budget).
  virtual void after_reset() {}
  // A task's step(): by default minigrid's; tasks that override step() call base_step().
  virtual StepResult act(int action) { return base_step(action); }
  StepResult base_step(int action);

  // -- the state minigrid keeps
  Grid grid_;
  std::vector<WorldObj> objs_;  // this episode's objects; ids index it
  Pos agent_pos_{-1, -1};
  int agent_dir_ = -1;
  ObjId carrying_ = kNone;
  int64_t step_count_ = 0;
  int64_t max_steps_;  // minigrid's max_steps: the reward's scale (the pool truncates at it)
  std::string mission_;
  int width_, height_;

  // -- objects
  ObjId add(Type type, Color color);  // a new object in this episode's arena
  ObjId new_door(Color color, bool is_open = false, bool is_locked = false);
  ObjId wall();  // the grey wall every wall cell shares (walls have no identity minigrid uses)
  WorldObj& obj(ObjId id) { return objs_[static_cast<size_t>(id)]; }
  const WorldObj& obj(ObjId id) const { return objs_[static_cast<size_t>(id)]; }
  const WorldObj* cell(Pos p) const {
    const ObjId id = grid_.get(p);
    return id == kNone ? nullptr : &objs_[static_cast<size_t>(id)];
  }
  void new_grid(int width, int height);  // self.grid = Grid(width, height), with a fresh arena

  // -- minigrid's random helpers (np_random draws)
  int rand_int(int low, int high) { return static_cast<int>(rng().integers(low, high)); }
  double rand_float(double low, double high) { return rng().uniform(low, high); }
  bool rand_bool() { return rng().integers(0, 2) == 0; }
  template <class T>
  const T& rand_elem(const std::vector<T>& items) {
    return items[static_cast<size_t>(rand_int(0, static_cast<int>(items.size())))];
  }
  template <class T, size_t N>
  const T& rand_elem(const std::array<T, N>& items) {
    return items[static_cast<size_t>(rand_int(0, static_cast<int>(N)))];
  }
  template <class T>
  std::vector<T> rand_subset(std::vector<T> items, size_t n) {
    std::vector<T> out;
    while (out.size() < n) {
      const size_t k = static_cast<size_t>(rand_int(0, static_cast<int>(items.size())));
      out.push_back(items[k]);
      items.erase(items.begin() + static_cast<std::ptrdiff_t>(k));  // lst.remove(elem): elements are distinct
    }
    return out;
  }
  Color rand_color() { return rand_elem(kColorNames); }
  Pos rand_pos(int x_low, int x_high, int y_low, int y_high) {
    const int x = rand_int(x_low, x_high);
    return {x, rand_int(y_low, y_high)};
  }

  // -- placement (place_obj, put_obj, place_agent)
  static constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();
  struct NoReject {
    bool operator()(Pos) const { return false; }
  };
  template <class Reject = NoReject>
  Pos place_obj(ObjId id, Pos top = {0, 0}, Pos size = {-1, -1}, Reject reject = {}, int64_t max_tries = kNoLimit);
  void put_obj(ObjId id, int x, int y);
  Pos place_agent(Pos top = {0, 0}, Pos size = {-1, -1}, bool rand_dir = true, int64_t max_tries = kNoLimit);

  Pos front_pos() const { return agent_pos_ + kDirVec[agent_dir_]; }
  // _reward(): 1 - 0.9 * (step_count / max_steps)
  double success_reward() const {
    return 1 - 0.9 * (static_cast<double>(step_count_) / static_cast<double>(max_steps_));
  }
  // The step() of the tasks that end when the agent picks `target` up (`carrying == self.obj`).
  StepResult pickup_step(int action, ObjId target) {
    StepResult r = base_step(action);
    if (action == kPickup && carrying_ != kNone && carrying_ == target) {
      r.reward = success_reward();
      r.terminated = true;
    }
    return r;
  }

  // The observation's partial image, computed now (BabyAI's PutNext Carrying levels keep the one
  // reset() returned, which minigrid computes before the level hands the agent its object).
  void hold_reset_image();

 private:
  // gen_obs_grid(): the view's cells ([vx][vy]; kOutside: beyond the grid) and visibility.
  static constexpr ObjId kOutside = -2;
  void gen_view(std::vector<ObjId>& cells, std::vector<uint8_t>& visible) const;
  void write_partial(uint8_t* out) const;
  void write_full(uint8_t* out) const;
  void draw_full(uint8_t* out, int tile_size, bool highlight) const;
  void draw_pov(uint8_t* out, int tile_size) const;
  void write_image(uint8_t* out) const;  // obs["image"], as the wrappers in use make it
  void write_flat_mission(uint8_t* out) const;
  int tile_code_at(ObjId id) const;

  bool see_through_walls_;
  int view_size_;
  bool highlight_;
  int tile_size_;
  bool agent_pov_;
  ImageKind image_;
  int rgb_tile_size_;
  bool img_obs_, flat_;
  int flat_max_str_len_;
  size_t mission_bytes_;
  int num_actions_;
  size_t image_bytes_;
  ObjId wall_ = kNone;
  bool reset_image_held_ = false;
  std::vector<uint8_t> reset_image_;
  // Scratch of the observation and frame writers (one thread at a time uses an env).
  mutable std::vector<ObjId> view_cells_;
  mutable std::vector<uint8_t> view_visible_;
  mutable std::vector<uint8_t> view_opaque_;
  mutable std::vector<uint8_t> lit_cells_;
};

template <class Reject>
Pos MiniGridEnv::place_obj(ObjId id, Pos top, Pos size, Reject reject, int64_t max_tries) {
  top = {std::max(top.x, 0), std::max(top.y, 0)};
  if (size.x < 0) size = {grid_.width(), grid_.height()};
  int64_t num_tries = 0;
  Pos pos;
  for (;;) {
    if (num_tries > max_tries) throw RecursionError("rejection sampling failed in place_obj");
    ++num_tries;
    pos.x = rand_int(top.x, std::min(top.x + size.x, grid_.width()));
    pos.y = rand_int(top.y, std::min(top.y + size.y, grid_.height()));
    if (grid_.get(pos) != kNone) continue;
    if (pos == agent_pos_) continue;
    if (reject(pos)) continue;
    break;
  }
  grid_.set(pos, id);
  if (id != kNone) {
    WorldObj& o = obj(id);
    o.init_pos = o.cur_pos = pos;
  }
  return pos;
}

}  // namespace envhive::minigrid
