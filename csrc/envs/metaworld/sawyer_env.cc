#include "sawyer_env.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>

#include "quat.h"

namespace envhive::metaworld {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// SawyerXYZEnv._HAND_SPACE
constexpr double kHandLow[3] = {-0.525, 0.348, -0.0525}, kHandHigh[3] = {0.525, 1.025, 0.7};

int name_id(const mjModel* m, mjtObj type, const char* name, const char* what) {
  const int id = mj_name2id(m, type, name);
  if (id < 0) throw std::invalid_argument(std::string("Meta-World model has no ") + what + " named '" + name + "'");
  return id;
}
}  // namespace

void observation_bounds(const TaskInfo& t, bool partially_observable, double* low, double* high) {
  for (int f = 0; f < 2; ++f) {
    double* lo = low + f * kFrameSize;
    double* hi = high + f * kFrameSize;
    for (int i = 0; i < 3; ++i) lo[i] = kHandLow[i], hi[i] = kHandHigh[i];
    lo[3] = -1.0, hi[3] = 1.0;
    for (int i = 4; i < kFrameSize; ++i) lo[i] = -kInf, hi[i] = kInf;
  }
  for (int i = 0; i < 3; ++i) {
    low[2 * kFrameSize + i] = partially_observable ? 0.0 : t.goal_low[i];
    high[2 * kFrameSize + i] = partially_observable ? 0.0 : t.goal_high[i];
  }
}

SawyerEnv::SawyerEnv(const EnvSettings& s, std::shared_ptr<const mjModel> shared)
    : task_(*s.task), shared_(std::move(shared)), settings_(s) {
  own_ = *shared_;  // the struct: every array still points into the shared model's buffer ...
  own_body_pos_.assign(shared_->body_pos, shared_->body_pos + 3 * shared_->nbody);
  own_site_pos_.assign(shared_->site_pos, shared_->site_pos + 3 * shared_->nsite);
  own_.body_pos = own_body_pos_.data();  // ... but the two a task edits
  own_.site_pos = own_site_pos_.data();
  m_ = &own_;
  d_ = mj_makeData(m_);
  if (!d_) throw std::runtime_error("mj_makeData failed");
  mj_forward(m_, d_);  // SawyerXYZEnv.__init__
  init_qpos_.assign(d_->qpos, d_->qpos + m_->nq);
  init_qvel_.assign(d_->qvel, d_->qvel + m_->nv);
  hand_ = body("hand");
  rightclaw_ = body("rightclaw");
  leftclaw_ = body("leftclaw");
  left_pad_ = body("leftpad");
  right_pad_ = body("rightpad");
  right_finger_site_ = site("rightEndEffector");
  left_finger_site_ = site("leftEndEffector");
  leftpad_geom_ = geom("leftpad_geom");
  rightpad_geom_ = geom("rightpad_geom");
  obj_geom_ = mj_name2id(m_, mjOBJ_GEOM, "objGeom");
  mocap_ = m_->body_mocapid[body("mocap")];
  observation_bounds(task_, settings_.partially_observable, obs_low_.data(), obs_high_.data());
}

SawyerEnv::~SawyerEnv() {
  if (d_) mj_deleteData(d_);
}

int SawyerEnv::body(const char* name) const { return name_id(m_, mjOBJ_BODY, name, "body"); }
int SawyerEnv::site(const char* name) const { return name_id(m_, mjOBJ_SITE, name, "site"); }
int SawyerEnv::geom(const char* name) const { return name_id(m_, mjOBJ_GEOM, name, "geom"); }
int SawyerEnv::joint(const char* name) const { return name_id(m_, mjOBJ_JOINT, name, "joint"); }

