// Build with -ffp-contract=off: every expression below must round exactly as CPython's would.
#include "scenes.h"

#include <cmath>
#include <numbers>

#include "../../../core/numpy_kernels.h"  // numpy's float32 sin loop

namespace envhive::classic_control {

namespace {

constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kBlack{0, 0, 0};

// Python's int() of a float, for the scalar arguments (circle centres and radii).
int py_int(double v) { return static_cast<int>(std::trunc(v)); }

Point gfx_point(double x, double y) { return {gfx_coord(x), gfx_coord(y)}; }

}  // namespace

void draw_cartpole(uint8_t* rgb, const double state[4]) {
  Canvas cv(rgb, kCartPoleWidth, kCartPoleHeight, /*flip_y=*/true);
  const double world_width = 2.4 * 2;  // x_threshold * 2
  const double scale = kCartPoleWidth / world_width;
  const double polewidth = 10.0;
  const double polelen = scale * (2 * 0.5);  // 2 * length
  const double cartwidth = 50.0, cartheight = 30.0;
  cv.fill(kWhite);

  double l = -cartwidth / 2, r = cartwidth / 2, t = cartheight / 2, b = -cartheight / 2;
  const double axleoffset = cartheight / 4.0;
  const double cartx = state[0] * scale + kCartPoleWidth / 2.0;
  const double carty = 100;
  const Point cart[4] = {gfx_point(l + cartx, b + carty), gfx_point(l + cartx, t + carty),
                         gfx_point(r + cartx, t + carty), gfx_point(r + cartx, b + carty)};
  cv.aapolygon(cart, 4, kBlack);
  cv.filled_polygon(cart, 4, kBlack);

  l = -polewidth / 2, r = polewidth / 2, t = polelen - polewidth / 2, b = -polewidth / 2;
  const Vec2 corners[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
  Point pole[4];
  for (int i = 0; i < 4; ++i) {
    const Vec2 v = pygame_rotate_rad(corners[i], -state[2]);
    pole[i] = gfx_point(v.x + cartx, v.y + carty + axleoffset);
  }
  constexpr Rgb kPole{202, 152, 101};
  cv.aapolygon(pole, 4, kPole);
  cv.filled_polygon(pole, 4, kPole);

  constexpr Rgb kAxle{129, 132, 203};
  const int ax = py_int(cartx), ay = py_int(carty + axleoffset), ar = py_int(polewidth / 2);
  cv.aacircle(ax, ay, ar, kAxle);
  cv.filled_circle(ax, ay, ar, kAxle);

  cv.hline(0, kCartPoleWidth, static_cast<int>(carty), kBlack);
}

void draw_acrobot(uint8_t* rgb, const double s[4], bool float32_state) {
  Canvas cv(rgb, kAcrobotSize, kAcrobotSize, /*flip_y=*/true);
  cv.fill(kWhite);
  constexpr double kLink1 = 1.0, kLink2 = 1.0;
  const double bound = kLink1 + kLink2 + 0.2;
  const double scale = kAcrobotSize / (bound * 2);
  const double offset = kAcrobotSize / 2.0;  // SCREEN_DIM / 2 (true division: 250.0)

  const double p1x = -kLink1 * std::cos(s[0]) * scale;
  const double p1y = kLink1 * std::sin(s[0]) * scale;
  // xys = np.array([[0, 0], p1])[:, ::-1]
  const double xys[2][2] = {{0.0, 0.0}, {p1y, p1x}};
  double thetas[2];
  if (float32_state) {
    const float half_pi = static_cast<float>(std::numbers::pi / 2);
    const float s0 = static_cast<float>(s[0]), s1 = static_cast<float>(s[1]);
    thetas[0] = s0 - half_pi;  // float32 operations, rounded as NumPy rounds them
    thetas[1] = (s0 + s1) - half_pi;
  } else {
    thetas[0] = s[0] - std::numbers::pi / 2;
    thetas[1] = s[0] + s[1] - std::numbers::pi / 2;
  }
  const double link_lengths[2] = {kLink1 * scale, kLink2 * scale};

  cv.line(py_int(-2.2 * scale + offset), py_int(1 * scale + offset), py_int(2.2 * scale + offset),
          py_int(1 * scale + offset), kBlack);

  constexpr Rgb kLink{0, 204, 204};
  constexpr Rgb kJoint{204, 204, 0};
  for (int k = 0; k < 2; ++k) {
    const double x = xys[k][0] + offset, y = xys[k][1] + offset;
    const double l = 0, r = link_lengths[k], t = 0.1 * scale, b = -0.1 * scale;
    const Vec2 corners[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
    Point pts[4];
    for (int i = 0; i < 4; ++i) {
      const Vec2 v = pygame_rotate_rad(corners[i], thetas[k]);
      pts[i] = gfx_point(v.x + x, v.y + y);
    }
    cv.aapolygon(pts, 4, kLink);
    cv.filled_polygon(pts, 4, kLink);
    cv.aacircle(py_int(x), py_int(y), py_int(0.1 * scale), kJoint);
    cv.filled_circle(py_int(x), py_int(y), py_int(0.1 * scale), kJoint);
  }
}

namespace {

// The car's placement for a float64 (T = double) or float32 (T = float) position: with NumPy 2's
// promotion a Python float meeting an np.float32 is cast to float32 first and the operation is
// done in float32, so the same source expression rounds differently by state dtype.
template <class T>
struct CarFrame {
  T x_offset;  // (pos - min_position) * scale
  T y_offset;  // _height(pos) * scale
  double angle;  // math.cos(3 * pos)
};

double np_sin(double v) { return std::sin(v); }
float np_sin(float v) { return npk::scalar_f32(npk::Ufunc::kSinF32, v); }

template <class T>
CarFrame<T> car_frame(T pos, double min_position, double scale) {
  const T height = np_sin(static_cast<T>(3) * pos) * static_cast<T>(0.45) + static_cast<T>(0.55);
  return {(pos - static_cast<T>(min_position)) * static_cast<T>(scale), height * static_cast<T>(scale),
          std::cos(static_cast<double>(static_cast<T>(3) * pos))};
}

template <class T>
void draw_car(Canvas& cv, const CarFrame<T>& f) {
  constexpr double carwidth = 40, carheight = 20, clearance = 10;
  const double l = -carwidth / 2, r = carwidth / 2, t = carheight, b = 0;
  const Vec2 corners[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
  Point body[4];
  for (int i = 0; i < 4; ++i) {
    const Vec2 c = pygame_rotate_rad(corners[i], f.angle);
    // c[0] + x_offset; (c[1] + clearance) + y_offset -- a Python float meets a T
    body[i] = gfx_point(static_cast<double>(static_cast<T>(c.x) + f.x_offset),
                        static_cast<double>(static_cast<T>(c.y + clearance) + f.y_offset));
  }
  cv.aapolygon(body, 4, kBlack);
  cv.filled_polygon(body, 4, kBlack);
  constexpr Rgb kWheel{128, 128, 128};
  for (const Vec2 w : {Vec2{carwidth / 4, 0}, Vec2{-carwidth / 4, 0}}) {
    const Vec2 c = pygame_rotate_rad(w, f.angle);
    const int wx = py_int(static_cast<double>(static_cast<T>(c.x) + f.x_offset));
    const int wy = py_int(static_cast<double>(static_cast<T>(c.y + clearance) + f.y_offset));
    cv.aacircle(wx, wy, py_int(carheight / 2.5), kWheel);
    cv.filled_circle(wx, wy, py_int(carheight / 2.5), kWheel);
  }
}

}  // namespace

void draw_mountain_car(uint8_t* rgb, double position, double goal_position, bool float32_state) {
  constexpr double kMin = -1.2, kMax = 0.6;
  Canvas cv(rgb, kMountainCarWidth, kMountainCarHeight, /*flip_y=*/true);
  const double world_width = kMax - kMin;
  const double scale = kMountainCarWidth / world_width;
  cv.fill(kWhite);

  // The track: np.linspace(min, max, 100) (i * step + start, the last point exactly max), its
  // heights, scaled; pygame.draw.aalines takes the points as float32.
  constexpr int kPoints = 100;
  const double step = (kMax - kMin) / (kPoints - 1);
  float px[kPoints], py[kPoints];
  for (int i = 0; i < kPoints; ++i) {
    const double xs = i == kPoints - 1 ? kMax : static_cast<double>(i) * step + kMin;
    px[i] = static_cast<float>((xs - kMin) * scale);
    py[i] = static_cast<float>((std::sin(3 * xs) * 0.45 + 0.55) * scale);
  }
  for (int i = 1; i < kPoints; ++i) cv.aaline(px[i - 1], py[i - 1], px[i], py[i], kBlack);

  if (float32_state)
    draw_car(cv, car_frame(static_cast<float>(position), kMin, scale));
  else
    draw_car(cv, car_frame(position, kMin, scale));

  const int flagx = py_int((goal_position - kMin) * scale);
  const int flagy1 = py_int((std::sin(3 * goal_position) * 0.45 + 0.55) * scale);
  const int flagy2 = flagy1 + 50;
  cv.vline(flagx, flagy1, flagy2, kBlack);
  const Point flag[3] = {{flagx, flagy2}, {flagx, flagy2 - 10}, {flagx + 25, flagy2 - 5}};
  constexpr Rgb kFlag{204, 204, 0};
  cv.aapolygon(flag, 3, kFlag);
  cv.filled_polygon(flag, 3, kFlag);
}

const RgbaImage& ArrowSizes::at(int side) {
  auto it = sized_.find(side);
  if (it == sized_.end()) it = sized_.emplace(side, smoothscale_shrink(*arrow_, side, side)).first;
  return it->second;
}

void draw_pendulum(uint8_t* rgb, double theta, bool has_last_u, float last_u, ArrowSizes& arrows) {
  Canvas cv(rgb, kPendulumSize, kPendulumSize, /*flip_y=*/true);
  cv.fill(kWhite);
  const double bound = 2.2;
  const double scale = kPendulumSize / (bound * 2);
  const int offset = kPendulumSize / 2;  // screen_dim // 2
  const double rod_length = 1 * scale, rod_width = 0.2 * scale;
  const double l = 0, r = rod_length, t = rod_width / 2, b = -rod_width / 2;
  const double angle = theta + std::numbers::pi / 2;
  const Vec2 corners[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
  Point rod[4];
  for (int i = 0; i < 4; ++i) {
    const Vec2 c = pygame_rotate_rad(corners[i], angle);
    rod[i] = gfx_point(c.x + offset, c.y + offset);
  }
  constexpr Rgb kRod{204, 77, 77};
  cv.aapolygon(rod, 4, kRod);
  cv.filled_polygon(rod, 4, kRod);
  cv.aacircle(offset, offset, py_int(rod_width / 2), kRod);
  cv.filled_circle(offset, offset, py_int(rod_width / 2), kRod);
  const Vec2 end = pygame_rotate_rad({rod_length, 0}, angle);
  const int ex = py_int(end.x + offset), ey = py_int(end.y + offset);
  cv.aacircle(ex, ey, py_int(rod_width / 2), kRod);
  cv.filled_circle(ex, ey, py_int(rod_width / 2), kRod);

  if (has_last_u) {
    // float(scale * np.abs(last_u) / 2): float32 arithmetic (NEP 50), then int() for the size
    const float side_f = static_cast<float>(scale) * std::fabs(last_u) / 2.0f;
    const int side = py_int(static_cast<double>(side_f));
    const RgbaImage& img = arrows.at(side);
    // blit at offset - rect.center, rect.center = size // 2; flipped in x when last_u > 0, always in y
    cv.blit_alpha(img, offset - side / 2, offset - side / 2, last_u > 0, true);
  }
  cv.aacircle(offset, offset, py_int(0.05 * scale), kBlack);
  cv.filled_circle(offset, offset, py_int(0.05 * scale), kBlack);
}

}  // namespace envhive::classic_control
