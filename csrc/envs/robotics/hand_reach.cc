// HandReach-v3 / HandReachDense-v3 (shadow_dexterous_hand/reach.py): bring the thumb and one other
// fingertip together at a point near the palm; goal and achieved goal are the five fingertips.
#include <array>
#include <cstring>
#include <map>
#include <mutex>

#include "hand.h"
#include "hand_env.h"

namespace envhive::robotics {

namespace {

constexpr const char* kTips[5] = {"robot0:S_fftip", "robot0:S_mftip", "robot0:S_rftip", "robot0:S_lftip",
                                  "robot0:S_thtip"};

// reach.py DEFAULT_INITIAL_QPOS.
const std::pair<const char*, double> kInitialQpos[] = {
    {"robot0:WRJ1", -0.16514339750464327},   {"robot0:WRJ0", -0.31973286565062153},
    {"robot0:FFJ3", 0.14340512546557435},    {"robot0:FFJ2", 0.32028208333591573},
    {"robot0:FFJ1", 0.7126053607727917},     {"robot0:FFJ0", 0.6705281001412586},
    {"robot0:MFJ3", 0.000246444303701037},   {"robot0:MFJ2", 0.3152655251085491},
    {"robot0:MFJ1", 0.7659800313729842},     {"robot0:MFJ0", 0.7323156897425923},
    {"robot0:RFJ3", 0.00038520700007378114}, {"robot0:RFJ2", 0.36743546201985233},
    {"robot0:RFJ1", 0.7119514095008576},     {"robot0:RFJ0", 0.6699446327514138},
    {"robot0:LFJ4", 0.0525442258033891},     {"robot0:LFJ3", -0.13615534724474673},
    {"robot0:LFJ2", 0.39872030433433003},    {"robot0:LFJ1", 0.7415570009679252},
    {"robot0:LFJ0", 0.704096378652974},      {"robot0:THJ4", 0.003673823825070126},
    {"robot0:THJ3", 0.5506291436028695},     {"robot0:THJ2", -0.014515151997119306},
    {"robot0:THJ1", -0.0015229223564485414}, {"robot0:THJ0", -0.7894883021600622},
};

// _env_setup's results, the same for every env.
struct ReachSetup {
  ModelPtr model;
  InitialState initial;
  std::array<double, 15> initial_goal{};
  std::array<double, 3> palm_xpos{};
  std::array<int, 5> tips{};
};

std::shared_ptr<const ReachSetup> reach_setup() {
  static std::mutex mu;
  static std::weak_ptr<const ReachSetup> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto cached = cache.lock()) return cached;
  auto s = std::make_shared<ReachSetup>();
  s->model = load_robot_model(asset_path("hand/reach.xml"));
  const mjModel* m = s->model.get();
  mjData* d = mj_makeData(m);
  for (const auto& [name, value] : kInitialQpos) d->qpos[m->jnt_qposadr[name_id(m, mjOBJ_JOINT, name)]] = value;
  mj_forward(m, d);
  for (int k = 0; k < 5; ++k) {
    s->tips[k] = name_id(m, mjOBJ_SITE, kTips[k]);
    std::memcpy(s->initial_goal.data() + 3 * k, d->site_xpos + 3 * s->tips[k], 3 * sizeof(double));
  }
  std::memcpy(s->palm_xpos.data(), d->xpos + 3 * name_id(m, mjOBJ_BODY, "robot0:palm"), 3 * sizeof(double));
  s->initial.time = d->time;
  s->initial.qpos.assign(d->qpos, d->qpos + m->nq);
  s->initial.qvel.assign(d->qvel, d->qvel + m->nv);
  mj_deleteData(d);
  cache = s;
  return s;
}

class HandReachEnv final : public HandEnv {
 public:
  HandReachEnv(const Config& c, std::shared_ptr<const ReachSetup> setup)
      : HandEnv(setup->model), setup_(std::move(setup)), dense_(dense_reward(c)) {}

  void reset() override {
    restore(setup_->initial);
    mj_forward(m_, d_);
    sample_goal();
    observe();
    is_success_ = goal_distance(achieved_.data(), goal_.data(), 15) < kThreshold ? 1.0f : 0.0f;
  }

  StepResult step(const void* action) override {
    act(action);
    observe();
    const double d = goal_distance(achieved_.data(), goal_.data(), 15);
    is_success_ = d < kThreshold ? 1.0f : 0.0f;
    StepResult r;
    r.reward = dense_ ? -d : -static_cast<double>(d > kThreshold ? 1.0f : 0.0f);
    return r;
  }

  void write_obs_leaves(void* const* dst) const override {
    std::memcpy(dst[0], achieved_.data(), sizeof(achieved_));
    std::memcpy(dst[1], goal_.data(), sizeof(goal_));
    std::memcpy(dst[2], obs_.data(), sizeof(obs_));
  }
  void write_info(void* const* dst) const override { std::memcpy(dst[0], &is_success_, sizeof(float)); }

 private:
  static constexpr double kThreshold = 0.01;

  void sample_goal() {
    const int finger = static_cast<int>(rng().integers(0, 4));  // np_random.choice of the four fingers
    double meeting[3];
    for (int k = 0; k < 3; ++k) meeting[k] = setup_->palm_xpos[k] + (k == 0 ? 0.0 : (k == 1 ? -0.09 : 0.05));
    for (double& v : meeting) v += 0.0 + 0.005 * mujoco::standard_normal(rng());
    goal_ = setup_->initial_goal;
    for (const int idx : {4, finger}) {
      double dir[3];
      for (int k = 0; k < 3; ++k) dir[k] = meeting[k] - goal_[3 * idx + k];
      const double n = numerics::blas_norm(dir, 3);
      for (int k = 0; k < 3; ++k) goal_[3 * idx + k] = meeting[k] - 0.005 * (dir[k] / n);
    }
    if (rng().uniform(0.0, 1.0) < 0.1) goal_ = setup_->initial_goal;
  }

  void observe() {
    for (int k = 0; k < 5; ++k) std::memcpy(achieved_.data() + 3 * k, site_xpos(setup_->tips[k]), 3 * sizeof(double));
    double* o = put_robot_state(obs_.data());
    std::memcpy(o, achieved_.data(), sizeof(achieved_));
  }

  std::shared_ptr<const ReachSetup> setup_;
  bool dense_;
  std::array<double, 15> goal_{}, achieved_{};
  std::array<double, 63> obs_{};
  float is_success_ = 0.0f;
};

}  // namespace

Spaces hand_reach_spaces(const Config& c) {
  dense_reward(c);
  return HandEnv::hand_spaces(15, 63);
}

std::unique_ptr<Env> make_hand_reach(const Config& c) { return std::make_unique<HandReachEnv>(c, reach_setup()); }

}  // namespace envhive::robotics
