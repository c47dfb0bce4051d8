// Built without FMA contraction (-ffp-contract=off): Python's double arithmetic, operation by operation.
#include "bipedal_walker.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "../../core/numpy_compat.h"
#include "pybox2d.h"

namespace envhive::box2d {

namespace {

constexpr double kScale = 30.0;
constexpr double kMotorsTorque = 80;
constexpr double kSpeedHip = 4, kSpeedKnee = 6;
constexpr double kLidarRange = 160 / kScale;
constexpr double kInitialRandom = 5;
constexpr int kHullPoly[5][2] = {{-30, +9}, {+6, +9}, {+34, +1}, {+34, -8}, {-30, -8}};
constexpr double kLegDown = -8 / kScale;
constexpr double kLegW = 8 / kScale, kLegH = 34 / kScale;
constexpr double kTerrainStep = 14 / kScale;
constexpr int kTerrainLength = 200;  // in steps
constexpr double kTerrainHeight = BipedalWalkerEnv::kViewportH / kScale / 4;
constexpr int kTerrainGrass = 10;     // low long are grass spots, in steps
constexpr int kTerrainStartpad = 20;  // in steps
constexpr double kFriction = 2.5;

constexpr Color kObstacle1{255, 255, 255}, kObstacle2{153, 153, 153};

// Gymnasium's HULL_FD, LEG_FD and LOWER_FD.
constexpr FixtureSpec kLimbFixture{.density = 1.0, .restitution = 0.0, .category = 0x0020, .mask = 0x001};

// np.sign(v) * scale for a float32 action value, in float32 (NEP 50: a Python int is weak).
float32 signed_speed(float32 a, double scale) {
  const float32 sign = a > 0 ? 1.0f : (a < 0 ? -1.0f : a);
  return static_cast<float32>(scale) * sign;
}
// np.clip(np.abs(a), 0, 1), float32.
float32 throttle(float32 a) { return std::min(std::max(std::fabs(a), 0.0f), 1.0f); }

}  // namespace

// Gymnasium's ContactDetector: the hull touching anything ends the game; the lower legs' contacts.
class BipedalWalkerEnv::Contacts final : public b2ContactListener {
 public:
  explicit Contacts(BipedalWalkerEnv& env) : env_(env) {}
  void BeginContact(b2Contact* contact) override {
    b2Body* a = contact->GetFixtureA()->GetBody();
    b2Body* b = contact->GetFixtureB()->GetBody();
    if (env_.hull_ == a || env_.hull_ == b) env_.game_over_ = true;
    for (int leg : {1, 3})
      if (env_.legs_[leg] == a || env_.legs_[leg] == b) env_.ground_contact_[leg] = true;
  }
  void EndContact(b2Contact* contact) override {
    b2Body* a = contact->GetFixtureA()->GetBody();
    b2Body* b = contact->GetFixtureB()->GetBody();
    for (int leg : {1, 3})
      if (env_.legs_[leg] == a || env_.legs_[leg] == b) env_.ground_contact_[leg] = false;
  }

