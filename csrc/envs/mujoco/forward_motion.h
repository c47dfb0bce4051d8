// What Gymnasium's HalfCheetah and Swimmer (v4 and v5) share: the same kwargs, a reward of
// forward_reward_weight * x velocity minus a float32 control cost, no termination, an
// observation of qpos (without the root's planar position when excluded) and qvel, and a reset
// that adds noise to the initial state. half_cheetah.h and swimmer.h hold each task's
// velocities, infos and a ForwardMotionTask with its defaults.
#pragma once

#include "mujoco_env.h"

namespace envhive::mujoco {

// The model and kwarg defaults that tell HalfCheetah and Swimmer apart.
struct ForwardMotionTask {
  const char* xml;            // the model v4 uses and v5's xml_file default
  int frame_skip;             // v4's and v5's default
  double ctrl_cost_weight;    // the default
  const char* exclude_doc;    // what exclude_current_positions_from_observation omits
  size_t root_position_size;  // qpos entries it omits: 1 (root x) or 2 (root x and y)
  bool normal_qvel;           // reset noise on qvel: scale * standard_normal, else uniform(-scale, scale)
};

// params() reads every field from the config (config() and the task hold the defaults).
struct ForwardMotionParams {
  bool v5 = true;
  CommonParams common;
  double forward_reward_weight = 0.0, ctrl_cost_weight = 0.0, reset_noise_scale = 0.0;
  bool exclude_current_positions = true;
};

template <const ForwardMotionTask& kTask>
class ForwardMotionEnv : public MujocoEnv {
 public:
  using Params = ForwardMotionParams;

  static std::vector<ConfigField> config(bool v5) {
    std::vector<ConfigField> f = model_fields(v5, kTask.xml, kTask.frame_skip);
    f.push_back({"forward_reward_weight", 1.0, "Weight of the forward reward."});
    f.push_back({"ctrl_cost_weight", kTask.ctrl_cost_weight, "Weight of the control cost."});
    f.push_back({"reset_noise_scale", 0.1, "Scale of the initial-state noise."});
    f.push_back({"exclude_current_positions_from_observation", true, kTask.exclude_doc});
    return f;
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, kTask.xml, kTask.frame_skip);
    p.forward_reward_weight = c.real("forward_reward_weight");
    p.ctrl_cost_weight = c.real("ctrl_cost_weight");
    p.reset_noise_scale = c.real("reset_noise_scale");
    p.exclude_current_positions = c.flag("exclude_current_positions_from_observation");
    return p;
  }

  static int64_t obs_size(const mjModel& m, const Params& p) {
    return m.nq + m.nv - (p.exclude_current_positions ? static_cast<int64_t>(kTask.root_position_size) : 0);
  }

  void write_obs(void* dst) const final {
    ObsWriter w(dst);
    put_qpos_qvel(w, p_.exclude_current_positions ? kTask.root_position_size : 0);
  }

 protected:
  ForwardMotionEnv(ModelPtr model, const Params& p) : MujocoEnv(std::move(model), p.common.frame_skip), p_(p) {
    post_constraint_ = false;  // nothing reads cacc / cfrc_*
    prepare_ok_ = true;        // a step reads only qpos before simulating
  }

  // forward_reward - ctrl_cost (both tasks' reward), keeping the two terms for the infos.
  double reward(double x_velocity, const float* action) {
    const float ctrl_cost = action_ctrl_cost(action, p_.ctrl_cost_weight);
    forward_reward_ = p_.forward_reward_weight * x_velocity;
    reward_ctrl_ = -static_cast<double>(ctrl_cost);
    return forward_reward_ - static_cast<double>(ctrl_cost);
  }

  void reset_model() override {
    reset_with_noise(p_.reset_noise_scale, kTask.normal_qvel);
    x_velocity_ = forward_reward_ = reward_ctrl_ = 0.0;
  }

  Params p_;
  double x_velocity_ = 0, forward_reward_ = 0, reward_ctrl_ = 0;
};

}  // namespace envhive::mujoco
