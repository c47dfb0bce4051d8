// Built without FMA contraction (-ffp-contract=off): Python's double arithmetic, operation by operation.
#include "car_racing.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "../../core/numpy_compat.h"
#include "../pygame/transform.h"
#include "pybox2d.h"

namespace envhive::box2d {

namespace {

constexpr double kPi = npcompat::kPi;
constexpr double kScale = 6.0;                  // track scale
constexpr double kTrackRad = 900 / kScale;      // the track is a heavily morphed circle of this radius
constexpr double kPlayfield = 2000 / kScale;    // game over beyond this
constexpr double kTrackDetailStep = 21 / kScale;
constexpr double kTrackTurnRate = 0.31;
constexpr double kTrackWidth = 40 / kScale;
constexpr double kBorder = 8 / kScale;
constexpr int kBorderMinCount = 4;
constexpr int kCheckpoints = 12;
constexpr int kWindowW = 1000, kWindowH = 800;

double np_sign(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : v); }

// Python's seq[i] for i in [-n, n).
template <class T>
T& wrap(std::vector<T>& v, long i) {
  return v[static_cast<size_t>(i < 0 ? i + static_cast<long>(v.size()) : i)];
}

}  // namespace

// Gymnasium's FrictionDetector: a tile touched by anything takes the road colour; touched by a
// wheel, it counts for that wheel's grip, and the first touch pays 1000 / N (and may end the lap).
class CarRacingEnv::Friction final : public b2ContactListener {
 public:
  explicit Friction(CarRacingEnv& env) : env_(env) {}
  void BeginContact(b2Contact* contact) override { touch(contact, true); }
  void EndContact(b2Contact* contact) override { touch(contact, false); }

 private:
  void touch(b2Contact* contact, bool begin) {
    auto* u1 = static_cast<CarRacingBody*>(contact->GetFixtureA()->GetBody()->GetUserData());
    auto* u2 = static_cast<CarRacingBody*>(contact->GetFixtureB()->GetBody()->GetUserData());
    Tile* tile = nullptr;
    CarRacingBody* obj = nullptr;
    if (u1 && u1->kind == CarRacingBody::Kind::kTile) {
      tile = static_cast<Tile*>(u1);
      obj = u2;
    }
    if (u2 && u2->kind == CarRacingBody::Kind::kTile) {
      tile = static_cast<Tile*>(u2);
      obj = u1;
    }
    if (!tile) return;
    tile->color = env_.scene_.road_color;
    if (!obj || obj->kind != CarRacingBody::Kind::kWheel) return;
    auto* wheel = static_cast<Car::Wheel*>(obj);
    if (!begin) {
      --wheel->tiles;
      return;
    }
    ++wheel->tiles;
    if (tile->visited) return;
    tile->visited = true;
    env_.reward_ += 1000.0 / static_cast<double>(env_.track_.size());
    env_.tile_visited_count_ += 1;
    // The lap is complete when enough of the track was covered and the start tile is reached.
    if (tile->idx == 0 &&
        static_cast<double>(env_.tile_visited_count_) / static_cast<double>(env_.track_.size()) >
            env_.lap_complete_percent_)
      env_.new_lap_ = true;
  }

  CarRacingEnv& env_;
};

std::vector<ConfigField> CarRacingEnv::config() {
  return {
      {"continuous", true, "Box actions (steering, gas, brake) instead of Discrete(5)."},
      {"domain_randomize", false, "Random road, background and grass colours, drawn at each reset."},
      {"lap_complete_percent", 0.95, "Share of the tiles to visit before reaching the start tile ends the lap."},
  };
}

Spaces CarRacingEnv::spaces(const Config& c) {
  Spaces s;
  s.observation = SpaceSpec::box(DType::kUInt8, {kStateSize, kStateSize, 3}, {0.0}, {255.0});
  s.action = c.flag("continuous") ? SpaceSpec::box(DType::kFloat32, {3}, {-1.0, 0.0, 0.0}, {1.0, 1.0, 1.0})
                                  : SpaceSpec::discrete(5);
  s.infos = {InfoSpec{"lap_finished", DType::kBool, {}}};
  s.render = {.height = kVideoH, .width = kVideoW, .fps = kFps};
  return s;
}