void SawyerEnv::seed(uint64_t s) {
  // A benchmark's vector env seeds all its members alike: block b of the pool is the vector env
  // seeded (pool seed) + b.
  const RandVecPlan& plan = *settings_.plan;
  const uint64_t block_seed = s - static_cast<uint64_t>(settings_.env_index) +
                              static_cast<uint64_t>(settings_.env_index / plan.block_size);
  Env::seed(block_seed);
  cursor_.start(plan, settings_.env_index, block_seed);
  if (plan.mode == RandVecMode::kFixed) {
    // ALL_V3_ENVIRONMENTS_GOAL_{OBSERVABLE,HIDDEN}[name](seed): np.random.seed(seed), then one reset
    // with the vector unfrozen (drawn from that legacy RandomState), then frozen.
    if (block_seed > 0xffffffffull)
      throw std::invalid_argument("Meta-World seeds numpy's legacy RandomState: seeds must be in [0, 2**32 - 1]");
    legacy_.seed(block_seed);
    unfrozen_ = true;
    reset();
    unfrozen_ = false;
  }
}

void SawyerEnv::seed_from_os() {
  std::random_device rd;
  seed(static_cast<uint64_t>(rd() & 0x7fffffffu) + static_cast<uint64_t>(settings_.env_index));
}

std::vector<double> SawyerEnv::state_rand_vec() {
  if (unfrozen_) {
    last_rand_vec_ = legacy_uniform(legacy_, task_.rand_low, task_.rand_high);
  } else if (settings_.plan->mode == RandVecMode::kSeeded) {
    last_rand_vec_.resize(task_.rand_low.size());
    for (size_t i = 0; i < last_rand_vec_.size(); ++i)
      last_rand_vec_[i] = rng().uniform(task_.rand_low[i], task_.rand_high[i]);
  }
  return last_rand_vec_;  // frozen: the task's vector
}

void SawyerEnv::reset() {
  if (const RandVec* v = cursor_.select(*settings_.plan, rng())) last_rand_vec_ = *v;
  if (last_rand_vec_.empty() && settings_.plan->mode != RandVecMode::kSeeded && !unfrozen_)
    throw std::logic_error("Meta-World env reset before it was seeded");
  curr_path_length_ = 0;
  // SawyerXYZEnv.reset runs reset_model, then MujocoEnv.reset runs mj_resetData and reset_model again.
  // The first pass's simulation is wiped by mj_resetData; what outlives it is its draws and its edits of
  // the model (which the second pass's hand reset steps with), and those never read the arm's state:
  // its 50 hand-reset steps are skipped (the lock-step tests hold every task to it).
  first_pass_ = true;
  reset_model();
  first_pass_ = false;
  mj_resetData(m_, d_);
  reset_model();
  write_frame(prev_frame_.data());
  std::copy(prev_frame_.begin(), prev_frame_.end(), obs_.begin());
  std::copy(prev_frame_.begin(), prev_frame_.end(), obs_.begin() + kFrameSize);
  const Vec3 goal = settings_.partially_observable ? Vec3{0, 0, 0} : pos_goal();
  std::copy(goal.begin(), goal.end(), obs_.begin() + 2 * kFrameSize);
  eval_ = Eval{};
}

void SawyerEnv::set_xyz_action(const float* a) {
  const float scale = static_cast<float>(0.01);  // action_scale = 1 / 100, a weak Python float
  double* mocap_pos = d_->mocap_pos + 3 * mocap_;
  for (int i = 0; i < 3; ++i) {
    float c = a[i];
    if (!std::isnan(c)) c = c < -1.0f ? -1.0f : (c > 1.0f ? 1.0f : c);  // np.clip(action, -1, 1)
    const float delta = c * scale;
    mocap_pos[i] = npcompat::np_clip(mocap_pos[i] + static_cast<double>(delta), task_.hand_low[i], task_.hand_high[i]);
  }
  double* q = d_->mocap_quat + 4 * mocap_;
  q[0] = 1, q[1] = 0, q[2] = 1, q[3] = 0;
}

void SawyerEnv::do_simulation(double c0, double c1, int n) {
  d_->ctrl[0] = c0;
  d_->ctrl[1] = c1;
  for (int i = 0; i < n; ++i) mj_step(m_, d_);
}

