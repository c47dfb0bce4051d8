// The base of Gymnasium-Robotics' MuJoCo robot tasks (its MujocoRobotEnv and mujoco_utils): one
// mjData per env over an mjModel shared read-only by every env of the task, the mocap and
// actuator control of mujoco_utils, site velocities and the goal distance.
//
// The model is the XML of the installed gymnasium-robotics package's assets (the family's DATA
// assets_dir, handed to register_tasks), compiled by the same libmujoco as the `mujoco` package's,
// with the weld equalities reset as mujoco_utils.reset_mocap_welds leaves them. Every call into
// MuJoCo is the reference's, in its order, so trajectories are bit for bit the reference's.
#pragma once

#include <mujoco/mujoco.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../../core/task.h"
#include "../mujoco/mujoco_env.h"
#include "numerics.h"

namespace envhive::robotics {

using mujoco::ModelPtr;

// The folder of gymnasium_robotics/envs/assets (set once at registration).
void set_assets_dir(std::string dir);
// assets folder / relative path; throws std::invalid_argument when the folder is unknown.
std::string asset_path(const std::string& relative);

// The reward_type kwarg: "sparse" or "dense" (std::invalid_argument otherwise); true for dense.
bool dense_reward(const Config& c);

// mj_name2id, or std::invalid_argument naming the missing object.
int name_id(const mjModel* m, mjtObj type, const std::string& name);

// The compiled model of `path`, copied and with every weld equality's eq_data[:7] set to
// (0, 0, 0, 0, 0, 0, 1), as mujoco_utils.reset_mocap_welds sets it (models with mocap bodies).
ModelPtr load_robot_model(const std::string& path);

// The state MujocoRobotEnv._reset_sim restores: data.time, qpos and qvel after _env_setup.
struct InitialState {
  double time = 0.0;
  std::vector<double> qpos, qvel;
};

// sqrt(sum((a - b) ** 2)) over n values with numpy's pairwise summation: np.linalg.norm(a - b,
// axis=-1), bit for bit (left to right below 8 values).
double goal_distance(const double* a, const double* b, int n);

// mujoco_utils' joint helpers with the model's joint types (free 7/6, ball 4/3, else 1 value).
int joint_qpos_size(const mjModel* m, int joint);

class RobotEnv : public Env {
 public:
  RobotEnv(ModelPtr model, int n_substeps);
  ~RobotEnv() override;
  RobotEnv(const RobotEnv&) = delete;
  RobotEnv& operator=(const RobotEnv&) = delete;

 protected:
  // MujocoRobotEnv._reset_sim up to its mj_forward: mj_resetData; time, qpos, qvel := `s`; act := NaN
  // (data.act[:] = None) when the model has activations.
  void restore(const InitialState& s);
  // mujoco_utils.ctrl_set_action of the values after the mocap part: ctrl[i] = a[i] for an actuator
  // without bias, else qpos of its joint + a[i] (position actuators).
  void ctrl_set_action(const double* a, int n);
  // mujoco_utils.mocap_set_action: mocaps moved onto their welded bodies, then offset by
  // a[7k:7k+3] (position) and a[7k+3:7k+7] (quaternion, added as is).
  void mocap_set_action(const double* a);
  // mujoco_utils.reset_mocap2body_xpos.
  void reset_mocap2body_xpos();
  // mj_step n_substeps times (MujocoRobotEnv._mujoco_step).
  void simulate() { mj_step_n(); }
  // get_site_xvelp / get_site_xvelr: the site Jacobian (mj_jacSite) times qvel, not yet scaled by dt.
  void site_velocity(int site, double linear[3], double angular[3]);
  void site_linear_velocity(int site, double linear[3]);
  // data.site_xpos[site] / qpos of a joint / qvel of a joint.
  const double* site_xpos(int site) const { return d_->site_xpos + 3 * site; }
  const double* site_xmat(int site) const { return d_->site_xmat + 9 * site; }

  ModelPtr model_;
  const mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
  int n_substeps_ = 1;
  double dt_ = 0.0;  // n_substeps * model.opt.timestep

 private:
  void mj_step_n() {
    for (int i = 0; i < n_substeps_; ++i) mj_step(m_, d_);
  }
  std::vector<double> jacp_, jacr_;
};

}  // namespace envhive::robotics
