// Built without FMA contraction (-ffp-contract=off): Python's double arithmetic, operation by operation.
#include "car_dynamics.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "pybox2d.h"

namespace envhive::box2d {

namespace {

constexpr double kSize = 0.02;
constexpr double kEnginePower = 100000000 * kSize * kSize;
constexpr double kWheelMomentOfInertia = 4000 * kSize * kSize;
constexpr double kFrictionLimit = 1000000 * kSize * kSize;  // friction ~= mass ~= size^2
constexpr int kWheelR = 27, kWheelW = 14;
constexpr int kWheelPos[4][2] = {{-55, +80}, {+55, +80}, {-55, -82}, {+55, -82}};
constexpr int kHullPoly1[4][2] = {{-60, +130}, {+60, +130}, {+60, +110}, {-60, +110}};
constexpr int kHullPoly2[4][2] = {{-15, +120}, {+15, +120}, {+20, +20}, {-20, 20}};
constexpr int kHullPoly3[8][2] = {{+25, +20}, {+50, -10}, {+50, -40}, {+20, -90},
                                  {-20, -90}, {-50, -40}, {-50, -10}, {-25, +20}};
constexpr int kHullPoly4[4][2] = {{-50, -120}, {+50, -120}, {+50, -90}, {-50, -90}};
constexpr std::array<uint8_t, 3> kWheelColor{0, 0, 0}, kMudColor{102, 102, 0};

template <size_t N>
b2PolygonShape scaled_polygon(const int (&pts)[N][2], double k) {
  std::array<std::pair<double, double>, N> v;
  for (size_t i = 0; i < N; ++i) v[i] = {pts[i][0] * k * kSize, pts[i][1] * k * kSize};
  return polygon(v);
}

double np_sign(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : v); }

}  // namespace

Car::Car(b2World& world, double init_angle, double init_x, double init_y) : world_(world) {
  hull_ = add_body(world_, b2_dynamicBody, init_x, init_y, init_angle);
  add_fixture(hull_, scaled_polygon(kHullPoly1, 1), {.density = 1.0});
  add_fixture(hull_, scaled_polygon(kHullPoly2, 1), {.density = 1.0});
  add_fixture(hull_, scaled_polygon(kHullPoly3, 1), {.density = 1.0});
  add_fixture(hull_, scaled_polygon(kHullPoly4, 1), {.density = 1.0});
  const int wheel_poly[4][2] = {{-kWheelW, +kWheelR}, {+kWheelW, +kWheelR}, {+kWheelW, -kWheelR}, {-kWheelW, -kWheelR}};
  for (int k = 0; k < 4; ++k) {
    const double wx = kWheelPos[k][0], wy = kWheelPos[k][1];
    const double front_k = 1.0;
    Wheel& w = wheels_[static_cast<size_t>(k)];
    w.body = add_body(world_, b2_dynamicBody, init_x + wx * kSize, init_y + wy * kSize, init_angle);
    add_fixture(w.body, scaled_polygon(wheel_poly, front_k),
                {.density = 0.1, .restitution = 0.0, .category = 0x0020, .mask = 0x001});
    w.wheel_rad = front_k * kWheelR * kSize;
    b2RevoluteJointDef rjd = revolute_joint(hull_, w.body);
    rjd.localAnchorA = vec(wx * kSize, wy * kSize);
    rjd.localAnchorB = vec(0, 0);
    rjd.enableMotor = true;
    rjd.enableLimit = true;
    rjd.maxMotorTorque = f32(180 * 900 * kSize * kSize);
    rjd.motorSpeed = 0;
    rjd.lowerAngle = f32(-0.4);
    rjd.upperAngle = f32(+0.4);
    w.joint = static_cast<b2RevoluteJoint*>(world_.CreateJoint(&rjd));
    w.body->SetUserData(static_cast<CarRacingBody*>(&w));
  }
}

Car::~Car() {
  world_.DestroyBody(hull_);
  for (Wheel& w : wheels_) world_.DestroyBody(w.body);
}

