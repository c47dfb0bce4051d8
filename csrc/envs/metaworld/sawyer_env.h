// Meta-World's SawyerXYZEnv (metaworld/sawyer_xyz_env.py, v3) on envhive's pool: the Sawyer arm moved
// by a mocap weld, its 39-value observation and the reward helpers every task shares. A task class
// (tasks/*.cc) implements reset_model, the object positions and quaternions it observes, and
// evaluate_state, as its Python class does.
//
// What makes an env's episodes those of the reference, step for step:
//  - the same XML from the installed metaworld package, compiled by the same libmujoco, with
//    SawyerMocapBase.reset_mocap_welds applied once to the shared model;
//  - the call sequence: reset = the task's reset_model, mj_resetData, reset_model again (Gymnasium's
//    MujocoEnv.reset calls it a second time), the observation's previous frame set to the current
//    one; step = mocap moved by the clipped action (float32 arithmetic, as numpy does it), ctrl =
//    (a3, -a3), mj_step x frame_skip, mj_forward, the observation clipped to its space, then the
//    task's evaluate_state on the raw action;
//  - the rand vec (_get_state_rand_vec) from the source the id defines (rand_vec.h);
//  - numpy's arithmetic in rewards (rewards.h, numerics.h) and scipy's quaternions (quat.h).
// Tasks edit their model (the goal site, a door's body position): each env steps a shallow copy of
// the shared model whose body_pos and site_pos are its own (the meshes stay shared).
#pragma once

#include <mujoco/mujoco.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "../../core/env.h"
#include "../mujoco/mujoco_env.h"
#include "rand_vec.h"
#include "rewards.h"
#include "vec3.h"

namespace envhive::metaworld {

// What a task's evaluate_state returns: the reward and the info dict (every value as float64).
struct Eval {
  Num reward = py(0.0);
  double success = 0, near_object = 0, grasp_success = 0, grasp_reward = 0, in_place_reward = 0,
         obj_to_target = 0, unscaled_reward = 0;
};

inline constexpr int kObsSize = 39;   // 18 now, 18 of the previous frame, 3 of the goal
inline constexpr int kFrameSize = 18;  // hand (3), gripper opening (1), objects padded to 14
inline constexpr int kFrameSkip = 5;
inline constexpr int kMaxPathLength = 500;

// The fixed description of one of the 50 tasks (metaworld.env_dict.ALL_V3_ENVIRONMENTS).
struct TaskInfo {
  std::string name;   // "reach-v3"
  std::string xml;    // "sawyer_xyz/sawyer_reach_v3.xml", in metaworld's assets
  Vec3 hand_low{-0.2, 0.55, 0.05}, hand_high{0.2, 0.75, 0.3};  // mocap bounds (SawyerXYZEnv's defaults)
  std::vector<double> rand_low, rand_high;                       // _random_reset_space
  Vec3 goal_low{}, goal_high{};                                  // goal_space
};

// The settings of one env: its task and where its rand vecs come from.
struct EnvSettings {
  const TaskInfo* task = nullptr;
  bool partially_observable = true;  // the goal is zeros in the observation
  std::shared_ptr<const RandVecPlan> plan;
  int env_index = 0;          // this env's index in the pool
  int64_t one_hot_size = 0;   // OneHotWrapper: append a one-hot of this size (0: none)
  int64_t one_hot_index = 0;
  bool terminate_on_success = false;  // AutoTerminateOnSuccessWrapper
};

class SawyerEnv : public Env {
 public:
  SawyerEnv(const EnvSettings& s, std::shared_ptr<const mjModel> shared);
  ~SawyerEnv() override;
  SawyerEnv(const SawyerEnv&) = delete;
  SawyerEnv& operator=(const SawyerEnv&) = delete;

  void seed(uint64_t s) override;
  void seed_from_os() override;
  void reset() final;
  StepResult step(const void* action) final;
  void write_obs(void* dst) const final;
  void write_info(void* const* dst) const final;
  void render(uint8_t* rgb, RenderSlot& slot) override;
  void set_render_params(mujoco::RenderParams p) {
    render_ = std::move(p);
    camera_ = mujoco::GymCamera(render_.camera);
  }

  // The rand vec the last reset used (tests, and the benchmark sampling checks).
  const std::vector<double>& last_rand_vec() const { return last_rand_vec_; }

 protected:
  // --- what a task implements ---
  virtual void reset_model() = 0;
  // _get_pos_objects / _get_quat_objects: 3 (4) values per object, at most 2 objects.
  virtual int pos_objects(double* out) const = 0;
  virtual int quat_objects(double* out) const = 0;
  virtual Eval evaluate_state(const double* obs, const float* action) = 0;
  // _get_pos_goal (the goal in the observation).
  virtual Vec3 pos_goal() const { return target_pos_; }