 private:
  BipedalWalkerEnv& env_;
};

// Gymnasium's LidarCallback: the nearest fixture of the ground's category along the ray.
class BipedalWalkerEnv::Lidar final : public b2RayCastCallback {
 public:
  float32 fraction = 1.0f;
  Point2 p2{};
  float32 ReportFixture(b2Fixture* fixture, const b2Vec2& point, const b2Vec2& /*normal*/, float32 f) override {
    if ((fixture->GetFilterData().categoryBits & 1) == 0) return -1;
    p2 = {point.x, point.y};
    fraction = f;
    return f;
  }
};

Spaces BipedalWalkerEnv::spaces(const Config&, bool) {
  using npcompat::f32;
  const double pi = f32(npcompat::kPi);
  std::vector<double> low = {-pi, -5.0, -5.0, -5.0, -pi, -5.0, -pi, -5.0, -0.0, -pi, -5.0, -pi, -5.0, -0.0};
  std::vector<double> high = {pi, 5.0, 5.0, 5.0, pi, 5.0, pi, 5.0, 5.0, pi, 5.0, pi, 5.0, 5.0};
  low.resize(24, -1.0);
  high.resize(24, 1.0);
  Spaces s;
  s.observation = SpaceSpec::box(DType::kFloat32, {24}, std::move(low), std::move(high));
  s.action = SpaceSpec::box(DType::kFloat32, {4}, {-1.0}, {1.0});
  s.render = {.height = kViewportH, .width = kViewportW, .fps = kFps};
  return s;
}

BipedalWalkerEnv::BipedalWalkerEnv(const Config& c, int /*env_id*/, bool)
    : hardcore_(c.flag("hardcore")), world_(std::make_unique<b2World>(b2Vec2(0.0f, -10.0f))) {
  world_->SetAllowSleeping(true);
}

BipedalWalkerEnv::~BipedalWalkerEnv() = default;

void BipedalWalkerEnv::destroy() {
  if (terrain_.empty()) return;
  world_->SetContactListener(nullptr);
  for (b2Body* t : terrain_) world_->DestroyBody(t);
  terrain_.clear();
  world_->DestroyBody(hull_);
  hull_ = nullptr;
  for (b2Body* leg : legs_) world_->DestroyBody(leg);
  legs_ = {};
  joints_ = {};
}

b2Body* BipedalWalkerEnv::static_polygon(const std::array<std::array<double, 2>, 4>& poly) {
  std::array<std::pair<double, double>, 4> points;
  for (int k = 0; k < 4; ++k) points[k] = {poly[k][0], poly[k][1]};
  b2Body* t = add_body(*world_, b2_staticBody, 0, 0);
  add_fixture(t, polygon(points), {.friction = kFriction});
  terrain_.push_back(t);
  scene_.drawlist.push_back({t, kObstacle1, kObstacle2});
  return t;
}

void BipedalWalkerEnv::generate_terrain() {
  enum State : int64_t { kGrass, kStump, kStairs, kPit, kStates };
  int64_t state = kGrass;
  double velocity = 0.0;
  double y = kTerrainHeight;
  int64_t counter = kTerrainStartpad;
  bool oneshot = false;
  std::vector<double> terrain_x, terrain_y;
  int64_t stair_steps = 0, stair_width = 0, stair_height = 0;
  double original_y = 0;
  const double ts = kTerrainStep;
  for (int i = 0; i < kTerrainLength; ++i) {
    const double x = i * ts;
    terrain_x.push_back(x);
    if (state == kGrass && !oneshot) {
      const double d = kTerrainHeight - y;
      velocity = 0.8 * velocity + 0.01 * (d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0));
      if (i > kTerrainStartpad) velocity += rng().uniform(-1, 1) / kScale;
      y += velocity;
    } else if (state == kPit && oneshot) {
      counter = rng().integers(3, 5);
      const std::array<std::array<double, 2>, 4> poly = {
          {{x, y}, {x + ts, y}, {x + ts, y - 4 * ts}, {x, y - 4 * ts}}};
      static_polygon(poly);
      std::array<std::array<double, 2>, 4> shifted;
      for (int k = 0; k < 4; ++k) shifted[k] = {poly[k][0] + ts * static_cast<double>(counter), poly[k][1]};
      static_polygon(shifted);
      counter += 2;
      original_y = y;
    } else if (state == kPit && !oneshot) {
      y = original_y;
      if (counter > 1) y -= 4 * ts;
    } else if (state == kStump && oneshot) {
      counter = rng().integers(1, 3);
      const double size = static_cast<double>(counter) * ts;
      static_polygon({{{x, y}, {x + size, y}, {x + size, y + size}, {x, y + size}}});
    } else if (state == kStairs && oneshot) {
      stair_height = rng().next_double() > 0.5 ? +1 : -1;
      stair_width = rng().integers(4, 5);
      stair_steps = rng().integers(3, 5);
      original_y = y;
      for (int64_t s = 0; s < stair_steps; ++s) {
        const double x0 = x + static_cast<double>(s * stair_width) * ts;
        const double x1 = x + static_cast<double>((1 + s) * stair_width) * ts;
        const double y0 = y + static_cast<double>(s * stair_height) * ts;
        const double y1 = y + static_cast<double>(-1 + s * stair_height) * ts;
        static_polygon({{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}});
      }
      counter = stair_steps * stair_width;
    } else if (state == kStairs && !oneshot) {
      const int64_t s = stair_steps * stair_width - counter - stair_height;
      const double n = static_cast<double>(s) / static_cast<double>(stair_width);
      y = original_y + (n * static_cast<double>(stair_height)) * ts;
    }
    oneshot = false;
    terrain_y.push_back(y);
    --counter;
    if (counter == 0) {
      counter = rng().integers(kTerrainGrass / 2, kTerrainGrass);
      state = (state == kGrass && hardcore_) ? rng().integers(1, kStates) : int64_t{kGrass};
      oneshot = true;
    }
  }
  for (int i = 0; i < kTerrainLength - 1; ++i) {
    b2Body* t = add_body(*world_, b2_staticBody, 0, 0);
    add_fixture(t, edge(terrain_x[i], terrain_y[i], terrain_x[i + 1], terrain_y[i + 1]),
                {.friction = kFriction, .category = 0x0001});
    terrain_.push_back(t);
    const Color color{76, static_cast<uint8_t>(i % 2 == 0 ? 255 : 204), 76};
    scene_.drawlist.push_back({t, color, color});
    scene_.terrain_poly.push_back({{{terrain_x[i], terrain_y[i]},
                                    {terrain_x[i + 1], terrain_y[i + 1]},
                                    {terrain_x[i + 1], 0},
                                    {terrain_x[i], 0}}});
  }
  std::reverse(terrain_.begin(), terrain_.end());
  std::reverse(scene_.drawlist.begin(), scene_.drawlist.end());
}

