#include "robotics.h"

#include <cctype>
#include <string>
#include <tuple>
#include <vector>

#include "adroit.h"
#include "ant_maze.h"
#include "fetch.h"
#include "hand.h"
#include "kitchen.h"
#include "maze.h"
#include "point_maze.h"
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

// The maze layouts of the PointMaze and AntMaze ids, with their time limits (point, ant).
struct MazeLayoutId {
  const char* name;
  int64_t point_steps, ant_steps;
};
constexpr MazeLayoutId kMazes[] = {
    {"UMaze", 300, 700},          {"Open", 300, 700},           {"Open_Diverse_G", 300, 700},
    {"Open_Diverse_GR", 300, 700}, {"Medium", 600, 1000},        {"Medium_Diverse_G", 600, 1000},
    {"Medium_Diverse_GR", 600, 1000}, {"Large", 800, 1000},      {"Large_Diverse_G", 800, 1000},
    {"Large_Diverse_GR", 800, 1000},
};

void register_mazes(TaskRegistry& registry) {
  for (const MazeLayoutId& maze : kMazes)
    for (const bool dense : {false, true}) {
      const std::string suffix = std::string(maze.name) + (dense ? "Dense" : "");
      const std::string reward = dense ? ", dense reward" : ", sparse reward";
      const std::string point_id = "PointMaze_" + suffix + "-v3";
      register_task<PointMazeEnv>(registry,
                                  {.id = point_id,
                                   .family = "robotics",
                                   .doc = "Steer a force-actuated ball to a goal in the " + std::string(maze.name) +
                                          " maze" + reward + " (Gymnasium-Robotics " + point_id + ").",
                                   .max_episode_steps = maze.point_steps},
                                  MazeTask{.reference_id = point_id, .dense = dense});
      for (const bool v5 : {false, true}) {
        const std::string ant_id = "AntMaze_" + suffix + (v5 ? "-v5" : "-v4");
        register_task<AntMazeEnv>(registry,
                                  {.id = ant_id,
                                   .family = "robotics",
                                   .doc = "Make Gymnasium's Ant walk to a goal in the " + std::string(maze.name) +
                                          " maze" + reward + " (Gymnasium-Robotics " + ant_id + ").",
                                   .max_episode_steps = maze.ant_steps},
                                  MazeTask{.reference_id = ant_id, .dense = dense, .v5 = v5});
      }
    }
}

void register_adroit(TaskRegistry& registry) {
  const std::tuple<AdroitTask, const char*, const char*> tasks[] = {
      {AdroitTask::kDoor, "Door", "Open a door with the Adroit hand"},
      {AdroitTask::kHammer, "Hammer", "Drive a nail into a board with a hammer held in the Adroit hand"},
      {AdroitTask::kPen, "Pen", "Turn a pen in the Adroit hand to a target orientation"},
      {AdroitTask::kRelocate, "Relocate", "Move a ball to a target position with the Adroit hand"},
  };
  for (const auto& [task, name, doc] : tasks)
    for (const bool dense : {true, false}) {
      const std::string id = std::string("AdroitHand") + name + (dense ? "" : "Sparse") + "-v1";
      register_task<AdroitEnv>(registry,
                               {.id = id,
                                .family = "robotics",
                                .doc = std::string(doc) + (dense ? ", dense reward" : ", sparse reward") +
                                       " (Gymnasium-Robotics " + id + ").",
                                .max_episode_steps = 200},
                               task, dense);
    }
}

void register_hand(TaskRegistry& registry) {
  for (const bool dense : {false, true}) {
    const std::string id = std::string("HandReach") + (dense ? "Dense" : "") + "-v3";
    register_task<HandReachDecl>(registry,
                                 {.id = id,
                                  .family = "robotics",
                                  .doc = "Bring the Shadow Hand's thumb and a fingertip together (Gymnasium-Robotics " +
                                         id + ").",
                                  .max_episode_steps = 50},
                                 HandReachTask{.dense = dense});
  }
  // (name, target_position, target_rotation) of each object's ids (gymnasium_robotics/__init__.py).
  struct Variant {
    const char* suffix;
    const char* position;
    const char* rotation;
  };
  const std::pair<const char*, std::vector<Variant>> objects[] = {
      {"Block",
       {{"RotateZ", "ignore", "z"}, {"RotateParallel", "ignore", "parallel"}, {"RotateXYZ", "ignore", "xyz"},
        {"Full", "random", "xyz"}, {"", "random", "xyz"}}},
      {"Egg", {{"Rotate", "ignore", "xyz"}, {"Full", "random", "xyz"}, {"", "random", "xyz"}}},
      {"Pen", {{"Rotate", "ignore", "xyz"}, {"Full", "random", "xyz"}, {"", "random", "xyz"}}},
  };
  for (const auto& [object, variants] : objects)
    for (const Variant& v : variants)
      for (const char* touch : {"", "boolean", "sensordata"}) {
        if (std::string(v.suffix) == "Full" && *touch) continue;  // no touch-sensor Full ids
        for (const bool dense : {false, true}) {
          const std::string touch_name =
              *touch ? (std::string(touch) == "boolean" ? "_BooleanTouchSensors" : "_ContinuousTouchSensors") : "";
          const std::string id =
              std::string("HandManipulate") + object + v.suffix + touch_name + (dense ? "Dense" : "") + "-v1";
          std::string lower = object;
          for (char& ch : lower) ch = static_cast<char>(std::tolower(ch));
          register_task<HandManipulateDecl>(
              registry,
              {.id = id,
               .family = "robotics",
               .doc = std::string("Manipulate a ") + lower + " in the Shadow Hand to a goal pose (Gymnasium-Robotics " +
                      id + ").",
               .max_episode_steps = 100},
              HandManipulateTask{.object = lower,
                                 .target_position = v.position,
                                 .target_rotation = v.rotation,
                                 .touch = touch,
                                 .dense = dense});
        }
      }
}

}  // namespace

void register_tasks(TaskRegistry& registry, const FamilyData& data) {
  mujoco::install_handlers();
  set_assets_dir(data.has("assets_dir") ? data.value("assets_dir") : std::string());
  set_maze_source([&data](const std::string& agent, const std::string& reference_id) {
    return maze_files(data.resolve(agent + "/" + reference_id));
  });
  register_fetch(registry);
  register_mazes(registry);
  register_adroit(registry);
  register_hand(registry);
  register_task<KitchenDecl>(registry,
                             {.id = "FrankaKitchen-v1",
                              .family = "robotics",
                              .doc = "Complete kitchen tasks (burners, light, cabinets, microwave, kettle) with a "
                                     "Franka arm (Gymnasium-Robotics FrankaKitchen-v1).",
                              .max_episode_steps = 280},
                             KitchenTask{});
}

}  // namespace envhive::robotics
