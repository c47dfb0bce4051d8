// How a task is declared and registered: one way for every family, built in or out of tree.
//
// A task is a class E derived from Env that declares, as static members and a constructor:
//
//   static std::vector<ConfigField> config(const Args&...);  // its kwargs, with defaults and docs
//   static Spaces spaces(const Config&, const Args&...);      // observation, action and info fields
//   E(const Config&, int env_id, const Args&...);             // one env of a pool
//
// and one line registers it:  register_task<E>(registry, {.id = ..., .doc = ..., ...}, args...);
// `args` are what one registration passes to all three (a MuJoCo version, an Atari ROM; usually
// nothing). `max_episode_steps` is never declared by a task: register_task appends the one common
// field with TaskMeta::max_episode_steps as its default, and the pool enforces it.
// TaskTraits<E> is the one place where a family may adapt other shapes to these three members.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "env.h"
#include "family_data.h"
#include "spec.h"

namespace envhive {

// What a registration says about a task beyond what its class declares.
struct TaskMeta {
  std::string id;      // "CartPole-v1"; a plug-in's ids carry its namespace: "mypkg/MyTask-v0"
  std::string family;  // "classic_control", "mujoco", ...
  std::string doc;     // one sentence: what the task is
  int64_t max_episode_steps = 0;  // the default time limit (truncation); 0: none
  // Per-env reset(options={...}) names the task's envs accept, with docs (Env::set_reset_option).
  std::vector<std::pair<std::string, std::string>> reset_options = {};
  bool hidden = false;  // an engine test task: makeable by id, but not listed nor registered with Gymnasium
  // Images the task's renderer draws: {name, PNG file}. The bindings read each once per process
  // before the first frame (RenderImages); a pool that never renders never reads them.
  std::vector<std::pair<std::string, std::string>> render_images = {};
  // The largest seed the task's envs accept (Env::seed): the bindings refuse a larger one before
  // any env sees it (dm_control's numpy RandomState takes seeds below 2**32).
  uint64_t max_seed = UINT64_MAX;
  // The task's observations draw its render images too (CarRacing's reward text): the bindings
  // read them when a pool is made, not at its first frame.
  bool images_at_start = false;
  // max_episode_steps is part of the task, not only a truncation (minigrid's max_steps scales its
  // success reward): a single env keeps it, and Gymnasium registers no TimeLimit around the id.
  bool task_time_limit = false;
};

// The declaration of the config field every task has (its doc is written once, here).
ConfigField max_episode_steps_field(int64_t default_steps);

// A registered task, type-erased: what the pool and the bindings use.
struct TaskDef {
  TaskMeta meta;
  std::vector<ConfigField> config;  // the task's fields, then max_episode_steps
  std::function<Spaces(const Config&)> spaces;
  std::function<std::unique_ptr<Env>(const Config&, int env_id)> make;

  const std::string& id() const { return meta.id; }
  // spaces(config), checked by validate_spaces: every caller resolves spaces through this.
  Spaces resolve_spaces(const Config& config) const;
  // The declared defaults, overridden by `values` (names must be declared fields).
  Config resolve_config(const std::map<std::string, ConfigValue>& values) const;
};

// The tasks of one extension module (each module is a complete engine for its own tasks).
class TaskRegistry {
 public:
  // Adds a task; throws std::invalid_argument on an empty or duplicate id, duplicate config names,
  // or a reset option without a name.
  void add(TaskDef def);
  // Adds or replaces the task with def's id (a redefined Python-written env); pools already built
  // keep the definition they were built from.
  void replace(TaskDef def);
  const TaskDef* find(const std::string& id) const;
  const std::vector<TaskDef>& tasks() const { return tasks_; }
  // Forgets every task (a registration that failed half way).
  void clear() { tasks_.clear(); }

 private:
  static void check(const TaskDef& def);
  std::vector<TaskDef> tasks_;
};

// The registry of this module.
TaskRegistry& task_registry();

template <class E>
struct TaskTraits {
  template <class... Args>
  static std::vector<ConfigField> config(const Args&... args) {
    return E::config(args...);
  }
  template <class... Args>
  static Spaces spaces(const Config& c, const Args&... args) {
    return E::spaces(c, args...);
  }
  template <class... Args>
  static std::unique_ptr<Env> make(const Config& c, int env_id, const Args&... args) {
    return std::make_unique<E>(c, env_id, args...);
  }
};

// The TaskDef of task class E (see the top of this file); register_task adds it to a registry.
template <class E, class... Args>
TaskDef make_task_def(TaskMeta meta, Args... args) {
  static_assert(std::derived_from<E, Env>, "register_task<E>: E must derive from envhive::Env");
  static_assert(
      requires(const Args&... a) {
        { TaskTraits<E>::config(a...) } -> std::convertible_to<std::vector<ConfigField>>;
      }, "register_task<E>: E needs `static std::vector<ConfigField> config(const Args&...)`");
  static_assert(
      requires(const Config& c, const Args&... a) {
        { TaskTraits<E>::spaces(c, a...) } -> std::convertible_to<Spaces>;
      }, "register_task<E>: E needs `static Spaces spaces(const Config&, const Args&...)`");
  static_assert(
      requires(const Config& c, int env_id, const Args&... a) {
        { TaskTraits<E>::make(c, env_id, a...) } -> std::convertible_to<std::unique_ptr<Env>>;
      }, "register_task<E>: E needs a constructor E(const Config&, int env_id, const Args&...)");
  static_assert(!std::is_same_v<decltype(&E::write_obs), decltype(&Env::write_obs)> ||
                    !std::is_same_v<decltype(&E::write_obs_leaves), decltype(&Env::write_obs_leaves)>,
                "register_task<E>: E must override write_obs (one Box, Discrete or Text observation) or "
                "write_obs_leaves (a Dict or Tuple observation)");
  TaskDef def;
  def.config = TaskTraits<E>::config(args...);
  def.config.push_back(max_episode_steps_field(meta.max_episode_steps));
  def.meta = std::move(meta);
  def.spaces = [args...](const Config& c) { return TaskTraits<E>::spaces(c, args...); };
  def.make = [args...](const Config& c, int env_id) -> std::unique_ptr<Env> {
    return TaskTraits<E>::make(c, env_id, args...);
  };
  return def;
}

template <class E, class... Args>
void register_task(TaskRegistry& registry, TaskMeta meta, Args... args) {
  registry.add(make_task_def<E>(std::move(meta), std::move(args)...));
}

}  // namespace envhive