void BipedalWalkerEnv::generate_clouds() {
  const double ts = kTerrainStep;
  for (int c = 0; c < kTerrainLength / 20; ++c) {
    const double x = rng().uniform(0, kTerrainLength) * ts;
    const double y = kViewportH / kScale * 3 / 4;
    BipedalScene::Cloud cloud;
    for (int a = 0; a < 5; ++a) {
      const double px = x + 15 * ts * std::sin(3.14 * 2 * a / 5) + rng().uniform(0, 5 * ts);
      const double py = y + 5 * ts * std::cos(3.14 * 2 * a / 5) + rng().uniform(0, 5 * ts);
      cloud.poly[a] = {px, py};
    }
    cloud.x1 = cloud.x2 = cloud.poly[0][0];
    for (const auto& p : cloud.poly) {
      cloud.x1 = std::min(cloud.x1, p[0]);
      cloud.x2 = std::max(cloud.x2, p[0]);
    }
    scene_.clouds.push_back(cloud);
  }
}

void BipedalWalkerEnv::reset() {
  guard_asserts([&] {
    destroy();
    contacts_ = std::make_unique<Contacts>(*this);
    world_->SetContactListener(contacts_.get());
    game_over_ = false;
    has_prev_shaping_ = false;
    ground_contact_ = {};
    scene_ = BipedalScene{};

    generate_terrain();
    generate_clouds();

    const double init_x = kTerrainStep * kTerrainStartpad / 2;
    const double init_y = kTerrainHeight + 2 * kLegH;
    hull_ = add_body(*world_, b2_dynamicBody, init_x, init_y);
    std::array<std::pair<double, double>, 5> hull_poly;
    for (int k = 0; k < 5; ++k) hull_poly[k] = {kHullPoly[k][0] / kScale, kHullPoly[k][1] / kScale};
    add_fixture(hull_, polygon(hull_poly),
                {.density = 5.0, .friction = 0.1, .restitution = 0.0, .category = 0x0020, .mask = 0x001});
    hull_->ApplyForceToCenter(vec(rng().uniform(-kInitialRandom, kInitialRandom), 0), true);

    std::vector<BipedalScene::Body> limbs;
    for (int k = 0; k < 2; ++k) {
      const int i = k == 0 ? -1 : +1;
      const Color color1{static_cast<uint8_t>(153 - i * 25), static_cast<uint8_t>(76 - i * 25),
                         static_cast<uint8_t>(127 - i * 25)};
      const Color color2{static_cast<uint8_t>(102 - i * 25), static_cast<uint8_t>(51 - i * 25),
                         static_cast<uint8_t>(76 - i * 25)};
      b2Body* leg = add_body(*world_, b2_dynamicBody, init_x, init_y - kLegH / 2 - kLegDown, i * 0.05);
      add_fixture(leg, box(kLegW / 2, kLegH / 2), kLimbFixture);
      b2RevoluteJointDef hip = revolute_joint(hull_, leg);
      hip.localAnchorA = vec(0, kLegDown);
      hip.localAnchorB = vec(0, kLegH / 2);
      hip.enableMotor = true;
      hip.enableLimit = true;
      hip.maxMotorTorque = f32(kMotorsTorque);
      hip.motorSpeed = f32(i);
      hip.lowerAngle = f32(-0.8);
      hip.upperAngle = f32(1.1);
      legs_[2 * k] = leg;
      joints_[2 * k] = static_cast<b2RevoluteJoint*>(world_->CreateJoint(&hip));
      limbs.push_back({leg, color1, color2});

      b2Body* lower = add_body(*world_, b2_dynamicBody, init_x, init_y - kLegH * 3 / 2 - kLegDown, i * 0.05);
      add_fixture(lower, box(0.8 * kLegW / 2, kLegH / 2), kLimbFixture);
      b2RevoluteJointDef knee = revolute_joint(leg, lower);
      knee.localAnchorA = vec(0, -kLegH / 2);
      knee.localAnchorB = vec(0, kLegH / 2);
      knee.enableMotor = true;
      knee.enableLimit = true;
      knee.maxMotorTorque = f32(kMotorsTorque);
      knee.motorSpeed = f32(1);
      knee.lowerAngle = f32(-1.6);
      knee.upperAngle = f32(-0.1);
      legs_[2 * k + 1] = lower;
      joints_[2 * k + 1] = static_cast<b2RevoluteJoint*>(world_->CreateJoint(&knee));
      limbs.push_back({lower, color1, color2});
    }
    scene_.drawlist.insert(scene_.drawlist.end(), limbs.begin(), limbs.end());
    scene_.drawlist.push_back({hull_, Color{127, 51, 229}, Color{76, 76, 127}});
  });
  const float zeros[4] = {0, 0, 0, 0};
  step(zeros);  // Gymnasium's reset returns the observation of a no-op step
}