StepResult SawyerEnv::step(const void* action) {
  const float* a = static_cast<const float*>(action);
  set_xyz_action(a);
  if (curr_path_length_ >= kMaxPathLength)
    throw std::runtime_error("You must reset the env manually once truncate==True");
  do_simulation(static_cast<double>(a[3]), static_cast<double>(-a[3]), kFrameSkip);
  ++curr_path_length_;
  // Meta-World runs mj_forward here for the observation. Only the kinematics are read, except by
  // tasks whose reward asks for contact forces (touching_object completes the forward then): the
  // rest of mj_forward's outputs are recomputed by the next mj_step from the same state.
  mj_kinematics(m_, d_);
  forwarded_ = false;
  make_obs(obs_.data());
  for (int i = 0; i < kObsSize; ++i) obs_[i] = npcompat::np_clip(obs_[i], obs_low_[i], obs_high_[i]);
  eval_ = evaluate_state(obs_.data(), a);
  StepResult r;
  r.reward = eval_.reward.as_f64();
  r.terminated = settings_.terminate_on_success && eval_.success == 1.0;
  return r;
}

void SawyerEnv::write_frame(double* frame) const {
  std::copy(d_->xpos + 3 * hand_, d_->xpos + 3 * hand_ + 3, frame);
  const Vec3 apart = body_xpos(rightclaw_) - body_xpos(leftclaw_);
  frame[3] = npcompat::np_clip(norm(apart) / 0.1, 0.0, 1.0);
  double pos[6] = {}, quat[8] = {};
  const int np = pos_objects(pos), nq = quat_objects(quat);
  if (np % 3 != 0 || nq % 4 != 0 || np / 3 != nq / 4 || np + nq > 14)
    throw std::logic_error("Meta-World task observes a malformed object list");
  double* obj = frame + 4;
  std::fill(obj, obj + 14, 0.0);
  for (int k = 0; k < np / 3; ++k) {
    std::copy(pos + 3 * k, pos + 3 * k + 3, obj);
    std::copy(quat + 4 * k, quat + 4 * k + 4, obj + 3);
    obj += 7;
  }
}

void SawyerEnv::make_obs(double* obs) {
  write_frame(obs);
  std::copy(prev_frame_.begin(), prev_frame_.end(), obs + kFrameSize);
  std::copy(obs, obs + kFrameSize, prev_frame_.begin());
  const Vec3 goal = settings_.partially_observable ? Vec3{0, 0, 0} : pos_goal();
  std::copy(goal.begin(), goal.end(), obs + 2 * kFrameSize);
}

void SawyerEnv::write_obs(void* dst) const {
  double* out = static_cast<double*>(dst);
  std::copy(obs_.begin(), obs_.end(), out);
  if (settings_.one_hot_size > 0) {
    std::fill(out + kObsSize, out + kObsSize + settings_.one_hot_size, 0.0);
    out[kObsSize + settings_.one_hot_index] = 1.0;
  }
}

void SawyerEnv::write_info(void* const* dst) const {
  const double v[7] = {eval_.success,         eval_.near_object, eval_.grasp_success,  eval_.grasp_reward,
                       eval_.in_place_reward, eval_.obj_to_target, eval_.unscaled_reward};
  for (int i = 0; i < 7; ++i) std::memcpy(dst[i], &v[i], sizeof(double));
}

void SawyerEnv::set_state(const double* qpos, const double* qvel) {
  std::memcpy(d_->qpos, qpos, sizeof(double) * static_cast<size_t>(m_->nq));
  std::memcpy(d_->qvel, qvel, sizeof(double) * static_cast<size_t>(m_->nv));
  mj_forward(m_, d_);
  forwarded_ = true;
}

void SawyerEnv::set_obj_xyz_default(const Vec3& pos) {
  std::vector<double> qpos(d_->qpos, d_->qpos + m_->nq), qvel(d_->qvel, d_->qvel + m_->nv);
  if (qpos.size() < 12) throw std::logic_error("_set_obj_xyz: the model has fewer than 12 qpos");
  std::copy(pos.begin(), pos.end(), qpos.begin() + 9);
  for (size_t i = 9; i < 15 && i < qvel.size(); ++i) qvel[i] = 0;  // qvel[9:15] = 0 (numpy clips the slice)
  set_state(qpos.data(), qvel.data());
}

