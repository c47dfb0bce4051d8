// dm_control's quadruped escape (suite/quadruped.py, the Escape task): climb out of a bowl of random
// bumps. Every episode draws new terrain into the heightfield, so each env has its own model copy:
// a sinusoidal bowl times bumps drawn uniformly on a coarse grid and zoomed to the heightfield's
// resolution with scipy.ndimage.zoom's cubic spline (spline_zoom.h, scipy's arithmetic), stored as
// float32 as MuJoCo keeps heightfields.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "quadruped_body.h"
#include "spline_zoom.h"

namespace envhive::dmc {

// Escape.initialize_episode's terrain for a res x res heightfield of half-size `half_size` (the
// first of hfield_size), drawing its bumps from `random`; row-major, as hfield_data holds it.
inline std::vector<float> escape_terrain(RandomState& random, int64_t res, double half_size) {
  constexpr double kSmoothness = 0.15;  // _TERRAIN_SMOOTHNESS
  constexpr double kBumpScale = 2;      // _TERRAIN_BUMP_SCALE
  // np.ogrid[-1:1:res*1j] (complex: real part i * step + -1), clip(sqrt(col**2 + row**2), .04, 1)
  const double step = (1.0 - -1.0) / static_cast<double>(res - 1);
  std::vector<double> grid(static_cast<size_t>(res));
  for (int64_t i = 0; i < res; ++i) grid[static_cast<size_t>(i)] = static_cast<double>(i) * step + -1.0;
  // bumps: uniform(_TERRAIN_SMOOTHNESS, 1, (bump_res, bump_res)), then ndimage.zoom(bumps, res / bump_res)
  const double terrain_size = 2 * half_size;
  const auto bump_res = static_cast<int64_t>(terrain_size / kBumpScale);
  std::vector<double> bumps(static_cast<size_t>(bump_res * bump_res));
  for (double& b : bumps) b = random.uniform(kSmoothness, 1);
  const double zoom = static_cast<double>(res) / static_cast<double>(bump_res);
  const auto out = static_cast<int64_t>(std::nearbyint(static_cast<double>(bump_res) * zoom));  // round()
  if (out != res) throw std::logic_error("quadruped escape: the zoomed bumps do not cover the heightfield");
  const std::vector<double> smooth = spline_zoom(bumps, bump_res, bump_res, out, out);
  std::vector<float> terrain(static_cast<size_t>(res * res));
  for (int64_t r = 0; r < res; ++r)
    for (int64_t c = 0; c < res; ++c) {
      const double row = grid[static_cast<size_t>(r)], col = grid[static_cast<size_t>(c)];
      const double radius = std::clamp(std::sqrt(col * col + row * row), .04, 1.0);
      const double bowl = .5 - npk::element(npk::Ufunc::kCos, 2 * npcompat::kPi * radius, static_cast<size_t>(res * res)) / 2;
      terrain[static_cast<size_t>(r * res + c)] = static_cast<float>(bowl * smooth[static_cast<size_t>(r * res + c)]);
    }
  return terrain;
}

class QuadrupedEscapeEnv final : public QuadrupedBody {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) {
    int64_t rangefinders = 0;
    for (int s = 0; s < m.nsensor; ++s) rangefinders += m.sensor_type[s] == mjSENS_RANGEFINDER ? m.sensor_dim[s] : 0;
    ObsLeaves leaves = common_observation(m);
    leaves.push_back({"origin", {3}});
    leaves.push_back({"rangefinder", {rangefinders}});
    return leaves;
  }

  QuadrupedEscapeEnv(const Params& p, int env_id, const DmcTask&)
      : QuadrupedBody(p, env_id), workspace_(id(mjOBJ_SITE, "workspace")) {
    for (int s = 0; s < m_->nsensor; ++s)
      if (m_->sensor_type[s] == mjSENS_RANGEFINDER) rangefinders_.push_back(s);
    if (m_->nhfield < 1 || m_->hfield_nrow[kHeightfield] != m_->hfield_ncol[kHeightfield])
      throw std::logic_error("quadruped escape: the model has no square heightfield");
    own_model();
  }

 protected:
  void initialize_episode() override {
    mjModel* m = own_model();
    const int res = m->hfield_nrow[kHeightfield];
    const std::vector<float> terrain = escape_terrain(random(), res, m->hfield_size[4 * kHeightfield]);
    std::copy(terrain.begin(), terrain.end(), m->hfield_data + m->hfield_adr[kHeightfield]);
    terrain_ = next_terrain_.fetch_add(1, std::memory_order_relaxed);
    double orientation[4];
    random_orientation(orientation);
    find_non_contacting_height(orientation);
  }

  void observe(ObsWriter& w) const override {
    put_common(w);
    double origin[3];  // origin(): -torso_pos.dot(torso_frame)
    in_torso_frame(torso_pos(), origin);
    for (double& v : origin) v = -v;
    w.put(origin, 3);
    size_t readings = 0;  // rangefinder(): 1 where nothing is hit, else np.tanh of the readings' array
    for (const int s : rangefinders_) readings += static_cast<size_t>(m_->sensor_dim[s]);
    for (const int s : rangefinders_)
      for (int k = 0; k < m_->sensor_dim[s]; ++k) {
        const double r = d_->sensordata[m_->sensor_adr[s] + k];
        w.put(r == -1.0 ? 1.0 : npk::element(npk::Ufunc::kTanh, r, readings));
      }
  }

  // The episode's terrain on the GPU (dm_control re-uploads it with mjr_uploadHField every reset).
  void before_draw(mujoco::SceneRenderer& renderer, const mujoco::SceneOptions& scene) override {
    renderer.upload_hfield(shared_model(), m_, kHeightfield, terrain_, scene);
  }

  double reward() const override {
    const double terrain_size = m_->hfield_size[4 * kHeightfield];
    const double escape = tolerance(npk::norm(d_->site_xpos + 3 * workspace_, 3),  // origin_distance()
                                    {.lower = terrain_size,
                                     .upper = kInf,
                                     .margin = terrain_size,
                                     .sigmoid = Sigmoid::kLinear,
                                     .value_at_margin = 0},
                                    Arg::array(1));  // origin_distance(): a 0-d array
    return upright_reward(upright_cos20()) * escape;
  }

 private:
  static constexpr int kHeightfield = 0;  // _HEIGHTFIELD_ID
  // np.cos(np.deg2rad(20)): deg2rad is x * (pi / 180).
  static double upright_cos20() {
    static const double cosine = npk::scalar(npk::Ufunc::kCos, 20 * (npcompat::kPi / 180.0));
    return cosine;
  }

  // Every episode's terrain gets a number unique in the process: a renderer shared by many envs
  // knows which one it holds.
  static inline std::atomic<uint64_t> next_terrain_{1};

  int workspace_;
  std::vector<int> rangefinders_;
  uint64_t terrain_ = 0;
};

}  // namespace envhive::dmc