  // --- SawyerXYZEnv's helpers ---
  // _get_state_rand_vec(): the next rand vec from this env's source.
  std::vector<double> state_rand_vec();
  // _reset_hand(steps): hold the mocap at hand_init_pos, gripper open, for `steps` steps.
  void reset_hand(int steps = 50);
  // set_state(qpos, qvel) + mj_forward.
  void set_state(const double* qpos, const double* qvel);
  // The default _set_obj_xyz: qpos[9:12] = pos, qvel[9:15] = 0.
  void set_obj_xyz_default(const Vec3& pos);
  // do_simulation(ctrl, n): ctrl, then n x mj_step (mj_rnePostConstraint only fills outputs nobody reads).
  void do_simulation(double c0, double c1, int n);
  // tcp_center: the mean of the two finger sites.
  Vec3 tcp_center() const;
  // Name lookups (throw when the model lacks the name).
  int body(const char* name) const;
  int site(const char* name) const;
  int geom(const char* name) const;
  int joint(const char* name) const;
  Vec3 body_xpos(int id) const { return vec3(d_->xpos + 3 * id); }
  Vec3 site_xpos(int id) const { return vec3(d_->site_xpos + 3 * id); }
  Vec3 geom_xpos(int id) const { return vec3(d_->geom_xpos + 3 * id); }
  void geom_quat(int id, double* q) const;  // Rotation.from_matrix(geom xmat).as_quat()
  void body_quat(int id, double* q) const;  // data.body(id).xquat
  double* model_body_pos(int id) { return own_.body_pos + 3 * id; }
  double* model_site_pos(int id) { return own_.site_pos + 3 * id; }
  void set_model_site_pos(int id, const Vec3& p) { std::copy(p.begin(), p.end(), model_site_pos(id)); }
  void set_model_body_pos(int id, const Vec3& p) { std::copy(p.begin(), p.end(), model_body_pos(id)); }
  // touching_object(geom): both pads push on the geom (summed efc_force of their contacts > 0).
  bool touching_object(int object_geom) const;
  // SawyerXYZEnv._gripper_caging_reward.
  Num gripper_caging_reward(const float* action, const Vec3& obj_pos, double obj_radius, double pad_success_thresh,
                            double object_reach_radius, double xz_thresh, double desired_gripper_effort = 1.0,
                            bool high_density = false, bool medium_density = false,
                            const Vec3* obj_init = nullptr) const;  // obj_init: obj_init_pos_ (stick-push: its stick's)

  // The _gripper_caging_reward of push-back, soccer, sweep-into and sweep (their own, alike): the
  // pads' caging and gripping in y (grip margin obj_radius + grip_extra), the tcp's caging in x-z,
  // gripping counted once caging > 0.95; plain floats (the action is not read).
  double pad_caging_reward(const Vec3& obj, double obj_radius, double grip_extra, double x_z_success_margin) const;

  const mjModel* m_ = nullptr;  // &own_
  mjData* d_ = nullptr;
  const TaskInfo& task_;
  Vec3 hand_init_pos_{0, 0.6, 0.2};
  Vec3 target_pos_{};
  Vec3 obj_init_pos_{};
  Vec3 init_tcp_{};
  std::vector<double> init_qpos_, init_qvel_;
  int left_pad_ = -1, right_pad_ = -1;  // bodies leftpad / rightpad
  int obj_geom_ = -1;                   // geom objGeom where the model has one

 private:
  void write_frame(double* frame) const;  // _get_curr_obs_combined_no_goal
  void make_obs(double* obs);              // _get_obs: frame, previous frame, goal
  void set_xyz_action(const float* a);

  std::shared_ptr<const mjModel> shared_;
  mjModel own_;                            // shallow copy of *shared_
  std::vector<double> own_body_pos_, own_site_pos_;
  EnvSettings settings_;
  RandVecCursor cursor_;
  RandomState legacy_;     // numpy's global RandomState of the goal-observable / goal-hidden constructors
  bool unfrozen_ = false;  // their constructor's reset: vectors drawn from legacy_
  std::vector<double> last_rand_vec_;
  std::array<double, kFrameSize> prev_frame_{};
  std::array<double, kObsSize> obs_{};
  std::array<double, kObsSize> obs_low_{}, obs_high_{};
  Eval eval_;
  int curr_path_length_ = 0;
  mutable bool forwarded_ = true;
  bool first_pass_ = false;  // the first of reset's two reset_model passes (see reset())  // d_ holds a full mj_forward of the current state (not kinematics only)
  int mocap_ = 0, right_finger_site_ = -1, left_finger_site_ = -1, hand_ = -1, rightclaw_ = -1, leftclaw_ = -1;
  int leftpad_geom_ = -1, rightpad_geom_ = -1;
  mujoco::RenderParams render_;
  mujoco::GymCamera camera_;
};

// The observation bounds of a task (sawyer_observation_space): hand, gripper, objects (+-inf), the
// same for the previous frame, then the goal space or zeros (partially observable).
void observation_bounds(const TaskInfo& t, bool partially_observable, double* low, double* high);

}  // namespace envhive::metaworld
