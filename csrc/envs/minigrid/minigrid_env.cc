#include "minigrid_env.h"

#include <algorithm>
#include <cstring>

#include "tiles.h"

namespace envhive::minigrid {

namespace {
constexpr int kFlatCharCodes = 28;  // FlatObsWrapper.numCharCodes: a-z, space, comma
// Every character a minigrid or BabyAI mission uses.
constexpr const char* kMissionCharset = "abcdefghijklmnopqrstuvwxyz ,";
constexpr int64_t kRenderFps = 10;  // MiniGridEnv.metadata["render_fps"]

// Pixels per cell: at most the largest frame side, so image sizes are computed without overflow
// (validate_spaces then bounds the whole image).
int64_t tile_pixels(const Config& c, const char* name) {
  return c.integer_in(name, 1, kMaxRenderSide, " (pixels per cell)");
}

// FlatObsWrapper's maxStrLen: its one-hot codes alone fit envhive's limit on an observation.
int64_t flat_chars(const Config& c) {
  return c.integer_in("flat_max_str_len", 1, static_cast<int64_t>(kMaxSpaceBytes) / kFlatCharCodes,
                      " (28 one-hot bytes a character; an observation is at most 1 GiB)");
}

ImageKind image_kind(const Config& c) {
  const bool full = c.flag("fully_obs"), rgb = c.flag("rgb_img_obs"), rgb_partial = c.flag("rgb_img_partial_obs");
  if (int(full) + int(rgb) + int(rgb_partial) > 1)
    throw std::invalid_argument(
        "fully_obs, rgb_img_obs and rgb_img_partial_obs each replace the image: set at most one of them");
  return full ? ImageKind::kFull : rgb ? ImageKind::kRgb : rgb_partial ? ImageKind::kRgbPartial : ImageKind::kPartial;
}

int view_size(const Config& c) {
  const int64_t s = c.integer("agent_view_size");
  if (s < 3 || s % 2 == 0)
    throw std::invalid_argument("agent_view_size must be odd and >= 3 (minigrid's view is centred on the agent), got " +
                                std::to_string(s));
  if (s > 101) throw std::invalid_argument("agent_view_size must be at most 101, got " + std::to_string(s));
  return static_cast<int>(s);
}

// The image's shape (numpy's: width-major for encodings, rows-first for RGB frames).
std::vector<int64_t> image_shape(const Config& c, const Layout& layout) {
  const int64_t s = view_size(c), ts = tile_pixels(c, "rgb_tile_size");
  switch (image_kind(c)) {
    case ImageKind::kFull: return {layout.width, layout.height, 3};
    case ImageKind::kRgb: return {layout.height * ts, layout.width * ts, 3};
    case ImageKind::kRgbPartial: return {s * ts, s * ts, 3};
    case ImageKind::kPartial: break;
  }
  return {s, s, 3};
}
}  // namespace

std::vector<ConfigField> MiniGridEnv::common_config() {
  return {
      {"agent_view_size", int64_t{7}, "Cells on a side of the agent's square view (odd, >= 3)."},
      {"highlight", true, "Frames (and rgb_img_obs images) highlight the cells the agent sees."},
      {"tile_size", kDefaultTileSize, "Pixels per cell of rendered frames."},
      {"agent_pov", false, "Frames show the agent's view instead of the whole grid."},
      {"fully_obs", false, "FullyObsWrapper: the image encodes the whole grid, the agent as (10, 0, direction)."},
      {"rgb_img_obs", false, "RGBImgObsWrapper: the image is a frame of the whole grid (rgb_tile_size per cell)."},
      {"rgb_img_partial_obs", false, "RGBImgPartialObsWrapper: the image is a frame of the agent's view."},
      {"rgb_tile_size", int64_t{8}, "tile_size of the RGB wrappers."},
      {"img_obs", false, "ImgObsWrapper: the observation is the image alone (a Box)."},
      {"flat_obs", false,
       "FlatObsWrapper: one Box, the image flattened, then the mission one-hot (28 codes per character)."},
      {"flat_max_str_len", int64_t{96}, "maxStrLen of FlatObsWrapper."},
  };
}

Spaces MiniGridEnv::common_spaces(const Config& c, const Layout& layout) {
  if (!layout.episode_budget && c.integer("max_episode_steps") < 1)
    throw std::invalid_argument("max_episode_steps must be >= 1: it is minigrid's max_steps, which scales the reward");
  if (c.integer("max_episode_steps") < 0) throw std::invalid_argument("max_episode_steps must be >= 0");
  std::vector<int64_t> shape = image_shape(c, layout);
  Spaces s;
  if (c.flag("flat_obs") && c.flag("img_obs"))
    throw std::invalid_argument("img_obs and flat_obs each make the observation one Box: set at most one of them");
  if (c.flag("flat_obs")) {
    const int64_t image = shape[0] * shape[1] * shape[2];
    s.observation = SpaceSpec::box(DType::kUInt8, {image + kFlatCharCodes * flat_chars(c)}, {0}, {255});
  } else if (c.flag("img_obs")) {
    s.observation = SpaceSpec::box(DType::kUInt8, std::move(shape), {0}, {255});
  } else {
    s.observation = SpaceSpec::dict({
        {"direction", SpaceSpec::discrete(4)},
        {"image", SpaceSpec::box(DType::kUInt8, std::move(shape), {0}, {255})},
        {"mission", SpaceSpec::text(layout.mission_length, 0, kMissionCharset)},
    });
  }
  s.action = SpaceSpec::discrete(layout.num_actions);
  const int64_t ts = tile_pixels(c, "tile_size");
  if (c.flag("agent_pov")) {
    const int64_t side = view_size(c) * ts;
    s.render = {.height = side, .width = side, .fps = kRenderFps};
  } else {
    s.render = {.height = layout.height * ts, .width = layout.width * ts, .fps = kRenderFps};
  }
  return s;
}

MiniGridEnv::MiniGridEnv(const Config& c, const Layout& layout, bool see_through_walls)
    : max_steps_(c.integer("max_episode_steps")),
      width_(layout.width),
      height_(layout.height),
      see_through_walls_(see_through_walls),
      view_size_(view_size(c)),
      highlight_(c.flag("highlight")),
      tile_size_(static_cast<int>(tile_pixels(c, "tile_size"))),
      agent_pov_(c.flag("agent_pov")),
      image_(image_kind(c)),
      rgb_tile_size_(static_cast<int>(tile_pixels(c, "rgb_tile_size"))),
      img_obs_(c.flag("img_obs")),
      flat_(c.flag("flat_obs")),
      flat_max_str_len_(static_cast<int>(flat_chars(c))),
      mission_bytes_(static_cast<size_t>(layout.mission_length)),
      num_actions_(layout.num_actions) {
  const auto shape = image_shape(c, layout);
  image_bytes_ = static_cast<size_t>(shape[0] * shape[1] * shape[2]);
  grid_.resize(width_, height_);
}

void MiniGridEnv::new_grid(int width, int height) {
  grid_.resize(width, height);
  objs_.clear();
  wall_ = kNone;
  carrying_ = kNone;
}

ObjId MiniGridEnv::add(Type type, Color color) {
  if (objs_.size() >= static_cast<size_t>(std::numeric_limits<ObjId>::max()))
    throw std::length_error("too many objects in one minigrid episode");
  WorldObj o;
  o.type = type;
  o.color = color;
  objs_.push_back(o);
  return static_cast<ObjId>(objs_.size() - 1);
}

ObjId MiniGridEnv::new_door(Color color, bool is_open, bool is_locked) {
  const ObjId id = add(Type::kDoor, color);
  obj(id).is_open = is_open;
  obj(id).is_locked = is_locked;
  return id;
}

ObjId MiniGridEnv::wall() {
  if (wall_ == kNone) wall_ = add(Type::kWall, Color::kGrey);
  return wall_;
}

void MiniGridEnv::put_obj(ObjId id, int x, int y) {
  grid_.set(x, y, id);
  WorldObj& o = obj(id);
  o.init_pos = o.cur_pos = {x, y};
}

Pos MiniGridEnv::place_agent(Pos top, Pos size, bool rand_dir, int64_t max_tries) {
  agent_pos_ = {-1, -1};
  const Pos pos = place_obj(kNone, top, size, NoReject{}, max_tries);
  agent_pos_ = pos;
  if (rand_dir) agent_dir_ = rand_int(0, 4);
  return pos;
}

void MiniGridEnv::reset() {
  agent_pos_ = {-1, -1};
  agent_dir_ = -1;
  reset_image_held_ = false;
  gen_grid();
  if (agent_pos_.x < 0 || agent_pos_.y < 0 || agent_dir_ < 0 || agent_dir_ > 3)
    throw std::logic_error("minigrid: the level placed no agent");
  const WorldObj* start = cell(agent_pos_);
  if (start != nullptr && !start->can_overlap()) throw std::logic_error("minigrid: the agent starts on an object");
  carrying_ = kNone;
  step_count_ = 0;
  after_reset();
}

StepResult MiniGridEnv::step(const void* action) {
  int64_t a;
  std::memcpy(&a, action, sizeof(a));
  if (a < 0 || a >= num_actions_)
    throw std::out_of_range("action " + std::to_string(a) + " is not in Discrete(" + std::to_string(num_actions_) + ")");
  reset_image_held_ = false;
  return act(static_cast<int>(a));
}

StepResult MiniGridEnv::base_step(int action) {
  ++step_count_;
  StepResult r;
  const Pos fwd = front_pos();
  const ObjId fwd_id = grid_.get(fwd);
  WorldObj* fwd_cell = fwd_id == kNone ? nullptr : &obj(fwd_id);
  switch (action) {
    case kLeft:
      agent_dir_ = agent_dir_ == 0 ? 3 : agent_dir_ - 1;
      break;
    case kRight:
      agent_dir_ = (agent_dir_ + 1) % 4;
      break;
    case kForward:
      if (fwd_cell == nullptr || fwd_cell->can_overlap()) agent_pos_ = fwd;
      if (fwd_cell != nullptr && fwd_cell->type == Type::kGoal) {
        r.terminated = true;
        r.reward = success_reward();
      }
      if (fwd_cell != nullptr && fwd_cell->type == Type::kLava) r.terminated = true;
      break;
    case kPickup:
      if (fwd_cell != nullptr && fwd_cell->can_pickup() && carrying_ == kNone) {
        carrying_ = fwd_id;
        fwd_cell->cur_pos = {-1, -1};
        grid_.set(fwd, kNone);
      }
      break;
    case kDrop:
      if (fwd_cell == nullptr && carrying_ != kNone) {
        grid_.set(fwd, carrying_);
        obj(carrying_).cur_pos = fwd;
        carrying_ = kNone;
      }
      break;
    case kToggle:
      if (fwd_cell != nullptr) {
        if (fwd_cell->type == Type::kDoor) {  // Door.toggle
          if (fwd_cell->is_locked) {
            if (carrying_ != kNone && obj(carrying_).type == Type::kKey && obj(carrying_).color == fwd_cell->color) {
              fwd_cell->is_locked = false;
              fwd_cell->is_open = true;
            }
          } else {
            fwd_cell->is_open = !fwd_cell->is_open;
          }
        } else if (fwd_cell->type == Type::kBox) {  // Box.toggle: the box becomes what it holds
          grid_.set(fwd, fwd_cell->contains);
        }
      }
      break;
    default:
      break;  // done
  }
  return r;
}

// ------------------------------------------------------------------------------- observations

void MiniGridEnv::gen_view(std::vector<ObjId>& cells, std::vector<uint8_t>& visible) const {
  const int s = view_size_;
  const size_t n = static_cast<size_t>(s) * static_cast<size_t>(s);
  cells.resize(n);
  visible.resize(n);
  view_opaque_.resize(n);
  const Pos d = kDirVec[agent_dir_];
  const Pos r{-d.y, d.x};
  // get_view_coords inverted: view cell (vx, vy) is the world cell top + r * vx - d * vy, where
  // top = agent + d * (s - 1) - r * (s // 2); Grid.slice makes cells beyond the grid walls.
  const Pos top{agent_pos_.x + d.x * (s - 1) - r.x * (s / 2), agent_pos_.y + d.y * (s - 1) - r.y * (s / 2)};
  const Pos far{top.x + r.x * (s - 1) - d.x * (s - 1), top.y + r.y * (s - 1) - d.y * (s - 1)};
  const bool inside = grid_.inside(top) && grid_.inside(far);  // opposite corners of the square
  const ObjId* world = grid_.data();
  const int width = grid_.width();
  for (int vx = 0; vx < s; ++vx) {
    Pos w{top.x + r.x * vx, top.y + r.y * vx};
    for (int vy = 0; vy < s; ++vy, w.x -= d.x, w.y -= d.y) {
      const size_t k = static_cast<size_t>(vx * s + vy);
      const ObjId id = inside || grid_.inside(w) ? world[w.y * width + w.x] : kOutside;
      cells[k] = id;
      view_opaque_[k] = id == kOutside || (id != kNone && !objs_[static_cast<size_t>(id)].see_behind());
    }
  }
  if (see_through_walls_) {
    std::fill(visible.begin(), visible.end(), uint8_t{1});
    return;
  }
  // Grid.process_vis, from the agent's cell (s // 2, s - 1) upwards.
  std::fill(visible.begin(), visible.end(), uint8_t{0});
  uint8_t* vis = visible.data();
  const uint8_t* opaque = view_opaque_.data();
  auto at = [s](int i, int j) { return static_cast<size_t>(i * s + j); };
  vis[at(s / 2, s - 1)] = 1;
  for (int j = s - 1; j >= 0; --j) {
    for (int i = 0; i < s - 1; ++i) {
      if (!vis[at(i, j)] || opaque[at(i, j)]) continue;
      vis[at(i + 1, j)] = 1;
      if (j > 0) {
        vis[at(i + 1, j - 1)] = 1;
        vis[at(i, j - 1)] = 1;
      }
    }
    for (int i = s - 1; i >= 1; --i) {
      if (!vis[at(i, j)] || opaque[at(i, j)]) continue;
      vis[at(i - 1, j)] = 1;
      if (j > 0) {
        vis[at(i - 1, j - 1)] = 1;
        vis[at(i, j - 1)] = 1;
      }
    }
  }
}

void MiniGridEnv::write_partial(uint8_t* out) const {
  gen_view(view_cells_, view_visible_);
  const int s = view_size_;
  // The agent sees what it carries in its own cell.
  view_cells_[static_cast<size_t>((s / 2) * s + s - 1)] = carrying_;
  for (size_t k = 0; k < view_cells_.size(); ++k, out += 3) {
    if (!view_visible_[k]) {
      out[0] = out[1] = out[2] = 0;
    } else if (view_cells_[k] == kNone) {
      out[0] = static_cast<uint8_t>(Type::kEmpty);
      out[1] = out[2] = 0;
    } else if (view_cells_[k] == kOutside) {
      out[0] = static_cast<uint8_t>(Type::kWall);
      out[1] = static_cast<uint8_t>(Color::kGrey);
      out[2] = 0;
    } else {
      objs_[static_cast<size_t>(view_cells_[k])].encode(out);
    }
  }
}

void MiniGridEnv::write_full(uint8_t* out) const {
  for (int x = 0; x < width_; ++x)
    for (int y = 0; y < height_; ++y, out += 3) {
      if (Pos{x, y} == agent_pos_) {
        out[0] = static_cast<uint8_t>(Type::kAgent);
        out[1] = static_cast<uint8_t>(Color::kRed);
        out[2] = static_cast<uint8_t>(agent_dir_);
        continue;
      }
      const ObjId id = grid_.get(x, y);
      if (id == kNone) {
        out[0] = static_cast<uint8_t>(Type::kEmpty);
        out[1] = out[2] = 0;
      } else {
        objs_[static_cast<size_t>(id)].encode(out);
      }
    }
}

void MiniGridEnv::hold_reset_image() {
  reset_image_.resize(static_cast<size_t>(view_size_) * static_cast<size_t>(view_size_) * 3);
  write_partial(reset_image_.data());
  reset_image_held_ = true;
}

void MiniGridEnv::write_flat_mission(uint8_t* out) const {
  if (mission_.size() > static_cast<size_t>(flat_max_str_len_))
    throw std::length_error("mission string too long (" + std::to_string(mission_.size()) +
                            " chars) for flat_max_str_len=" + std::to_string(flat_max_str_len_));
  std::memset(out, 0, static_cast<size_t>(flat_max_str_len_) * kFlatCharCodes);
  for (size_t i = 0; i < mission_.size(); ++i) {
    char ch = mission_[i];
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    int code;
    if (ch >= 'a' && ch <= 'z') {
      code = ch - 'a';
    } else if (ch == ' ') {
      code = 26;
    } else if (ch == ',') {
      code = 27;
    } else {
      throw std::invalid_argument(std::string("Character ") + ch + " is not available in mission string.");
    }
    out[i * kFlatCharCodes + static_cast<size_t>(code)] = 1;
  }
}

void MiniGridEnv::write_image(uint8_t* out) const {
  switch (image_) {
    case ImageKind::kPartial:
      if (reset_image_held_)
        std::memcpy(out, reset_image_.data(), reset_image_.size());
      else
        write_partial(out);
      break;
    case ImageKind::kFull: write_full(out); break;
    case ImageKind::kRgb: draw_full(out, rgb_tile_size_, highlight_); break;
    case ImageKind::kRgbPartial: draw_pov(out, rgb_tile_size_); break;
  }
}

void MiniGridEnv::write_obs(void* dst) const {
  auto* out = static_cast<uint8_t*>(dst);
  write_image(out);
  if (flat_) write_flat_mission(out + image_bytes_);
}

void MiniGridEnv::write_obs_leaves(void* const* dst) const {
  if (img_obs_ || flat_) {
    write_obs(dst[0]);
    return;
  }
  *static_cast<int64_t*>(dst[0]) = agent_dir_;
  write_image(static_cast<uint8_t*>(dst[1]));
  if (mission_.size() > mission_bytes_)
    throw std::length_error("mission longer than its text leaf (" + std::to_string(mission_bytes_) + " bytes): " + mission_);
  auto* text = static_cast<uint8_t*>(dst[2]);
  std::memcpy(text, mission_.data(), mission_.size());
  std::memset(text + mission_.size(), 0, mission_bytes_ - mission_.size());
}

// ------------------------------------------------------------------------------------ frames

int MiniGridEnv::tile_code_at(ObjId id) const {
  if (id == kNone) return 0;
  if (id == kOutside) {
    WorldObj w;
    w.type = Type::kWall;
    return tile_code(&w);
  }
  return tile_code(&objs_[static_cast<size_t>(id)]);
}

// get_full_render: the grid, the agent, and (highlight) the cells of its view it sees.
void MiniGridEnv::draw_full(uint8_t* out, int tile_size, bool highlight) const {
  std::vector<uint8_t>& lit = lit_cells_;
  lit.assign(static_cast<size_t>(width_) * static_cast<size_t>(height_), 0);
  if (highlight) {
    gen_view(view_cells_, view_visible_);
    const int s = view_size_;
    const Pos d = kDirVec[agent_dir_];
    const Pos r{-d.y, d.x};
    for (int vx = 0; vx < s; ++vx)
      for (int vy = 0; vy < s; ++vy) {
        if (!view_visible_[static_cast<size_t>(vx * s + vy)]) continue;
        const int f = s - 1 - vy, side = vx - s / 2;
        const Pos w{agent_pos_.x + d.x * f + r.x * side, agent_pos_.y + d.y * f + r.y * side};
        if (grid_.inside(w)) lit[static_cast<size_t>(w.y * width_ + w.x)] = 1;
      }
  }
  for (int y = 0; y < height_; ++y)
    for (int x = 0; x < width_; ++x) {
      const bool agent_here = Pos{x, y} == agent_pos_;
      put_tile(out, width_, tile_size, x, y,
               tile(tile_size, tile_code_at(grid_.get(x, y)), agent_here ? agent_dir_ : -1,
                    lit[static_cast<size_t>(y * width_ + x)] != 0));
    }
}

// get_pov_render: the agent's view as it sees it (unseen cells empty, its load in its own cell),
// the agent facing up, seen cells highlighted.
void MiniGridEnv::draw_pov(uint8_t* out, int tile_size) const {
  gen_view(view_cells_, view_visible_);
  const int s = view_size_;
  view_cells_[static_cast<size_t>((s / 2) * s + s - 1)] = carrying_;
  for (int vy = 0; vy < s; ++vy)
    for (int vx = 0; vx < s; ++vx) {
      const size_t k = static_cast<size_t>(vx * s + vy);
      const bool seen = view_visible_[k] != 0;  // process_vis emptied the cells it does not see
      const bool agent_here = vx == s / 2 && vy == s - 1;
      put_tile(out, s, tile_size, vx, vy,
               tile(tile_size, seen ? tile_code_at(view_cells_[k]) : 0, agent_here ? 3 : -1, seen));
    }
}

void MiniGridEnv::render(uint8_t* rgb, RenderSlot&) {
  if (agent_pov_)
    draw_pov(rgb, tile_size_);
  else
    draw_full(rgb, tile_size_, highlight_);
}

}  // namespace envhive::minigrid
