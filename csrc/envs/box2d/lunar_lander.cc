// Built without FMA contraction (-ffp-contract=off): Python's double arithmetic, operation by operation.
#include "lunar_lander.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "../../core/numpy_compat.h"
#include "pybox2d.h"
#include "render/lunar_lander_scene.h"

namespace envhive::box2d {

namespace {

constexpr double kScale = LunarLanderEnv::kScale;
constexpr double kMainEnginePower = 13.0;
constexpr double kSideEnginePower = 0.6;
constexpr double kInitialRandom = 1000.0;
constexpr int kLanderPoly[6][2] = {{-14, 17}, {-17, 0}, {-17, -10}, {17, -10}, {17, 0}, {14, 17}};
constexpr int kLegAway = 20, kLegDown = 18, kLegW = 2, kLegH = 8;
constexpr double kLegSpringTorque = 40;
constexpr int kSideEngineHeight = 14, kSideEngineAway = 12, kMainEngineYLocation = 4;
constexpr int kChunks = 11;

// np.sign / np.clip of a float64 (NaN never reaches here: the pool refuses NaN actions).
double sign(double v) { return v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : v); }
double clip(double v, double lo, double hi) { return std::min(std::max(v, lo), hi); }

}  // namespace

// Gymnasium's ContactDetector.
class LunarLanderEnv::Contacts final : public b2ContactListener {
 public:
  explicit Contacts(LunarLanderEnv& env) : env_(env) {}
  void BeginContact(b2Contact* contact) override {
    b2Body* a = contact->GetFixtureA()->GetBody();
    b2Body* b = contact->GetFixtureB()->GetBody();
    if (env_.lander_ == a || env_.lander_ == b) env_.game_over_ = true;
    for (int i = 0; i < 2; ++i)
      if (env_.legs_[i] == a || env_.legs_[i] == b) env_.ground_contact_[i] = true;
  }
  void EndContact(b2Contact* contact) override {
    b2Body* a = contact->GetFixtureA()->GetBody();
    b2Body* b = contact->GetFixtureB()->GetBody();
    for (int i = 0; i < 2; ++i)
      if (env_.legs_[i] == a || env_.legs_[i] == b) env_.ground_contact_[i] = false;
  }

 private:
  LunarLanderEnv& env_;
};

std::vector<ConfigField> LunarLanderEnv::config(bool continuous) {
  return {
      {"continuous", continuous, "Box(-1, 1, (2,)) throttles (main engine, side engines) instead of Discrete(4)."},
      {"gravity", -10.0, "Gravitational acceleration, in (-12, 0)."},
      {"enable_wind", false, "Apply wind and turbulence to the lander while no leg touches the ground."},
      {"wind_power", 15.0, "Largest linear wind force (recommended 0 to 20)."},
      {"turbulence_power", 1.5, "Largest rotational wind torque (recommended 0 to 2)."},
  };
}

Spaces LunarLanderEnv::spaces(const Config& c, bool) {
  const double gravity = c.real("gravity");
  if (!(-12.0 < gravity && gravity < 0.0))
    throw std::invalid_argument("gravity (current value: " + std::to_string(gravity) + ") must be between -12 and 0");
  using npcompat::f32;
  const double two_pi = 2 * npcompat::kPi;
  Spaces s;
  s.observation = SpaceSpec::box(DType::kFloat32, {8}, {-2.5, -2.5, -10.0, -10.0, f32(-two_pi), -10.0, -0.0, -0.0},
                                 {2.5, 2.5, 10.0, 10.0, f32(two_pi), 10.0, 1.0, 1.0});
  s.action = c.flag("continuous") ? SpaceSpec::box(DType::kFloat32, {2}, {-1.0}, {1.0}) : SpaceSpec::discrete(4);
  s.render = {.height = kViewportH, .width = kViewportW, .fps = kFps};
  return s;
}

LunarLanderEnv::LunarLanderEnv(const Config& c, int /*env_id*/, bool)
    : continuous_(c.flag("continuous")),
      enable_wind_(c.flag("enable_wind")),
      gravity_(c.real("gravity")),
      wind_power_(c.real("wind_power")),
      turbulence_power_(c.real("turbulence_power")) {}