StepResult BipedalWalkerEnv::step(const void* action) {
  float32 a[4];
  std::memcpy(a, action, sizeof(a));
  return guard_asserts([&] {
    for (int k = 0; k < 4; ++k) {
      joints_[k]->SetMotorSpeed(signed_speed(a[k], k % 2 == 0 ? kSpeedHip : kSpeedKnee));
      joints_[k]->SetMaxMotorTorque(static_cast<float32>(kMotorsTorque) * throttle(a[k]));
    }
    world_->Step(f32(1.0 / kFps), 6 * 30, 2 * 30);

    const b2Vec2 pos = hull_->GetPosition();
    const b2Vec2 vel = hull_->GetLinearVelocity();
    Lidar lidar[10];
    for (int i = 0; i < 10; ++i) {
      const double end[2] = {pos.x + std::sin(1.5 * i / 10.0) * kLidarRange,
                             pos.y - std::cos(1.5 * i / 10.0) * kLidarRange};
      lidar[i].p2 = {end[0], end[1]};
      world_->RayCast(&lidar[i], pos, vec(end[0], end[1]));
      scene_.lidar[static_cast<size_t>(i)] = {Point2{pos.x, pos.y}, lidar[i].p2};
    }
    const double state[14] = {
        hull_->GetAngle(),
        2.0 * hull_->GetAngularVelocity() / kFps,
        0.3 * vel.x * (kViewportW / kScale) / kFps,
        0.3 * vel.y * (kViewportH / kScale) / kFps,
        joints_[0]->GetJointAngle(),
        joints_[0]->GetJointSpeed() / kSpeedHip,
        joints_[1]->GetJointAngle() + 1.0,
        joints_[1]->GetJointSpeed() / kSpeedKnee,
        ground_contact_[1] ? 1.0 : 0.0,
        joints_[2]->GetJointAngle(),
        joints_[2]->GetJointSpeed() / kSpeedHip,
        joints_[3]->GetJointAngle() + 1.0,
        joints_[3]->GetJointSpeed() / kSpeedKnee,
        ground_contact_[3] ? 1.0 : 0.0,
    };
    for (int i = 0; i < 14; ++i) obs_[i] = static_cast<float>(state[i]);
    for (int i = 0; i < 10; ++i) obs_[14 + i] = lidar[i].fraction;

    scene_.scroll = pos.x - kViewportW / kScale / 5;
    // Moving forward earns 300 over the course; keep the head level.
    double shaping = 130 * static_cast<double>(pos.x) / kScale;
    shaping -= 5.0 * std::abs(state[0]);
    // The motor cost is float32: Python's reward minus np.float32 terms is an np.float32 (NEP 50).
    float32 reward = has_prev_shaping_ ? static_cast<float32>(shaping - prev_shaping_) : 0.0f;
    prev_shaping_ = shaping;
    has_prev_shaping_ = true;
    const float32 cost = static_cast<float32>(0.00035 * kMotorsTorque);
    for (float32 ak : a) reward -= cost * throttle(ak);

    double result = reward;
    bool terminated = false;
    if (game_over_ || pos.x < 0) {
      result = -100;
      terminated = true;
    }
    if (pos.x > (kTerrainLength - kTerrainGrass) * kTerrainStep) terminated = true;
    return StepResult{result, terminated};
  });
}

void BipedalWalkerEnv::write_obs(void* dst) const { std::memcpy(dst, obs_.data(), sizeof(obs_)); }

void BipedalWalkerEnv::render(uint8_t* rgb, RenderSlot& /*slot*/) { draw_bipedal_walker(rgb, scene_); }

}  // namespace envhive::box2d
