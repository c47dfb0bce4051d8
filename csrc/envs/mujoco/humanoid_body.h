// What Gymnasium's Humanoid and HumanoidStandup (v4 and v5) share: the same humanoid body, the
// same observation (qpos without the root x/y, qvel, then the com-based cinert, cvel,
// qfrc_actuator and cfrc_ext), the same control cost on data.ctrl and a contact cost on
// cfrc_ext. humanoid.h and humanoid_standup.h hold each task's reward, infos and kwargs.
#pragma once

#include <stdexcept>

#include "mujoco_env.h"

namespace envhive::mujoco {

// The kwargs of the body and its observation; each task's Params adds its reward kwargs.
struct HumanoidBodyParams {
  bool v5 = true;
  CommonParams common;
  double ctrl_cost_weight = 0.1, reset_noise_scale = 1e-2;
  bool exclude_current_positions = true;
  // v5 only (v4 always includes all four, with the world body and the free joint).
  bool include_cinert = true, include_cvel = true, include_qfrc_actuator = true, include_cfrc_ext = true;
};

class HumanoidBodyEnv : public MujocoEnv {
 public:
  static int64_t obs_size(const mjModel& m, const HumanoidBodyParams& p) {
    int64_t n = m.nq + m.nv - (p.exclude_current_positions ? 2 : 0);
    const int64_t bodies = p.v5 ? m.nbody - 1 : m.nbody;
    if (p.include_cinert) n += bodies * 10;
    if (p.include_cvel) n += bodies * 6;
    if (p.include_qfrc_actuator) n += p.v5 ? m.nv - 6 : m.nv;
    if (p.include_cfrc_ext) n += bodies * 6;
    return n;
  }

  void write_obs(void* dst) const final {
    ObsWriter w(dst);
    put_qpos_qvel(w, body_.exclude_current_positions ? 2 : 0);
    const size_t b0 = body_.v5 ? 1 : 0, nb = static_cast<size_t>(m_->nbody) - b0;
    if (body_.include_cinert) w.put(d_->cinert + 10 * b0, 10 * nb);
    if (body_.include_cvel) w.put(d_->cvel + 6 * b0, 6 * nb);
    if (body_.include_qfrc_actuator) {
      const size_t q0 = body_.v5 ? 6 : 0;
      w.put(d_->qfrc_actuator + q0, static_cast<size_t>(m_->nv) - q0);
    }
    if (body_.include_cfrc_ext) w.put(d_->cfrc_ext + 6 * b0, 6 * nb);
  }

 protected:
  HumanoidBodyEnv(ModelPtr model, const HumanoidBodyParams& p)
      : MujocoEnv(std::move(model), p.common.frame_skip), body_(p) {
    post_constraint_ = true;  // cfrc_ext: contact cost and observation
  }

  // ctrl_cost_weight, which Gymnasium lists second, after the task's first reward weight.
  static ConfigField ctrl_cost_weight_field() { return {"ctrl_cost_weight", 0.1, "Weight of the control cost."}; }
  // The kwargs both tasks declare last, in Gymnasium's order: reset_noise_scale,
  // exclude_current_positions_from_observation and (v5) the include_*_in_observation flags.
  static void add_body_fields(std::vector<ConfigField>& f, bool v5) {
    f.push_back({"reset_noise_scale", 1e-2, "Scale of the initial-state noise."});
    f.push_back({"exclude_current_positions_from_observation", true, "Omit the root x/y from the observation."});
    if (v5) {
      f.push_back({"include_cinert_in_observation", true, "Add cinert (without the world body)."});
      f.push_back({"include_cvel_in_observation", true, "Add cvel (without the world body)."});
      f.push_back({"include_qfrc_actuator_in_observation", true, "Add qfrc_actuator (without the free joint)."});
      f.push_back({"include_cfrc_ext_in_observation", true, "Add cfrc_ext (without the world body)."});
    }
  }
  // Reads the kwargs of HumanoidBodyParams: ctrl_cost_weight_field and add_body_fields.
  static void read_body_params(const Config& c, bool v5, HumanoidBodyParams& p) {
    p.ctrl_cost_weight = c.real("ctrl_cost_weight");
    p.reset_noise_scale = c.real("reset_noise_scale");
    p.exclude_current_positions = c.flag("exclude_current_positions_from_observation");
    if (v5) {
      p.include_cinert = c.flag("include_cinert_in_observation");
      p.include_cvel = c.flag("include_cvel_in_observation");
      p.include_qfrc_actuator = c.flag("include_qfrc_actuator_in_observation");
      p.include_cfrc_ext = c.flag("include_cfrc_ext_in_observation");
    }
  }
  // mujoco_spaces with obs_size, once the model has the free joint v5's qfrc_actuator slice drops.
  static Spaces body_spaces(const mjModel& m, const HumanoidBodyParams& p) {
    if (p.v5 && p.include_qfrc_actuator && m.nv < 6)
      throw std::invalid_argument("include_qfrc_actuator_in_observation needs a model with a free joint (nv >= 6)");
    return mujoco_spaces(m, obs_size(m, p));
  }

  // ctrl_cost_weight * np.sum(np.square(data.ctrl)): the humanoids' control cost reads data.ctrl
  // (float64), not the float32 action.
  double control_cost() const {
    return body_.ctrl_cost_weight * np_sum_squares(d_->ctrl, static_cast<size_t>(m_->nu));
  }
  // weight * np.sum(np.square(data.cfrc_ext)) over every body, before the task clips it.
  double cfrc_ext_cost(double weight) const {
    return weight * np_sum_squares(d_->cfrc_ext, static_cast<size_t>(m_->nbody) * 6);
  }

  void reset_model() override { reset_with_noise(body_.reset_noise_scale, /*normal_qvel=*/false); }

 private:
  HumanoidBodyParams body_;
};

}  // namespace envhive::mujoco
