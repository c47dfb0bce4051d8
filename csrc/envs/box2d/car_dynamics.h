// gymnasium.envs.box2d.car_dynamics.Car: a top-down car of a four-fixture hull and four wheels on
// revolute joints, its rear-wheel drive, brakes and steering, the tyre friction model (grass off
// the road tiles) and the skid marks it leaves (render-only particles), as Gymnasium computes them.
#pragma once

#include <Box2D/Box2D.h>

#include <array>
#include <deque>
#include <memory>
#include <vector>

namespace envhive::box2d {

// What a Box2D body's user data points at, for CarRacing's friction detector.
struct CarRacingBody {
  enum class Kind { kTile, kWheel } kind;
  explicit CarRacingBody(Kind k) : kind(k) {}
};

// A skid mark: a polyline of wheel positions.
struct SkidParticle {
  std::array<uint8_t, 3> color;
  std::vector<std::array<double, 2>> poly;
  bool grass;
};

class Car {
 public:
  struct Wheel : CarRacingBody {
    Wheel() : CarRacingBody(Kind::kWheel) {}
    b2Body* body = nullptr;
    b2RevoluteJoint* joint = nullptr;
    double wheel_rad = 0, gas = 0, brake = 0, steer = 0, phase = 0, omega = 0;
    bool skid_start = false;  // Gymnasium's skid_start is not None
    std::shared_ptr<SkidParticle> skid_particle;
    int tiles = 0;  // road tiles the wheel touches (all have road_friction 1)
  };

  Car(b2World& world, double init_angle, double init_x, double init_y);
  ~Car();  // destroys the bodies (Gymnasium's destroy())
  Car(const Car&) = delete;
  Car& operator=(const Car&) = delete;

  // Controls, with Gymnasium's float64 values.
  void gas(double gas);
  void brake(double b);
  void steer(double s);
  // Tyre forces, wheel spin and skid marks for one time step.
  void step(double dt);

  b2Body* hull() const { return hull_; }
  const std::array<Wheel, 4>& wheels() const { return wheels_; }
  const std::deque<std::shared_ptr<SkidParticle>>& particles() const { return particles_; }

 private:
  b2World& world_;
  b2Body* hull_ = nullptr;
  std::array<Wheel, 4> wheels_;
  std::deque<std::shared_ptr<SkidParticle>> particles_;  // the last 30 (deque(maxlen=30))
};

}  // namespace envhive::box2d
