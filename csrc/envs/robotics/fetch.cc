#include "fetch.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>

#include "rotations.h"

namespace envhive::robotics {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::shared_ptr<const FetchSetup> compute_setup(const FetchTask& task) {
  auto s = std::make_shared<FetchSetup>();
  s->model = load_robot_model(asset_path(task.xml));
  const mjModel* m = s->model.get();
  mjData* d = mj_makeData(m);
  if (!d) throw std::runtime_error("mj_makeData failed");
  try {
    // _env_setup: the initial joint positions, reset_mocap_welds (its mj_forward; the welds of the
    // shared model were reset when it was loaded), mj_forward, the mocap onto the gripper target,
    // ten env steps of settling.
    for (const auto& [name, value] : task.initial_qpos) {
      const int j = name_id(m, mjOBJ_JOINT, name);
      if (static_cast<int>(value.size()) != joint_qpos_size(m, j))
        throw std::invalid_argument("initial qpos of " + name + " has the wrong size");
      std::memcpy(d->qpos + m->jnt_qposadr[j], value.data(), value.size() * sizeof(double));
    }
    mj_forward(m, d);
    mj_forward(m, d);
    s->grip_site = name_id(m, mjOBJ_SITE, "robot0:grip");
    const double* grip = d->site_xpos + 3 * s->grip_site;
    const double offset[3] = {-0.498, 0.005, -0.431 + task.gripper_extra_height};
    const int mocap = m->body_mocapid[name_id(m, mjOBJ_BODY, "robot0:mocap")];
    for (int k = 0; k < 3; ++k) d->mocap_pos[3 * mocap + k] = offset[k] + grip[k];
    const double rotation[4] = {1.0, 0.0, 1.0, 0.0};
    std::memcpy(d->mocap_quat + 4 * mocap, rotation, sizeof(rotation));
    for (int i = 0; i < 10 * 20; ++i) mj_step(m, d);  // 10 x mj_step(nstep=n_substeps); n_substeps = 20
    std::memcpy(s->initial_gripper_xpos.data(), d->site_xpos + 3 * s->grip_site, 3 * sizeof(double));
    if (task.has_object) {
      s->object_site = name_id(m, mjOBJ_SITE, "object0");
      s->height_offset = d->site_xpos[3 * s->object_site + 2];
      s->object_qposadr = m->jnt_qposadr[name_id(m, mjOBJ_JOINT, "object0:joint")];
    }
    s->initial.time = d->time;
    s->initial.qpos.assign(d->qpos, d->qpos + m->nq);
    s->initial.qvel.assign(d->qvel, d->qvel + m->nv);
    s->l_finger_qposadr = m->jnt_qposadr[name_id(m, mjOBJ_JOINT, "robot0:l_gripper_finger_joint")];
    s->r_finger_qposadr = m->jnt_qposadr[name_id(m, mjOBJ_JOINT, "robot0:r_gripper_finger_joint")];
    std::vector<int> robot;
    for (int j = 0; j < m->njnt; ++j) {
      const char* name = mj_id2name(m, mjOBJ_JOINT, j);
      if (name && std::strncmp(name, "robot", 5) == 0) robot.push_back(j);
    }
    if (robot.size() < 2) throw std::invalid_argument("the Fetch model has fewer than two robot joints");
    for (int k = 0; k < 2; ++k) {
      const int j = robot[robot.size() - 2 + static_cast<size_t>(k)];
      s->finger_qposadr[k] = m->jnt_qposadr[j];
      s->finger_dofadr[k] = m->jnt_dofadr[j];
    }
  } catch (...) {
    mj_deleteData(d);
    throw;
  }
  mj_deleteData(d);
  return s;
}

}  // namespace

std::shared_ptr<const FetchSetup> fetch_setup(const FetchTask& task) {
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<const FetchSetup>> cache;
  const std::string key = asset_path(task.xml);  // one model file per task
  std::lock_guard<std::mutex> lock(mu);
  if (auto cached = cache[key].lock()) return cached;
  auto setup = compute_setup(task);
  cache[key] = setup;
  return setup;
}


std::vector<ConfigField> FetchEnv::config(const FetchTask& task) {
  return {{"reward_type", std::string(task.dense ? "dense" : "sparse"),
           "'sparse': -1 until the goal is within distance_threshold, then 0; 'dense': minus the distance."}};
}

Spaces FetchEnv::spaces(const Config& c, const FetchTask& task) {
  dense_reward(c);
  Spaces s;
  const auto box = [](int64_t n) { return SpaceSpec::box(DType::kFloat64, {n}, {-kInf}, {kInf}); };
  s.observation = SpaceSpec::dict(
      {{"achieved_goal", box(3)}, {"desired_goal", box(3)}, {"observation", box(task.has_object ? 25 : 10)}});
  s.action = SpaceSpec::box(DType::kFloat32, {4}, {-1.0}, {1.0});
  s.infos = {{"is_success", DType::kFloat32, {}}};
  return s;
}

FetchEnv::FetchEnv(const Config& c, int /*env_id*/, const FetchTask& task)
    : RobotEnv(fetch_setup(task)->model, 20), task_(task), setup_(fetch_setup(task)), dense_(dense_reward(c)) {
  obs_size_ = task_.has_object ? 25 : 10;
}