LunarLanderEnv::~LunarLanderEnv() = default;

void LunarLanderEnv::reset() {
  guard_asserts([&] {
    particles_.clear();
    world_.reset();  // the old world goes with everything in it
    contacts_ = std::make_unique<Contacts>(*this);
    world_ = std::make_unique<b2World>(vec(0, gravity_));
    world_->SetAllowSleeping(true);
    world_->SetContactListener(contacts_.get());
    game_over_ = false;
    has_prev_shaping_ = false;
    ground_contact_ = {false, false};

    const double W = kViewportW / kScale;
    const double H = kViewportH / kScale;

    // Terrain.
    double height[kChunks + 1];
    for (double& h : height) h = rng().uniform(0, H / 2);
    double chunk_x[kChunks];
    for (int i = 0; i < kChunks; ++i) chunk_x[i] = W / (kChunks - 1) * i;
    helipad_x1_ = chunk_x[kChunks / 2 - 1];
    helipad_x2_ = chunk_x[kChunks / 2 + 1];
    helipad_y_ = H / 4;
    for (int i = kChunks / 2 - 2; i <= kChunks / 2 + 2; ++i) height[i] = helipad_y_;
    double smooth_y[kChunks];
    for (int i = 0; i < kChunks; ++i)  // height[i - 1] is height[-1] (the last) for i = 0, as in Python
      smooth_y[i] = 0.33 * (height[(i + kChunks) % (kChunks + 1)] + height[i] + height[i + 1]);

    moon_ = add_body(*world_, b2_staticBody, 0, 0);
    add_fixture(moon_, edge(0, 0, W, 0), {});
    sky_polys_.clear();
    for (int i = 0; i < kChunks - 1; ++i) {
      const double p1[2] = {chunk_x[i], smooth_y[i]}, p2[2] = {chunk_x[i + 1], smooth_y[i + 1]};
      add_fixture(moon_, edge(p1[0], p1[1], p2[0], p2[1]), {.density = 0, .friction = 0.1});
      sky_polys_.push_back({{{p1[0], p1[1]}, {p2[0], p2[1]}, {p2[0], H}, {p1[0], H}}});
    }

    // Lander.
    const double initial_y = kViewportH / kScale;
    const double initial_x = kViewportW / kScale / 2;
    lander_ = add_body(*world_, b2_dynamicBody, initial_x, initial_y, 0.0);
    std::array<std::pair<double, double>, 6> hull;
    for (int i = 0; i < 6; ++i) hull[i] = {kLanderPoly[i][0] / kScale, kLanderPoly[i][1] / kScale};
    add_fixture(lander_, polygon(hull),
                {.density = 5.0, .friction = 0.1, .restitution = 0.0, .category = 0x0010, .mask = 0x001});
    const double push_x = rng().uniform(-kInitialRandom, kInitialRandom);
    const double push_y = rng().uniform(-kInitialRandom, kInitialRandom);
    lander_->ApplyForceToCenter(vec(push_x, push_y), true);

    if (enable_wind_) {
      wind_idx_ = rng().integers(-9999, 9999);
      torque_idx_ = rng().integers(-9999, 9999);
    }

    // Legs, each on a motorised revolute joint with limits.
    for (int k = 0; k < 2; ++k) {
      const int i = k == 0 ? -1 : +1;
      b2Body* leg = add_body(*world_, b2_dynamicBody, initial_x - i * kLegAway / kScale, initial_y, i * 0.05);
      add_fixture(leg, box(kLegW / kScale, kLegH / kScale),
                  {.density = 1.0, .restitution = 0.0, .category = 0x0020, .mask = 0x001});
      b2RevoluteJointDef rjd = revolute_joint(lander_, leg);
      rjd.localAnchorA = vec(0, 0);
      rjd.localAnchorB = vec(i * kLegAway / kScale, kLegDown / kScale);
      rjd.enableMotor = true;
      rjd.enableLimit = true;
      rjd.maxMotorTorque = f32(kLegSpringTorque);
      rjd.motorSpeed = f32(+0.3 * i);
      if (i == -1) {
        rjd.lowerAngle = f32(+0.9 - 0.5);
        rjd.upperAngle = f32(+0.9);
      } else {
        rjd.lowerAngle = f32(-0.9);
        rjd.upperAngle = f32(-0.9 + 0.5);
      }
      world_->CreateJoint(&rjd);
      legs_[k] = leg;
    }
  });
  advance({});  // Gymnasium's reset returns the observation of a no-op step
}