CarRacingEnv::CarRacingEnv(const Config& c, int /*env_id*/)
    : continuous_(c.flag("continuous")),
      domain_randomize_(c.flag("domain_randomize")),
      lap_complete_percent_(c.real("lap_complete_percent")),
      friction_(std::make_unique<Friction>(*this)),
      world_(std::make_unique<b2World>(b2Vec2(0.0f, 0.0f))),
      state_(static_cast<size_t>(kStateSize) * kStateSize * 3) {
  world_->SetContactListener(friction_.get());
  world_->SetAllowSleeping(true);
  // Gymnasium's _init_colors: with domain_randomize it draws from a generator not yet seeded, and
  // the first reset draws again; without, the defaults.
  scene_.road_color = {102, 102, 102};
  scene_.bg_color = {102, 204, 102};
  scene_.grass_color = {102, 230, 102};
}

CarRacingEnv::~CarRacingEnv() {
  world_->SetContactListener(nullptr);  // the bodies go with the world; nothing to tell
  car_.reset();
  road_.clear();
  world_.reset();
}

void CarRacingEnv::set_reset_option(const std::string& name, const std::vector<double>& values) {
  if (name != "randomize")
    throw std::invalid_argument("reset option '" + name + "' is not supported by CarRacing (it has 'randomize')");
  if (values.size() != 1) throw std::invalid_argument("reset option 'randomize' takes one bool");
  randomize_next_ = values[0] != 0.0;  // without domain_randomize Gymnasium ignores it, as here
}

void CarRacingEnv::destroy() {
  if (road_.empty()) return;
  // The friction detector stays on (Gymnasium's does): destroying touching bodies ends contacts.
  for (auto& t : road_) world_->DestroyBody(t->body);
  road_.clear();
  car_.reset();
}

void CarRacingEnv::reinit_colors() {
  for (double& c : scene_.road_color) c = rng().uniform(0, 210);
  for (double& c : scene_.bg_color) c = rng().uniform(0, 210);
  scene_.grass_color = scene_.bg_color;
  scene_.grass_color[static_cast<size_t>(rng().integers(0, 3))] += 20;
}