void Car::gas(double gas) {
  gas = std::min(std::max(gas, 0.0), 1.0);
  for (size_t k = 2; k < 4; ++k) {  // rear-wheel drive: gradually up, immediately down
    double diff = gas - wheels_[k].gas;
    if (diff > 0.1) diff = 0.1;
    wheels_[k].gas += diff;
  }
}

void Car::brake(double b) {
  for (Wheel& w : wheels_) w.brake = b;
}

void Car::steer(double s) {
  wheels_[0].steer = s;
  wheels_[1].steer = s;
}

void Car::step(double dt) {
  for (Wheel& w : wheels_) {
    // Turn the steering towards its target.
    const double off = w.steer - static_cast<double>(w.joint->GetJointAngle());
    w.joint->SetMotorSpeed(f32(np_sign(off) * std::min(50.0 * std::abs(off), 3.0)));

    // On a road tile the tyre grips fully; on grass 60%.
    const bool grass = w.tiles == 0;
    const double friction_limit = grass ? kFrictionLimit * 0.6 : std::max(kFrictionLimit * 0.6, kFrictionLimit * 1.0);

    const b2Vec2 forw = w.body->GetWorldVector(b2Vec2(0, 1));
    const b2Vec2 side = w.body->GetWorldVector(b2Vec2(1, 0));
    const b2Vec2 v = w.body->GetLinearVelocity();
    const double vf = static_cast<double>(forw.x) * v.x + static_cast<double>(forw.y) * v.y;  // forward speed
    const double vs = static_cast<double>(side.x) * v.x + static_cast<double>(side.y) * v.y;  // side speed

    // The engine's power spins the wheel (5.0: no division by zero at rest).
    w.omega += dt * kEnginePower * w.gas / kWheelMomentOfInertia / (std::abs(w.omega) + 5.0);
    if (w.brake >= 0.9) {
      w.omega = 0;
    } else if (w.brake > 0) {
      const double dir = -np_sign(w.omega);
      double val = 15 * w.brake;  // BRAKE_FORCE, radians per second
      if (std::abs(val) > std::abs(w.omega)) val = std::abs(w.omega);
      w.omega += dir * val;
    }
    w.phase += w.omega * dt;

    const double vr = w.omega * w.wheel_rad;  // the tyre's rolling speed
    double f_force = -vf + vr;
    double p_force = -vs;
    f_force *= 205000 * kSize * kSize;
    p_force *= 205000 * kSize * kSize;
    double force = std::sqrt(f_force * f_force + p_force * p_force);

    // Skid marks (drawn only in rgb_array frames).
    if (std::abs(force) > 2.0 * friction_limit) {
      const b2Vec2 pos = w.body->GetPosition();
      if (w.skid_particle && w.skid_particle->grass == grass && w.skid_particle->poly.size() < 30) {
        w.skid_particle->poly.push_back({pos.x, pos.y});
      } else if (!w.skid_start) {
        w.skid_start = true;
      } else {
        // Gymnasium keeps skid_start as pybox2d's live view of the wheel's position, so the
        // mark starts where the wheel is now: both its first points are the current position.
        auto p = std::make_shared<SkidParticle>(SkidParticle{grass ? kMudColor : kWheelColor,
                                                             {{pos.x, pos.y}, {pos.x, pos.y}}, grass});
        particles_.push_back(p);
        if (particles_.size() > 30) particles_.pop_front();
        w.skid_particle = std::move(p);
        w.skid_start = false;
      }
    } else {
      w.skid_start = false;
      w.skid_particle.reset();
    }

    if (std::abs(force) > friction_limit) {
      f_force /= force;
      p_force /= force;
      force = friction_limit;
      f_force *= force;
      p_force *= force;
    }
    w.omega -= dt * f_force * w.wheel_rad / kWheelMomentOfInertia;
    w.body->ApplyForceToCenter(vec(p_force * side.x + f_force * forw.x, p_force * side.y + f_force * forw.y), true);
  }
}

}  // namespace envhive::box2d