StepResult LunarLanderEnv::step(const void* action) {
  Engines e;
  if (continuous_) {
    float raw[2];
    std::memcpy(raw, action, sizeof(raw));
    // np.clip(action, -1, +1) on the float32 array, then .astype(np.float64)
    const double a0 = std::min(std::max(raw[0], -1.0f), 1.0f);
    const double a1 = std::min(std::max(raw[1], -1.0f), 1.0f);
    if (a0 > 0.0) {
      e.main = true;
      e.m_power = (clip(a0, 0.0, 1.0) + 1.0) * 0.5;
    }
    if (std::abs(a1) > 0.5) {
      e.side = true;
      e.direction = sign(a1);
      e.s_power = clip(std::abs(a1), 0.5, 1.0);
    }
  } else {
    int64_t a;
    std::memcpy(&a, action, sizeof(a));
    if (a == 2) {
      e.main = true;
      e.m_power = 1.0;
    }
    if (a == 1 || a == 3) {
      e.side = true;
      e.direction = static_cast<double>(a - 2);
      e.s_power = 1.0;
    }
  }
  return advance(e);
}

StepResult LunarLanderEnv::advance(const Engines& e) {
  return guard_asserts([&] {
    if (enable_wind_ && !(ground_contact_[0] || ground_contact_[1])) {
      // tanh(sin(2 k x) + sin(pi k x)), k = 0.01: never periodic.
      const double wind_idx = static_cast<double>(wind_idx_);
      const double wind_mag =
          std::tanh(std::sin(0.02 * wind_idx) + std::sin(npcompat::kPi * 0.01 * wind_idx)) * wind_power_;
      ++wind_idx_;
      lander_->ApplyForceToCenter(vec(wind_mag, 0.0), true);
      const double torque_idx = static_cast<double>(torque_idx_);
      const double torque_mag =
          std::tanh(std::sin(0.02 * torque_idx) + std::sin(npcompat::kPi * 0.01 * torque_idx)) * turbulence_power_;
      ++torque_idx_;
      lander_->ApplyTorque(f32(torque_mag), true);
    }

    // tip: the lander's up axis (sin, cos of its angle); side: its right axis.
    const double angle = lander_->GetAngle();
    const double tip[2] = {std::sin(angle), std::cos(angle)};
    const double side[2] = {-tip[1], tip[0]};
    double dispersion[2];
    for (double& d : dispersion) d = rng().uniform(-1.0, +1.0) / kScale;

    if (e.main) {
      const double ox = tip[0] * (kMainEngineYLocation / kScale + 2 * dispersion[0]) + side[0] * dispersion[1];
      const double oy = -tip[1] * (kMainEngineYLocation / kScale + 2 * dispersion[0]) - side[1] * dispersion[1];
      const b2Vec2 pos = lander_->GetPosition();
      const double impulse_pos[2] = {pos.x + ox, pos.y + oy};
      if (rendering_)
        create_particle(3.5, impulse_pos[0], impulse_pos[1], e.m_power, ox * kMainEnginePower * e.m_power,
                        oy * kMainEnginePower * e.m_power);
      lander_->ApplyLinearImpulse(vec(-ox * kMainEnginePower * e.m_power, -oy * kMainEnginePower * e.m_power),
                                  vec(impulse_pos[0], impulse_pos[1]), true);
    }
    if (e.side) {
      const double away = 3 * dispersion[1] + e.direction * kSideEngineAway / kScale;
      const double ox = tip[0] * dispersion[0] + side[0] * away;
      const double oy = -tip[1] * dispersion[0] - side[1] * away;
      // Gymnasium offsets the thrust point by 17 (not SIDE_ENGINE_HEIGHT = 14) along the tip's x.
      const b2Vec2 pos = lander_->GetPosition();
      const double impulse_pos[2] = {pos.x + ox - tip[0] * 17 / kScale,
                                     pos.y + oy + tip[1] * kSideEngineHeight / kScale};
      if (rendering_)
        create_particle(0.7, impulse_pos[0], impulse_pos[1], e.s_power, ox * kSideEnginePower * e.s_power,
                        oy * kSideEnginePower * e.s_power);
      lander_->ApplyLinearImpulse(vec(-ox * kSideEnginePower * e.s_power, -oy * kSideEnginePower * e.s_power),
                                  vec(impulse_pos[0], impulse_pos[1]), true);
    }

    world_->Step(f32(1.0 / kFps), 6 * 30, 2 * 30);

    const b2Vec2 pos = lander_->GetPosition();
    const b2Vec2 vel = lander_->GetLinearVelocity();
    const double state[8] = {
        (pos.x - kViewportW / kScale / 2) / (kViewportW / kScale / 2),
        (pos.y - (helipad_y_ + kLegDown / kScale)) / (kViewportH / kScale / 2),
        vel.x * (kViewportW / kScale / 2) / kFps,
        vel.y * (kViewportH / kScale / 2) / kFps,
        lander_->GetAngle(),
        20.0 * lander_->GetAngularVelocity() / kFps,
        ground_contact_[0] ? 1.0 : 0.0,
        ground_contact_[1] ? 1.0 : 0.0,
    };
    for (int i = 0; i < 8; ++i) obs_[i] = static_cast<float>(state[i]);

    // Closer, slower and more level is better; ten points per leg on the ground.
    const double shaping = -100 * std::sqrt(state[0] * state[0] + state[1] * state[1]) -
                           100 * std::sqrt(state[2] * state[2] + state[3] * state[3]) - 100 * std::abs(state[4]) +
                           10 * state[6] + 10 * state[7];
    double reward = has_prev_shaping_ ? shaping - prev_shaping_ : 0.0;
    prev_shaping_ = shaping;
    has_prev_shaping_ = true;
    reward -= e.m_power * 0.30;  // fuel
    reward -= e.s_power * 0.03;

    bool terminated = false;
    if (game_over_ || std::abs(state[0]) >= 1.0) {
      terminated = true;
      reward = -100;
    }
    if (!lander_->IsAwake()) {
      terminated = true;
      reward = +100;
    }
    return StepResult{reward, terminated};
  });
}