bool CarRacingEnv::create_track() {
  // Checkpoints at random angles and radii around a circle (the first and last fixed).
  std::array<std::array<double, 3>, kCheckpoints> checkpoints;
  for (int c = 0; c < kCheckpoints; ++c) {
    const double noise = rng().uniform(0, 2 * kPi * 1 / kCheckpoints);
    double alpha = 2 * kPi * c / kCheckpoints + noise;
    double rad = rng().uniform(kTrackRad / 3, kTrackRad);
    if (c == 0) {
      alpha = 0;
      rad = 1.5 * kTrackRad;
    }
    if (c == kCheckpoints - 1) {
      alpha = 2 * kPi * c / kCheckpoints;
      start_alpha_ = 2 * kPi * (-0.5) / kCheckpoints;
      rad = 1.5 * kTrackRad;
    }
    checkpoints[static_cast<size_t>(c)] = {alpha, rad * std::cos(alpha), rad * std::sin(alpha)};
  }
  road_.clear();

  // Drive from checkpoint to checkpoint, turning towards each.
  double x = 1.5 * kTrackRad, y = 0, beta = 0;
  int dest_i = 0, laps = 0, no_freeze = 2500;
  bool visited_other_side = false;
  std::vector<std::array<double, 4>> track;
  for (;;) {
    double alpha = std::atan2(y, x);
    if (visited_other_side && alpha > 0) {
      laps += 1;
      visited_other_side = false;
    }
    if (alpha < 0) {
      visited_other_side = true;
      alpha += 2 * kPi;
    }
    double dest_x = 0, dest_y = 0;
    for (;;) {  // find the destination checkpoint
      bool failed = true;
      for (;;) {
        const auto& cp = checkpoints[static_cast<size_t>(dest_i % kCheckpoints)];
        dest_x = cp[1];
        dest_y = cp[2];
        if (alpha <= cp[0]) {
          failed = false;
          break;
        }
        dest_i += 1;
        if (dest_i % kCheckpoints == 0) break;
      }
      if (!failed) break;
      alpha -= 2 * kPi;
    }
    const double r1x = std::cos(beta), r1y = std::sin(beta);
    const double p1x = -r1y, p1y = r1x;
    const double dest_dx = dest_x - x, dest_dy = dest_y - y;  // towards the destination
    double proj = r1x * dest_dx + r1y * dest_dy;               // projected on the radius
    while (beta - alpha > 1.5 * kPi) beta -= 2 * kPi;
    while (beta - alpha < -1.5 * kPi) beta += 2 * kPi;
    const double prev_beta = beta;
    proj *= kScale;
    if (proj > 0.3) beta -= std::min(kTrackTurnRate, std::abs(0.001 * proj));
    if (proj < -0.3) beta += std::min(kTrackTurnRate, std::abs(0.001 * proj));
    x += p1x * kTrackDetailStep;
    y += p1y * kTrackDetailStep;
    track.push_back({alpha, prev_beta * 0.5 + beta * 0.5, x, y});
    if (laps > 4) break;
    no_freeze -= 1;
    if (no_freeze == 0) break;
  }

  // The closed loop i1..i2: the first lap is ignored, the second used.
  long i1 = -1, i2 = -1;
  long i = static_cast<long>(track.size());
  for (;;) {
    i -= 1;
    if (i == 0) return false;
    const bool pass_through_start = wrap(track, i)[0] > start_alpha_ && wrap(track, i - 1)[0] <= start_alpha_;
    if (pass_through_start && i2 == -1) {
      i2 = i;
    } else if (pass_through_start && i1 == -1) {
      i1 = i;
      break;
    }
  }
  track = std::vector<std::array<double, 4>>(track.begin() + i1, track.begin() + (i2 - 1));
  const double first_beta = track[0][1];
  const double first_perp_x = std::cos(first_beta), first_perp_y = std::sin(first_beta);
  // The head and the tail must meet.
  const double gx = first_perp_x * (track[0][2] - track.back()[2]);
  const double gy = first_perp_y * (track[0][3] - track.back()[3]);
  if (std::sqrt(gx * gx + gy * gy) > kTrackDetailStep) return false;

  // Red-white borders on hard turns.
  const long n = static_cast<long>(track.size());
  std::vector<char> border(static_cast<size_t>(n), 0);
  for (long k = 0; k < n; ++k) {
    bool good = true;
    double oneside = 0;
    for (long neg = 0; neg < kBorderMinCount; ++neg) {
      const double beta1 = wrap(track, k - neg - 0)[1];
      const double beta2 = wrap(track, k - neg - 1)[1];
      good &= std::abs(beta1 - beta2) > kTrackTurnRate * 0.2;
      oneside += np_sign(beta1 - beta2);
    }
    good &= std::abs(oneside) == kBorderMinCount;
    border[static_cast<size_t>(k)] = good;
  }
  for (long k = 0; k < n; ++k)
    for (long neg = 0; neg < kBorderMinCount; ++neg) wrap(border, k - neg) |= border[static_cast<size_t>(k)];

  // The tiles: static sensors, each its own body.
  for (long k = 0; k < n; ++k) {
    const auto& [alpha1, beta1, x1, y1] = track[static_cast<size_t>(k)];
    const auto& [alpha2, beta2, x2, y2] = wrap(track, k - 1);
    (void)alpha1;
    (void)alpha2;
    const Point2 road1_l{x1 - kTrackWidth * std::cos(beta1), y1 - kTrackWidth * std::sin(beta1)};
    const Point2 road1_r{x1 + kTrackWidth * std::cos(beta1), y1 + kTrackWidth * std::sin(beta1)};
    const Point2 road2_l{x2 - kTrackWidth * std::cos(beta2), y2 - kTrackWidth * std::sin(beta2)};
    const Point2 road2_r{x2 + kTrackWidth * std::cos(beta2), y2 + kTrackWidth * std::sin(beta2)};
    const std::array<std::pair<double, double>, 4> vertices = {{{road1_l[0], road1_l[1]},
                                                                 {road1_r[0], road1_r[1]},
                                                                 {road2_r[0], road2_r[1]},
                                                                 {road2_l[0], road2_l[1]}}};
    auto tile = std::make_unique<Tile>();
    tile->body = add_body(*world_, b2_staticBody, 0, 0);
    add_fixture(tile->body, polygon(vertices), {});
    tile->body->SetUserData(static_cast<CarRacingBody*>(tile.get()));
    const double c = 0.01 * static_cast<double>(k % 3) * 255;
    for (size_t ch = 0; ch < 3; ++ch) tile->color[ch] = scene_.road_color[ch] + c;
    tile->idx = static_cast<int>(k);
    tile->body->GetFixtureList()->SetSensor(true);
    scene_.road_poly.push_back({{road1_l, road1_r, road2_r, road2_l}, &tile->color, {}});
    road_.push_back(std::move(tile));
    if (border[static_cast<size_t>(k)]) {
      const double side = np_sign(beta2 - beta1);
      const Point2 b1_l{x1 + side * kTrackWidth * std::cos(beta1), y1 + side * kTrackWidth * std::sin(beta1)};
      const Point2 b1_r{x1 + side * (kTrackWidth + kBorder) * std::cos(beta1),
                        y1 + side * (kTrackWidth + kBorder) * std::sin(beta1)};
      const Point2 b2_l{x2 + side * kTrackWidth * std::cos(beta2), y2 + side * kTrackWidth * std::sin(beta2)};
      const Point2 b2_r{x2 + side * (kTrackWidth + kBorder) * std::cos(beta2),
                        y2 + side * (kTrackWidth + kBorder) * std::sin(beta2)};
      CarRacingScene::RoadPoly p{{b1_l, b1_r, b2_r, b2_l}, nullptr, k % 2 == 0 ? Color3{255, 255, 255} : Color3{255, 0, 0}};
      scene_.road_poly.push_back(p);
    }
  }
  // Border polygons keep their own colour: point at it now that the vector no longer moves.
  for (auto& p : scene_.road_poly)
    if (!p.color) p.color = &p.border;
  track_ = std::move(track);
  return true;
}

