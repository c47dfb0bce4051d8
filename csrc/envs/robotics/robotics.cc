#include "robotics.h"

#include <string>

#include "fetch.h"
#include "robot_env.h"

namespace envhive::robotics {

namespace {

// The Fetch tasks as fetch/{reach,push,slide,pick_and_place}.py configure MujocoFetchEnv.
FetchTask fetch_task(const std::string& name) {
  FetchTask t;
  const std::vector<std::pair<std::string, std::vector<double>>> arm = {
      {"robot0:slide0", {0.405}}, {"robot0:slide1", {0.48}}, {"robot0:slide2", {0.0}}};
  if (name == "Reach") {
    t.xml = "fetch/reach.xml";
    t.block_gripper = true;
    t.gripper_extra_height = 0.2;
    t.target_in_the_air = true;
    t.initial_qpos = {{"robot0:slide0", {0.4049}}, {"robot0:slide1", {0.48}}, {"robot0:slide2", {0.0}}};
  } else if (name == "Push") {
    t.xml = "fetch/push.xml";
    t.has_object = true;
    t.block_gripper = true;
    t.initial_qpos = arm;
    t.initial_qpos.push_back({"object0:joint", {1.25, 0.53, 0.4, 1.0, 0.0, 0.0, 0.0}});
  } else if (name == "Slide") {
    t.xml = "fetch/slide.xml";
    t.has_object = true;
    t.block_gripper = true;
    t.gripper_extra_height = -0.02;
    t.target_offset = {0.4, 0.0, 0.0};
    t.obj_range = 0.1;
    t.target_range = 0.3;
    t.initial_qpos = {{"robot0:slide0", {0.05}},
                      {"robot0:slide1", {0.48}},
                      {"robot0:slide2", {0.0}},
                      {"object0:joint", {1.7, 1.1, 0.41, 1.0, 0.0, 0.0, 0.0}}};
  } else {  // PickAndPlace
    t.xml = "fetch/pick_and_place.xml";
    t.has_object = true;
    t.gripper_extra_height = 0.2;
    t.target_in_the_air = true;
    t.initial_qpos = arm;
    t.initial_qpos.push_back({"object0:joint", {1.25, 0.53, 0.4, 1.0, 0.0, 0.0, 0.0}});
  }
  return t;
}

void register_fetch(TaskRegistry& registry) {
  const std::pair<const char*, const char*> tasks[] = {
      {"Reach", "Move the Fetch arm's gripper to a goal position"},
      {"Push", "Push a block to a goal position on the table with the Fetch arm"},
      {"Slide", "Hit a puck so that it slides to a goal position on a long table"},
      {"PickAndPlace", "Pick up a block and place it at a goal position, on the table or in the air"},
  };
  for (const auto& [name, doc] : tasks) {
    for (const bool dense : {false, true}) {
      FetchTask t = fetch_task(name);
      t.dense = dense;
      const std::string id = std::string("Fetch") + name + (dense ? "Dense" : "") + "-v4";
      register_task<FetchEnv>(registry,
                              {.id = id,
                               .family = "robotics",
                               .doc = std::string(doc) + (dense ? ", dense reward" : ", sparse reward") +
                                      " (Gymnasium-Robotics " + id + ").",
                               .max_episode_steps = 50},
                              t);
    }
  }
}

}  // namespace

void register_tasks(TaskRegistry& registry, const std::string& assets_dir) {
  mujoco::install_handlers();
  set_assets_dir(assets_dir);
  register_fetch(registry);
}

}  // namespace envhive::robotics