void SawyerEnv::reset_hand(int steps) {
  for (int i = 0; i < (first_pass_ ? 0 : steps); ++i) {
    std::copy(hand_init_pos_.begin(), hand_init_pos_.end(), d_->mocap_pos + 3 * mocap_);
    double* q = d_->mocap_quat + 4 * mocap_;
    q[0] = 1, q[1] = 0, q[2] = 1, q[3] = 0;
    do_simulation(-1, 1, kFrameSkip);
  }
  init_tcp_ = tcp_center();
}

Vec3 SawyerEnv::tcp_center() const { return (site_xpos(right_finger_site_) + site_xpos(left_finger_site_)) / 2.0; }

void SawyerEnv::geom_quat(int id, double* q) const { quat_from_matrix(d_->geom_xmat + 9 * id, q); }
void SawyerEnv::body_quat(int id, double* q) const { std::copy(d_->xquat + 4 * id, d_->xquat + 4 * id + 4, q); }

bool SawyerEnv::touching_object(int object_geom) const {
  if (!forwarded_) {  // the contacts and constraint forces of Meta-World's mj_forward after the step
    mj_forward(m_, d_);
    forwarded_ = true;
  }
  const auto force = [&](int pad) {
    double sum = 0;  // Python's sum() of the contacts' efc_force, from 0
    for (int i = 0; i < d_->ncon; ++i) {
      const mjContact& c = d_->contact[i];
      if ((c.geom[0] == pad || c.geom[1] == pad) && (c.geom[0] == object_geom || c.geom[1] == object_geom)) {
        int adr = c.efc_address;
        if (adr < 0) adr += d_->nefc;  // efc_force[-1]: numpy's last element
        if (adr < 0) throw std::out_of_range("index -1 is out of bounds for efc_force of size 0");
        sum += d_->efc_force[adr];
      }
    }
    return sum;
  };
  return 0 < force(leftpad_geom_) && 0 < force(rightpad_geom_);
}

Num SawyerEnv::gripper_caging_reward(const float* action, const Vec3& obj_pos, double obj_radius,
                                     double pad_success_thresh, double object_reach_radius, double xz_thresh,
                                     double desired_gripper_effort, bool high_density, bool medium_density,
                                     const Vec3* obj_init) const {
  if (high_density && medium_density) throw std::invalid_argument("Can only be either high_density or medium_density");
  const Vec3& obj_init_pos = obj_init ? *obj_init : obj_init_pos_;
  const double pad_y[2] = {body_xpos(left_pad_)[1], body_xpos(right_pad_)[1]};
  double caging_lr[2];
  for (int i = 0; i < 2; ++i) {
    const double pad_to_obj = std::abs(pad_y[i] - obj_pos[1]);
    const double pad_to_objinit = std::abs(pad_y[i] - obj_init_pos[1]);
    const double margin = std::abs(pad_to_objinit - pad_success_thresh);
    caging_lr[i] = tolerance(pad_to_obj, obj_radius, pad_success_thresh, margin);
  }
  const double caging_y = hamacher_product(caging_lr[0], caging_lr[1]);
  const Vec3 tcp = tcp_center();
  const double init_xz[2] = {obj_init_pos[0] - init_tcp_[0], obj_init_pos[2] - init_tcp_[2]};
  const double caging_xz_margin = norm(init_xz, 2) - xz_thresh;
  const double tcp_xz[2] = {tcp[0] - obj_pos[0], tcp[2] - obj_pos[2]};
  const double caging_xz = tolerance(norm(tcp_xz, 2), 0, xz_thresh, caging_xz_margin);
  // min(max(0, action[-1]), effort) / effort: Python's max/min keep the winning operand's type.
  const float a = action[3];
  Num closed = a > 0.0f ? f32(a) : py(0.0);
  if (py(desired_gripper_effort) < closed) closed = py(desired_gripper_effort);
  const Num gripper_closed = closed / py(desired_gripper_effort);
  const Num caging = hamacher_product(py(caging_y), py(caging_xz));
  const Num gripping = caging > py(0.97) ? gripper_closed : py(0.0);
  Num caging_and_gripping = hamacher_product(caging, gripping);
  if (high_density) caging_and_gripping = (caging_and_gripping + caging) / py(2);
  if (medium_density) {
    const double tcp_to_obj = norm(obj_pos - tcp);
    const double tcp_to_obj_init = norm(obj_init_pos - init_tcp_);
    const double reach_margin = std::abs(tcp_to_obj_init - object_reach_radius);
    const double reach = tolerance(tcp_to_obj, 0, object_reach_radius, reach_margin);
    caging_and_gripping = (caging_and_gripping + py(reach)) / py(2);
  }
  return caging_and_gripping;
}