void CarRacingEnv::reset() {
  guard_asserts([&] {
    destroy();
    reward_ = prev_reward_ = 0.0;
    tile_visited_count_ = 0;
    scene_.t = 0.0;
    new_lap_ = false;
    scene_.road_poly.clear();
    if (domain_randomize_) {
      if (randomize_next_) reinit_colors();
      randomize_next_ = true;
    }
    while (!create_track()) {
      scene_.road_poly.clear();  // Gymnasium keeps polygons of failed attempts only until they fail
    }
    car_ = std::make_unique<Car>(*world_, track_[0][1], track_[0][2], track_[0][3]);
  });
  advance(false);  // Gymnasium's reset returns the state of a step without action
}

StepResult CarRacingEnv::step(const void* action) {
  if (continuous_) {
    float a[3];
    std::memcpy(a, action, sizeof(a));
    car_->steer(-static_cast<double>(a[0]));
    car_->gas(a[1]);
    car_->brake(a[2]);
  } else {
    int64_t a;
    std::memcpy(&a, action, sizeof(a));
    car_->steer(-0.6 * (a == 1) + 0.6 * (a == 2));
    car_->gas(0.2 * (a == 3));
    car_->brake(0.8 * (a == 4));
  }
  return advance(true);
}

StepResult CarRacingEnv::advance(bool has_action) {
  return guard_asserts([&] {
    car_->step(1.0 / kFps);
    world_->Step(f32(1.0 / kFps), 6 * 30, 2 * 30);
    scene_.t += 1.0 / kFps;
    draw_state();

    double step_reward = 0;
    bool terminated = false;
    lap_finished_ = false;
    if (has_action) {
      reward_ -= 0.1;
      step_reward = reward_ - prev_reward_;
      prev_reward_ = reward_;
      if (tile_visited_count_ == static_cast<int>(track_.size()) || new_lap_) {
        terminated = true;
        lap_finished_ = true;
      }
      const b2Vec2 pos = car_->hull()->GetPosition();
      if (std::abs(pos.x) > kPlayfield || std::abs(pos.y) > kPlayfield) {
        terminated = true;
        lap_finished_ = false;
        step_reward = -100;
      }
    }
    return StepResult{step_reward, terminated};
  });
}

void CarRacingEnv::draw_state() {
  static const CarRacingText text;  // pygame's glyphs, loaded with the pool (images_at_start)
  // The 1000 x 800 surface the observation is scaled from is drawn whole at every step (filled
  // first), so it is the stepping thread's, not each env's: 2.4 MB per thread instead of per env
  // keeps a pool's canvases in the last-level cache (32 envs: 77 MB of canvases before).
  thread_local std::vector<uint8_t> canvas(static_cast<size_t>(kWindowW) * kWindowH * 3);
  draw_car_racing_surface(canvas.data(), scene_, *car_, reward_, /*particles=*/false, text);
  pygame::smoothscale_rgb(canvas.data(), kWindowW, kWindowH, state_.data(), kStateSize, kStateSize);
}

void CarRacingEnv::write_obs(void* dst) const { std::memcpy(dst, state_.data(), state_.size()); }

void CarRacingEnv::write_info(void* const* dst) const { *static_cast<bool*>(dst[0]) = lap_finished_; }

void CarRacingEnv::render(uint8_t* rgb, RenderSlot& /*slot*/) {
  static const CarRacingText text;
  std::vector<uint8_t> surface(static_cast<size_t>(kWindowW) * kWindowH * 3);
  draw_car_racing_surface(surface.data(), scene_, *car_, reward_, /*particles=*/true, text);
  pygame::smoothscale_rgb(surface.data(), kWindowW, kWindowH, rgb, kVideoW, kVideoH);
}

}  // namespace envhive::box2d
