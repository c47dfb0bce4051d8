// HandManipulate{Block,Egg,Pen}[Rotate*|Full][_{Boolean,Continuous}TouchSensors][Dense]-v1
// (shadow_dexterous_hand/manipulate*.py MujocoManipulateEnv): turn (and move) an object in the hand
// to a goal pose. The reset keeps the env's mjData (the reference restores only time, qpos and
// qvel, so the solver's warm start carries over), places the object, lets it settle for 10 steps and
// retries until it lies on the palm.
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "hand.h"
#include "hand_env.h"
#include "rotations.h"

namespace envhive::robotics {

namespace {

constexpr double kPi = 3.141592653589793;

// rotations.get_parallel_rotations() as quaternions: the 24 axis-aligned orientations.
std::vector<std::array<double, 4>> parallel_quats() {
  const double mult90[4] = {0.0, kPi / 2, -kPi / 2, kPi};
  std::vector<std::array<double, 3>> rotations_found;
  for (const double a : mult90)
    for (const double b : mult90)
      for (const double c : mult90) {
        const double euler[3] = {a, b, c};
        double m[9], canonical[3];
        rotations::euler2mat(euler, m);
        rotations::mat2euler(m, canonical);
        for (double& v : canonical) v = std::nearbyint(v / (kPi / 2));  // np.round: half to even
        if (canonical[0] == -2) canonical[0] = 2;
        if (canonical[2] == -2) canonical[2] = 2;
        for (double& v : canonical) v *= kPi / 2;
        bool fresh = true;
        for (const auto& r : rotations_found) fresh = fresh && !(r[0] == canonical[0] && r[1] == canonical[1] && r[2] == canonical[2]);
        if (fresh) rotations_found.push_back({canonical[0], canonical[1], canonical[2]});
      }
  if (rotations_found.size() != 24) throw std::logic_error("get_parallel_rotations: expected 24 rotations");
  std::vector<std::array<double, 4>> quats;
  for (const auto& r : rotations_found) {
    std::array<double, 4> q{};
    rotations::euler2quat(r.data(), q.data());
    quats.push_back(q);
  }
  return quats;
}

// manipulate.quat_from_angle_and_axis.
void quat_from_angle_and_axis(double angle, double axis[3], double q[4]) {
  const double n = numerics::blas_norm(axis, 3);
  for (int k = 0; k < 3; ++k) axis[k] /= n;
  q[0] = numerics::cos(angle / 2.0);
  const double s = numerics::sin(angle / 2.0);
  for (int k = 0; k < 3; ++k) q[1 + k] = s * axis[k];
  const double qn = numerics::blas_norm(q, 4);
  for (int k = 0; k < 4; ++k) q[k] /= qn;
}

struct ManipulateModel {
  ModelPtr model;
  int object_qpos = 0, object_dof = 0, center_site = 0;
  std::vector<int> touch;  // sensor ids of the touch sensors (robot0:TS_*), in id order
};

std::shared_ptr<const ManipulateModel> manipulate_model(const HandManipulateTask& t) {
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<const ManipulateModel>> cache;
  const std::string xml = "hand/manipulate_" + t.object + (t.touch.empty() ? "" : "_touch_sensors") + ".xml";
  std::lock_guard<std::mutex> lock(mu);
  if (auto cached = cache[xml].lock()) return cached;
  auto s = std::make_shared<ManipulateModel>();
  s->model = load_robot_model(asset_path(xml));
  const mjModel* m = s->model.get();
  const int joint = name_id(m, mjOBJ_JOINT, "object:joint");
  s->object_qpos = m->jnt_qposadr[joint];
  s->object_dof = m->jnt_dofadr[joint];
  s->center_site = name_id(m, mjOBJ_SITE, "object:center");
  for (int i = 0; i < m->nsensor; ++i) {
    const char* name = mj_id2name(m, mjOBJ_SENSOR, i);
    if (name && std::strstr(name, "robot0:TS_")) s->touch.push_back(i);
  }
  cache[xml] = s;
  return s;
}

class HandManipulateEnv final : public HandEnv {
 public:
  static constexpr int kMaxPlacements = 10000;

  HandManipulateEnv(const Config& c, const HandManipulateTask& t, std::shared_ptr<const ManipulateModel> mm)
      : HandEnv(mm->model), t_(t), mm_(std::move(mm)), dense_(dense_reward(c)) {
    pen_ = t.object == "pen";
    position_ = t.target_position == "random";
    distance_threshold_ = pen_ ? 0.05 : 0.01;
    if (t.target_rotation == "parallel") parallel_ = parallel_quats();
    obs_.resize(61 + mm_->touch.size());
    mj_forward(m_, d_);  // _env_setup
    initial_.time = d_->time;
    initial_.qpos.assign(d_->qpos, d_->qpos + m_->nq);
    initial_.qvel.assign(d_->qvel, d_->qvel + m_->nv);
  }