void FetchEnv::reset() {
  restore(setup_->initial);
  if (task_.has_object) {
    const double* g0 = setup_->initial_gripper_xpos.data();
    double xy[2] = {g0[0], g0[1]};
    for (;;) {
      const double diff[2] = {xy[0] - g0[0], xy[1] - g0[1]};
      if (!(numerics::blas_norm(diff, 2) < 0.1)) break;
      for (int k = 0; k < 2; ++k) xy[k] = g0[k] + rng().uniform(-task_.obj_range, task_.obj_range);
    }
    d_->qpos[setup_->object_qposadr] = xy[0];
    d_->qpos[setup_->object_qposadr + 1] = xy[1];
  }
  mj_forward(m_, d_);
  sample_goal();
  observe();
  // The reference's reset info is empty; the pool's row carries what a step here would report.
  is_success_ = goal_distance(achieved_.data(), goal_.data(), 3) < task_.distance_threshold ? 1.0f : 0.0f;
}

void FetchEnv::sample_goal() {
  const double* g0 = setup_->initial_gripper_xpos.data();
  for (int k = 0; k < 3; ++k) goal_[k] = g0[k] + rng().uniform(-task_.target_range, task_.target_range);
  if (!task_.has_object) return;
  for (int k = 0; k < 3; ++k) goal_[k] += task_.target_offset[k];
  goal_[2] = setup_->height_offset;
  if (task_.target_in_the_air && rng().uniform(0.0, 1.0) < 0.5) goal_[2] += rng().uniform(0.0, 0.45);
}

StepResult FetchEnv::step(const void* action) {
  const float* a = static_cast<const float*>(action);
  float clipped[4];
  for (int k = 0; k < 4; ++k) clipped[k] = a[k] < -1.0f ? -1.0f : (a[k] > 1.0f ? 1.0f : a[k]);
  // BaseFetchEnv._set_action: float32 position deltas times 0.05 (float32 arithmetic), the fixed
  // rotation, the gripper command twice (zeros when the gripper is blocked); concatenated as float64.
  double mocap[7];
  for (int k = 0; k < 3; ++k) {
    const float p = clipped[k] * 0.05f;
    mocap[k] = static_cast<double>(p);
  }
  mocap[3] = 1.0, mocap[4] = 0.0, mocap[5] = 1.0, mocap[6] = 0.0;
  const double g = task_.block_gripper ? 0.0 : static_cast<double>(clipped[3]);
  const double gripper[2] = {g, g};
  ctrl_set_action(gripper, 2);
  mocap_set_action(mocap);
  simulate();
  if (task_.block_gripper) {  // _step_callback
    d_->qpos[setup_->l_finger_qposadr] = 0.0;
    d_->qpos[setup_->r_finger_qposadr] = 0.0;
    mj_forward(m_, d_);
  }
  observe();
  const double dist = goal_distance(achieved_.data(), goal_.data(), 3);
  is_success_ = dist < task_.distance_threshold ? 1.0f : 0.0f;
  StepResult r;
  // sparse: -(d > threshold).astype(np.float32): -0.0 when reached (the sign kept), else -1.0.
  r.reward = dense_ ? -dist : -static_cast<double>(dist > task_.distance_threshold ? 1.0f : 0.0f);
  return r;
}

void FetchEnv::observe() {
  const FetchSetup& s = *setup_;
  const double* grip = site_xpos(s.grip_site);
  double grip_velp[3], unused[3];
  site_velocity(s.grip_site, grip_velp, unused);
  for (double& v : grip_velp) v = v * dt_;
  double* o = obs_.data();
  const auto put = [&o](const double* v, int n) {
    std::memcpy(o, v, sizeof(double) * static_cast<size_t>(n));
    o += n;
  };
  const double gripper_state[2] = {d_->qpos[s.finger_qposadr[0]], d_->qpos[s.finger_qposadr[1]]};
  const double gripper_vel[2] = {d_->qvel[s.finger_dofadr[0]] * dt_, d_->qvel[s.finger_dofadr[1]] * dt_};
  put(grip, 3);
  if (task_.has_object) {
    const double* object = site_xpos(s.object_site);
    double rel[3], rot[3], velp[3], velr[3];
    for (int k = 0; k < 3; ++k) rel[k] = object[k] - grip[k];
    rotations::mat2euler(site_xmat(s.object_site), rot);
    site_velocity(s.object_site, velp, velr);
    for (int k = 0; k < 3; ++k) {
      velp[k] = velp[k] * dt_ - grip_velp[k];
      velr[k] = velr[k] * dt_;
    }
    put(object, 3);
    put(rel, 3);
    put(gripper_state, 2);
    put(rot, 3);
    put(velp, 3);
    put(velr, 3);
    std::memcpy(achieved_.data(), object, sizeof(achieved_));
  } else {
    put(gripper_state, 2);
    std::memcpy(achieved_.data(), grip, sizeof(achieved_));
  }
  put(grip_velp, 3);
  put(gripper_vel, 2);
}

void FetchEnv::write_obs_leaves(void* const* dst) const {
  std::memcpy(dst[0], achieved_.data(), sizeof(achieved_));
  std::memcpy(dst[1], goal_.data(), sizeof(goal_));
  std::memcpy(dst[2], obs_.data(), sizeof(double) * static_cast<size_t>(obs_size_));
}

void FetchEnv::write_info(void* const* dst) const { std::memcpy(dst[0], &is_success_, sizeof(float)); }

}  // namespace envhive::robotics
