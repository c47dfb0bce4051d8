#include "dmc.h"

#include <cctype>
#include <string>

#include "../mujoco/mujoco_env.h"
#include "cartpole.h"
#include "dmc_env.h"

namespace envhive {
namespace {

using namespace envhive::dmc;

// EnvPool's id of a suite task: each '_'-separated word of domain and task capitalised
// (ball_in_cup/catch -> BallInCupCatch-v1, humanoid_CMU/run -> HumanoidCMURun-v1).
std::string envpool_id(const DmcTask& t) {
  std::string id;
  for (const std::string* part : {&t.domain, &t.task}) {
    bool start = true;
    for (const char c : *part) {
      if (c == '_') {
        start = true;
        continue;
      }
      id += start ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      start = false;
    }
  }
  return id + "-v1";
}

template <class E>
void add(TaskRegistry& registry, const DmcTask& t, const std::string& doc) {
  const std::string shimmy = "dm_control/" + t.domain + "-" + t.task + "-v0";
  for (const std::string& id : {envpool_id(t), shimmy})
    register_task<E>(registry,
                     {.id = id,
                      .family = "dmc",
                      .doc = doc + " (dm_control " + t.domain + "/" + t.task + ")."},
                     t);
}

}  // namespace

void register_dmc(TaskRegistry& registry, ModelSource source) {
  mujoco::install_handlers();
  set_model_source(std::move(source));
  const double inf = kInf;
  (void)inf;
  add<CartpoleEnv>(registry, {"cartpole", "balance", 10}, "Balance a pole on a cart");
  add<CartpoleEnv>(registry, {"cartpole", "balance_sparse", 10}, "Balance a pole on a cart, sparse reward");
  add<CartpoleEnv>(registry, {"cartpole", "swingup", 10}, "Swing up and balance a pole on a cart");
  add<CartpoleEnv>(registry, {"cartpole", "swingup_sparse", 10}, "Swing up and balance a pole on a cart, sparse reward");
  add<CartpoleEnv>(registry, {"cartpole", "two_poles", 10}, "Swing up and balance two chained poles on a cart");
  add<CartpoleEnv>(registry, {"cartpole", "three_poles", 10}, "Swing up and balance three chained poles on a cart");
}

}  // namespace envhive