  void reset() override {
    // The reference retries forever; a placement that never lands on the palm is an error here
    // (envhive.EnvError), not a hang. A placement fails with probability well below 1 in 10.
    int tries = 0;
    while (!reset_sim())
      if (++tries == kMaxPlacements)
        throw std::runtime_error("HandManipulate: the object fell off the palm in " + std::to_string(kMaxPlacements) +
                                 " placements in a row");
    sample_goal();
    observe();
    is_success_ = success(achieved_.data(), goal_.data());
  }

  StepResult step(const void* action) override {
    act(action);
    observe();
    is_success_ = success(achieved_.data(), goal_.data());
    StepResult r;
    if (dense_) {
      double d_pos, d_rot;
      distances(achieved_.data(), goal_.data(), d_pos, d_rot);
      r.reward = -(10.0 * d_pos + d_rot);
    } else {
      r.reward = static_cast<double>(is_success_ - 1.0f);  // float32 success - 1.0 stays float32
    }
    return r;
  }

  void write_obs_leaves(void* const* dst) const override {
    std::memcpy(dst[0], achieved_.data(), sizeof(achieved_));
    std::memcpy(dst[1], goal_.data(), sizeof(goal_));
    std::memcpy(dst[2], obs_.data(), sizeof(double) * obs_.size());
  }
  void write_info(void* const* dst) const override { std::memcpy(dst[0], &is_success_, sizeof(float)); }

 private:
  // MujocoManipulateEnv._reset_sim: the initial time, qpos and qvel (no mj_resetData), the object
  // turned and moved at random, 10 settling steps; false when it fell off the palm.
  bool reset_sim() {
    d_->time = initial_.time;
    std::memcpy(d_->qpos, initial_.qpos.data(), sizeof(double) * initial_.qpos.size());
    std::memcpy(d_->qvel, initial_.qvel.data(), sizeof(double) * initial_.qvel.size());
    for (int i = 0; i < m_->na; ++i) d_->act[i] = std::numeric_limits<double>::quiet_NaN();
    mj_forward(m_, d_);
    double* object = d_->qpos + mm_->object_qpos;
    double pos[3] = {object[0], object[1], object[2]};
    double quat[4] = {object[3], object[4], object[5], object[6]};
    if (!pen_) {  // randomize_initial_rotation (the pen keeps its rotation)
      double offset[4];
      if (t_.target_rotation == "z") {
        double axis[3] = {0.0, 0.0, 1.0};
        quat_from_angle_and_axis(rng().uniform(-kPi, kPi), axis, offset);
      } else if (t_.target_rotation == "parallel") {
        double axis[3] = {0.0, 0.0, 1.0}, z_quat[4];
        quat_from_angle_and_axis(rng().uniform(-kPi, kPi), axis, z_quat);
        const auto& p = parallel_[static_cast<size_t>(rng().integers(0, static_cast<int64_t>(parallel_.size())))];
        rotations::quat_mul(z_quat, p.data(), offset);
      } else {  // xyz
        const double angle = rng().uniform(-kPi, kPi);
        double axis[3];
        for (double& v : axis) v = rng().uniform(-1.0, 1.0);
        quat_from_angle_and_axis(angle, axis, offset);
      }
      double turned[4];
      rotations::quat_mul(quat, offset, turned);
      std::memcpy(quat, turned, sizeof(quat));
    }
    if (t_.target_position != "fixed")  // randomize_initial_position
      for (double& v : pos) v += 0.0 + 0.005 * mujoco::standard_normal(rng());
    const double n = numerics::blas_norm(quat, 4);
    for (double& v : quat) v /= n;
    std::memcpy(object, pos, sizeof(pos));
    std::memcpy(object + 3, quat, sizeof(quat));
    const double zeros[20] = {};
    for (int i = 0; i < 10; ++i) {
      set_action(zeros);
      simulate();
    }
    mj_forward(m_, d_);
    return d_->site_xpos[3 * mm_->center_site + 2] > 0.04;
  }

