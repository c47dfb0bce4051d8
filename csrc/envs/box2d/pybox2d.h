// What Gymnasium's Box2D environments get from pybox2d (the `box2d` package), reproduced on Box2D's
// C++ API so that the same numbers come out:
//  - every number Python hands Box2D crosses as a float32 (SWIG's float conversion: the double,
//    rounded to nearest); every number Box2D hands back is that float32, read as a Python float;
//  - Python-side arithmetic between those reads and writes is double (Python floats, np.float64);
//  - the body, fixture and joint definitions pybox2d's keyword constructors build (their defaults
//    are Box2D's own: friction 0.2, restitution 0, density 0, category 0x0001, mask 0xFFFF);
//  - b2Assert throws (pybox2d raises AssertionError); here it becomes a std::runtime_error naming
//    the failed condition (b2assert/Python.h).
#pragma once

#include <Box2D/Box2D.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace envhive::box2d {

// A Python float as pybox2d passes it to Box2D.
inline float32 f32(double v) { return static_cast<float32>(v); }
inline b2Vec2 vec(double x, double y) { return b2Vec2(f32(x), f32(y)); }

// fixtureDef(shape=..., density=..., friction=..., restitution=..., categoryBits=..., maskBits=...)
struct FixtureSpec {
  double density = 0.0, friction = 0.2, restitution = 0.0;
  uint16 category = 0x0001, mask = 0xFFFF;
  bool sensor = false;
};

inline b2Fixture* add_fixture(b2Body* body, const b2Shape& shape, const FixtureSpec& spec) {
  b2FixtureDef def;
  def.shape = &shape;
  def.density = f32(spec.density);
  def.friction = f32(spec.friction);
  def.restitution = f32(spec.restitution);
  def.filter.categoryBits = spec.category;
  def.filter.maskBits = spec.mask;
  def.isSensor = spec.sensor;
  return body->CreateFixture(&def);
}

// world.CreateDynamicBody / CreateStaticBody(position=(x, y), angle=a) without fixtures.
inline b2Body* add_body(b2World& world, b2BodyType type, double x, double y, double angle = 0.0) {
  b2BodyDef def;
  def.type = type;
  def.position = vec(x, y);
  def.angle = f32(angle);
  return world.CreateBody(&def);
}

// polygonShape(vertices=[...]): the vertices as float32, then b2PolygonShape::Set (convex hull,
// welded points, centroid), as pybox2d's vertices setter does.
template <class Points>
b2PolygonShape polygon(const Points& points) {
  b2Vec2 v[b2_maxPolygonVertices];
  int32 n = 0;
  for (const auto& [x, y] : points) v[n++] = vec(x, y);
  b2PolygonShape shape;
  shape.Set(v, n);
  return shape;
}

// polygonShape(box=(hx, hy))
inline b2PolygonShape box(double hx, double hy) {
  b2PolygonShape shape;
  shape.SetAsBox(f32(hx), f32(hy));
  return shape;
}

// edgeShape(vertices=[(x1, y1), (x2, y2)])
inline b2EdgeShape edge(double x1, double y1, double x2, double y2) {
  b2EdgeShape shape;
  shape.Set(vec(x1, y1), vec(x2, y2));
  return shape;
}

// revoluteJointDef(bodyA=a, bodyB=b, ...): pybox2d's constructor sets referenceAngle to
// b.angle - a.angle (Python floats) unless it is given.
inline b2RevoluteJointDef revolute_joint(b2Body* a, b2Body* b) {
  b2RevoluteJointDef def;
  def.bodyA = a;
  def.bodyB = b;
  def.referenceAngle = f32(static_cast<double>(b->GetAngle()) - static_cast<double>(a->GetAngle()));
  return def;
}

// `transform * v * scale` in a Gymnasium renderer: pybox2d's b2Transform.__mul__ and
// b2Vec2.__mul__(float32), all in float32.
inline b2Vec2 scaled(const b2Transform& t, const b2Vec2& v, float32 scale) {
  const float32 x = (t.q.c * v.x - t.q.s * v.y) + t.p.x;
  const float32 y = (t.q.s * v.x + t.q.c * v.y) + t.p.y;
  return b2Vec2(x * scale, y * scale);
}

// Runs f; a failed b2Assert inside it becomes a std::runtime_error naming the condition.
template <class F>
decltype(auto) guard_asserts(F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const b2AssertException&) {
    const char* condition = failed_assertion ? failed_assertion : "?";
    failed_assertion = nullptr;
    throw std::runtime_error(std::string("Box2D assertion failed: ") + condition);
  }
}

}  // namespace envhive::box2d