void LunarLanderEnv::create_particle(double mass, double x, double y, double ttl, double impulse_x,
                                     double impulse_y) {
  b2Body* p = add_body(*world_, b2_dynamicBody, x, y, 0.0);
  b2CircleShape circle;
  circle.m_radius = f32(2 / kScale);
  circle.m_p = vec(0, 0);
  add_fixture(p, circle, {.density = mass, .friction = 0.1, .restitution = 0.3, .category = 0x0100, .mask = 0x001});
  particles_.push_back({p, ttl});
  clean_particles(false);
  p->ApplyLinearImpulse(vec(impulse_x, impulse_y), vec(x, y), true);
}

void LunarLanderEnv::clean_particles(bool all) {
  while (!particles_.empty() && (all || particles_.front().ttl < 0)) {
    world_->DestroyBody(particles_.front().body);
    particles_.pop_front();
  }
}

void LunarLanderEnv::write_obs(void* dst) const { std::memcpy(dst, obs_.data(), sizeof(obs_)); }

void LunarLanderEnv::render(uint8_t* rgb, RenderSlot& /*slot*/) {
  guard_asserts([&] {
    // Gymnasium's render() ages the particles and drops the expired ones before drawing.
    for (Particle& p : particles_) p.ttl -= 0.15;
    clean_particles(false);
    LunarLanderScene scene;
    scene.sky_polys = &sky_polys_;
    scene.helipad_x1 = helipad_x1_;
    scene.helipad_x2 = helipad_x2_;
    scene.helipad_y = helipad_y_;
    for (const Particle& p : particles_) scene.particles.push_back({p.body, p.ttl});
    scene.lander = lander_;
    scene.legs = legs_;
    draw_lunar_lander(rgb, scene);
  });
}

}  // namespace envhive::box2d