  void sample_goal() {
    const double* object = d_->qpos + mm_->object_qpos;
    if (position_) {
      static constexpr double kRange[3][2] = {{-0.04, 0.04}, {-0.06, 0.02}, {0.0, 0.06}};
      for (int k = 0; k < 3; ++k) goal_[k] = object[k] + rng().uniform(kRange[k][0], kRange[k][1]);
    } else {
      for (int k = 0; k < 3; ++k) goal_[k] = object[k];
    }
    double q[4];
    double axis[3] = {0.0, 0.0, 1.0};
    if (t_.target_rotation == "z") {
      quat_from_angle_and_axis(rng().uniform(-kPi, kPi), axis, q);
    } else if (t_.target_rotation == "parallel") {
      double z_quat[4];
      quat_from_angle_and_axis(rng().uniform(-kPi, kPi), axis, z_quat);
      const auto& p = parallel_[static_cast<size_t>(rng().integers(0, static_cast<int64_t>(parallel_.size())))];
      rotations::quat_mul(z_quat, p.data(), q);
    } else {
      const double angle = rng().uniform(-kPi, kPi);
      for (double& v : axis) v = rng().uniform(-1.0, 1.0);
      quat_from_angle_and_axis(angle, axis, q);
    }
    const double n = numerics::blas_norm(q, 4);
    for (int k = 0; k < 4; ++k) goal_[3 + k] = q[k] / n;
  }

  // _goal_distance of one goal pair.
  void distances(const double* a, const double* b, double& d_pos, double& d_rot) const {
    d_pos = position_ ? goal_distance(a, b, 3) : 0.0;
    double qa[4] = {a[3], a[4], a[5], a[6]};
    if (pen_) {  // ignore_z_target_rotation
      double ea[3], eb[3];
      rotations::quat2euler(qa, ea);
      rotations::quat2euler(b + 3, eb);
      ea[2] = eb[2];
      rotations::euler2quat(ea, qa);
    }
    double conj[4], diff[4];
    rotations::quat_conjugate(b + 3, conj);
    rotations::quat_mul(qa, conj, diff);
    d_rot = 2 * numerics::arccos(mujoco::np_clip(diff[0], -1.0, 1.0));
  }

  float success(const double* a, const double* b) const {
    double d_pos, d_rot;
    distances(a, b, d_pos, d_rot);
    const float pos = d_pos < distance_threshold_ ? 1.0f : 0.0f;
    const float rot = d_rot < 0.1 ? 1.0f : 0.0f;
    return pos * rot;
  }

  void observe() {
    std::memcpy(achieved_.data(), d_->qpos + mm_->object_qpos, sizeof(achieved_));
    double* o = put_robot_state(obs_.data());
    std::memcpy(o, d_->qvel + mm_->object_dof, 6 * sizeof(double));
    o += 6;
    std::memcpy(o, achieved_.data(), sizeof(achieved_));
    o += 7;
    const bool boolean = t_.touch == "boolean";
    for (const int s : mm_->touch) {  // the reference indexes sensordata by sensor id
      const double v = d_->sensordata[s];
      *o++ = boolean ? (v > 0.0 ? 1.0 : 0.0) : v;
    }
  }

  HandManipulateTask t_;
  std::shared_ptr<const ManipulateModel> mm_;
  bool dense_, pen_ = false, position_ = false;
  double distance_threshold_ = 0.01;
  std::vector<std::array<double, 4>> parallel_;
  InitialState initial_;
  std::array<double, 7> goal_{}, achieved_{};
  std::vector<double> obs_;
  float is_success_ = 0.0f;
};

}  // namespace

Spaces hand_manipulate_spaces(const Config& c, const HandManipulateTask& t) {
  dense_reward(c);
  const auto mm = manipulate_model(t);
  return HandEnv::hand_spaces(7, 61 + static_cast<int64_t>(mm->touch.size()));
}

std::unique_ptr<Env> make_hand_manipulate(const Config& c, const HandManipulateTask& t) {
  return std::make_unique<HandManipulateEnv>(c, t, manipulate_model(t));
}

std::vector<ConfigField> HandReachDecl::config(const HandReachTask& t) {
  return {{"reward_type", std::string(t.dense ? "dense" : "sparse"),
           "'sparse': -1 until every fingertip is within 0.01 of its goal (0 then); 'dense': minus the distance."}};
}

std::vector<ConfigField> HandManipulateDecl::config(const HandManipulateTask& t) {
  return {{"reward_type", std::string(t.dense ? "dense" : "sparse"),
           "'sparse': -1 until the object's pose reaches the goal (0 then); 'dense': -(10 * position distance + "
           "angle difference)."}};
}

}  // namespace envhive::robotics