double SawyerEnv::pad_caging_reward(const Vec3& obj, double obj_radius, double grip_extra,
                                    double x_z_success_margin) const {
  const double pad_success_margin = 0.05, grip_success_margin = obj_radius + grip_extra;
  const Vec3 tcp = tcp_center();
  // init_left_pad / init_right_pad are views of data.body(...).xpos in the reference: the pads now.
  const Vec3 left_pad = body_xpos(left_pad_), right_pad = body_xpos(right_pad_);
  const double delta_left = left_pad[1] - obj[1];
  const double delta_right = obj[1] - right_pad[1];
  const double right_margin = std::abs(std::abs(obj[1] - right_pad[1]) - pad_success_margin);
  const double left_margin = std::abs(std::abs(obj[1] - left_pad[1]) - pad_success_margin);
  const double right_caging = tolerance(delta_right, obj_radius, pad_success_margin, right_margin);
  const double left_caging = tolerance(delta_left, obj_radius, pad_success_margin, left_margin);
  const double right_gripping = tolerance(delta_right, obj_radius, grip_success_margin, right_margin);
  const double left_gripping = tolerance(delta_left, obj_radius, grip_success_margin, left_margin);
  const double y_caging = hamacher_product(right_caging, left_caging);
  const double y_gripping = hamacher_product(right_gripping, left_gripping);
  const Vec3 tcp_xz = tcp + Vec3{0.0, -tcp[1], 0.0};
  const Vec3 obj_xz = obj + Vec3{0.0, -obj[1], 0.0};
  const double tcp_obj_norm_x_z = norm(tcp_xz - obj_xz);
  const Vec3 init_obj_xz = obj_init_pos_ + Vec3{0.0, -obj_init_pos_[1], 0.0};
  const Vec3 init_tcp_xz = init_tcp_ + Vec3{0.0, -init_tcp_[1], 0.0};
  const double margin = norm(init_obj_xz - init_tcp_xz) - x_z_success_margin;
  const double x_z_caging = tolerance(tcp_obj_norm_x_z, 0, x_z_success_margin, margin);
  const double caging = hamacher_product(y_caging, x_z_caging);
  const double gripping = caging > 0.95 ? y_gripping : 0.0;
  return (caging + gripping) / 2;
}

void SawyerEnv::render(uint8_t* rgb, RenderSlot& slot) {
  int camera_id = render_.camera_id;
  if (!render_.camera_name.empty()) {
    camera_id = mj_name2id(m_, mjOBJ_CAMERA, render_.camera_name.c_str());
    if (camera_id < 0) throw std::invalid_argument("camera_name '" + render_.camera_name + "' is not a camera of the model");
  } else if (camera_id >= m_->ncam) {
    throw std::invalid_argument("camera_id " + std::to_string(camera_id) + " is not a camera of the model");
  }
  auto& r = slot.state<mujoco::SceneRenderer>([this] {
    return std::make_unique<mujoco::SceneRenderer>(mujoco::GlPlatform::get().create_context(), render_.max_geom);
  });
  r.render(shared_.get(), m_, d_, camera_.for_frame(m_, d_, camera_id), render_.width, render_.height, rgb);
}

}  // namespace envhive::metaworld
