// The registrations: each of the 50 tasks under Meta-World's name and EnvPool's, the goal-observable
// and goal-hidden classes, and the MT / ML benchmarks as one pool each.
#include "metaworld.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>

#include "../mujoco/mujoco_env.h"
#include "benchmarks.h"
#include "model_store.h"
#include "task_table.h"

namespace envhive::metaworld {

namespace {

enum class IdKind { kTask, kFixed, kMT1, kMT, kML1, kML };

struct IdVariant {
  IdKind kind = IdKind::kTask;
  std::string task;              // kTask: the task's name
  bool goal_observable = false;  // kFixed: goal_observable (else goal_hidden)
  std::string bench;             // kMT / kML: "MT10", "ML45"
  bool test = false;             // kML1 / kML: the test split
};

// meta_batch_size's default for an ML split: Meta-World's 20 where it splits the split's classes and
// their 50 tasks evenly (ML10-train), else one env per class (Meta-World's own default raises there).
int64_t default_meta_batch_size(const IdVariant& v) {
  if (v.kind == IdKind::kML1) return 1;
  const Benchmark& b = benchmark(v.bench);
  const int64_t classes = static_cast<int64_t>((v.test ? b.test : b.train).size());
  return 20 % classes == 0 && 50 % (20 / classes) == 0 ? 20 : classes;
}

// One pool's settings, read from its config.
struct Resolved {
  std::shared_ptr<RandVecPlan> plan = std::make_shared<RandVecPlan>();
  bool partially_observable = true;
  int64_t one_hot_size = 0;
  bool terminate_on_success = false;
};

int64_t bounded(const Config& c, const char* name, int64_t lo, int64_t hi) {
  const int64_t v = c.integer(name);
  if (v < lo || v > hi)
    throw std::invalid_argument(std::string(name) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "], got " + std::to_string(v));
  return v;
}

const std::string& env_name(const Config& c) {
  const std::string& name = c.text("env_name");
  task_entry(name);  // throws for an unknown name
  return name;
}

Resolved resolve(const Config& c, const IdVariant& v) {
  const int64_t steps = c.integer("max_episode_steps");
  if (steps < 1 || steps > kMaxPathLength)
    throw std::invalid_argument("max_episode_steps must be in [1, 500] (Meta-World's max_path_length: its envs raise "
                                "past it), got " + std::to_string(steps));
  Resolved r;
  RandVecPlan& p = *r.plan;
  switch (v.kind) {
    case IdKind::kTask:
      p.mode = RandVecMode::kSeeded;
      p.classes = {v.task};
      r.partially_observable = c.flag("partially_observable");
      break;
    case IdKind::kFixed:
      p.mode = RandVecMode::kFixed;
      p.classes = {env_name(c)};
      r.partially_observable = !v.goal_observable;
      break;
    case IdKind::kMT1:
    case IdKind::kMT: {
      p.mode = RandVecMode::kRandomTask;
      p.classes = v.kind == IdKind::kMT1 ? std::vector<std::string>{env_name(c)} : benchmark(v.bench).train;
      p.block_size = static_cast<int>(p.classes.size());
      r.partially_observable = false;  // _MT_OVERRIDE
      r.terminate_on_success = c.flag("terminate_on_success");
      if (v.kind == IdKind::kMT && c.flag("use_one_hot")) {
        const int64_t n = c.integer("num_tasks");
        r.one_hot_size = n < 0 ? static_cast<int64_t>(p.classes.size()) : n;
        if (r.one_hot_size < static_cast<int64_t>(p.classes.size()) || r.one_hot_size > 4096)
          throw std::invalid_argument("num_tasks must be at least the benchmark's " + std::to_string(p.classes.size()) +
                                      " tasks (and at most 4096), got " + std::to_string(r.one_hot_size));
      }
      break;
    }
    case IdKind::kML1:
    case IdKind::kML: {
      p.mode = RandVecMode::kPseudoRandomTask;
      if (v.kind == IdKind::kML1) {
        p.classes = {env_name(c)};
        p.seed_offset = v.test ? 1 : 0;  // ML1's test tasks come from seed + 1
      } else {
        const Benchmark& b = benchmark(v.bench);
        p.classes = v.test ? b.test : b.train;
      }
      const int64_t batch = bounded(c, "meta_batch_size", 1, 100000);
      const int64_t n_classes = static_cast<int64_t>(p.classes.size());
      if (batch % n_classes != 0)
        throw std::invalid_argument("meta_batch_size must be divisible by the " + std::to_string(n_classes) +
                                    " task classes of the split, got " + std::to_string(batch));
      p.block_size = static_cast<int>(batch);
      p.envs_per_class = static_cast<int>(batch / n_classes);
      p.total_tasks_per_cls = bounded(c, "total_tasks_per_cls", -1, 50);
      const int64_t tasks = p.total_tasks_per_cls < 0 ? 50 : p.total_tasks_per_cls;
      if (tasks % p.envs_per_class != 0 || tasks < p.envs_per_class)
        throw std::invalid_argument(
            "Meta-World splits each class's " + std::to_string(tasks) + " tasks evenly over its " +
            std::to_string(p.envs_per_class) + " envs (meta_batch_size / classes): make the task count (50, or "
            "total_tasks_per_cls) a multiple of it");
      r.partially_observable = true;  // _ML_OVERRIDE
      r.terminate_on_success = c.flag("terminate_on_success");
      break;
    }
  }
  return r;
}

std::vector<ConfigField> render_fields() {
  return {{"width", int64_t{480}, "Frame width in pixels (render_mode='rgb_array')."},
          {"height", int64_t{480}, "Frame height in pixels (render_mode='rgb_array')."},
          {"camera_id", int64_t{-1}, "Model camera to render from; -1: Gymnasium's free camera. Not with camera_name."},
          {"camera_name", std::string(), "Model camera to render from, by name ('corner', 'topview', ...)."},
          {"max_geom", int64_t{1000}, "Most geoms a frame draws (MjvScene maxgeom)."}};
}

mujoco::RenderParams render_params(const Config& c) {
  mujoco::RenderParams p;
  p.width = static_cast<int>(bounded(c, "width", 1, kMaxRenderSide));
  p.height = static_cast<int>(bounded(c, "height", 1, kMaxRenderSide));
  p.camera_id = static_cast<int>(bounded(c, "camera_id", -1, 1 << 20));
  p.camera_name = c.text("camera_name");
  if (p.camera_id != -1 && !p.camera_name.empty())
    throw std::invalid_argument("camera_id and camera_name cannot both be given");
  p.max_geom = static_cast<int>(bounded(c, "max_geom", 1, 1 << 20));
  return p;
}

}  // namespace

// A Meta-World pool's envs: the registration's tag (TaskTraits below builds each env's task class).
struct MetaWorldPool : SawyerEnv {
  using SawyerEnv::SawyerEnv;
};

}  // namespace envhive::metaworld

namespace envhive {

template <>
struct TaskTraits<metaworld::MetaWorldPool> {
  using IdVariant = metaworld::IdVariant;
  using IdKind = metaworld::IdKind;
  static std::vector<ConfigField> config(const IdVariant& v) {
    std::vector<ConfigField> f;
    const ConfigField name{"env_name", std::string("reach-v3"), "The Meta-World task (one of the 50 v3 names)."};
    const ConfigField success{"terminate_on_success", v.test,
                              "End the episode (terminated) at the first success (AutoTerminateOnSuccessWrapper)."};
    switch (v.kind) {
      case IdKind::kTask:
        f.push_back({"partially_observable", true,
                     "Hide the goal (zeros in the observation's last 3 values), as EnvPool's default does."});
        break;
      case IdKind::kFixed:
        f.push_back(name);
        break;
      case IdKind::kMT1:
        f.push_back(name);
        f.push_back(success);
        break;
      case IdKind::kMT:
        f.push_back({"use_one_hot", false, "Append the task's one-hot (OneHotWrapper) to the observation."});
        f.push_back({"num_tasks", int64_t{-1}, "Size of the one-hot; -1: the benchmark's number of tasks."});
        f.push_back(success);
        break;
      case IdKind::kML1:
      case IdKind::kML:
        if (v.kind == IdKind::kML1) f.push_back(name);
        f.push_back({"meta_batch_size", metaworld::default_meta_batch_size(v),
                     "Envs of one Meta-World vector env: each task class gets meta_batch_size / classes of them "
                     "(default: Meta-World's 20 where that splits the 50 tasks evenly, else one env per class)."});
        f.push_back({"total_tasks_per_cls", int64_t{-1}, "Use only each class's first tasks; -1: all 50."});
        f.push_back(success);
        break;
    }
    for (auto& r : metaworld::render_fields()) f.push_back(std::move(r));
    return f;
  }
  static Spaces spaces(const Config& c, const IdVariant& v) {
    using namespace metaworld;
    const Resolved r = resolve(c, v);
    const int64_t n = kObsSize + r.one_hot_size;
    std::vector<double> low(static_cast<size_t>(n), 0.0), high(static_cast<size_t>(n), 1.0);
    // The union of the classes' bounds (an MT pool's goals differ by class).
    for (size_t k = 0; k < r.plan->classes.size(); ++k) {
      double lo[kObsSize], hi[kObsSize];
      observation_bounds(task_entry(r.plan->classes[k]).info, r.partially_observable, lo, hi);
      for (int i = 0; i < kObsSize; ++i) {
        low[i] = k == 0 ? lo[i] : std::min(low[i], lo[i]);
        high[i] = k == 0 ? hi[i] : std::max(high[i], hi[i]);
      }
    }
    Spaces s;
    s.observation = SpaceSpec::box(DType::kFloat64, {n}, low, high);
    s.action = SpaceSpec::box(DType::kFloat32, {4}, {-1, -1, -1, -1}, {1, 1, 1, 1});
    for (const char* name : {"success", "near_object", "grasp_success", "grasp_reward", "in_place_reward",
                             "obj_to_target", "unscaled_reward"})
      s.infos.push_back({name, DType::kFloat64, {}});
    const mujoco::RenderParams rp = render_params(c);
    s.render = {.height = rp.height, .width = rp.width, .fps = 80, .threads = 4};
    return s;
  }
  static std::unique_ptr<Env> make(const Config& c, int env_id, const IdVariant& v) {
    using namespace metaworld;
    const Resolved r = resolve(c, v);
    const EnvSlot slot = env_slot(*r.plan, env_id);
    const TaskEntry& entry = task_entry(r.plan->classes.at(static_cast<size_t>(slot.class_index)));
    EnvSettings s;
    s.task = &entry.info;
    s.partially_observable = r.partially_observable;
    s.plan = r.plan;
    s.env_index = env_id;
    s.one_hot_size = r.one_hot_size;
    s.one_hot_index = slot.class_index;
    s.terminate_on_success = r.terminate_on_success;
    auto env = entry.make(s, task_model(entry.info.xml));
    env->set_render_params(render_params(c));
    return env;
  }
};

void register_metaworld(TaskRegistry& registry, const FamilyData& data) {
  using namespace metaworld;
  mujoco::install_handlers();
  set_assets_dir(data.has("assets_dir") ? data.value("assets_dir") : std::string());
  constexpr uint64_t kLegacySeed = 0xffffffffu;  // numpy's legacy RandomState
  for (const TaskEntry& t : task_table()) {
    const std::string& name = t.info.name;  // "button-press-topdown-v3" -> "ButtonPressTopdown-v3"
    std::string camel;
    bool start = true;
    for (size_t i = 0; i + 3 < name.size(); ++i) {
      if (name[i] == '-') {
        start = true;
        continue;
      }
      camel += start ? static_cast<char>(std::toupper(static_cast<unsigned char>(name[i]))) : name[i];
      start = false;
    }
    IdVariant variant;
    variant.task = name;
    const std::string doc = "Meta-World " + name + " (Sawyer arm); a new goal each episode from the env's seed";
    register_task<MetaWorldPool>(registry, {.id = "Meta-World/" + name, .family = "metaworld", .doc = doc + ".",
                                   .max_episode_steps = kMaxPathLength}, variant);
    register_task<MetaWorldPool>(registry, {.id = "MetaWorld/" + camel + "-v3", .family = "metaworld",
                                   .doc = doc + " (EnvPool's id).", .max_episode_steps = kMaxPathLength}, variant);
  }
  const auto add = [&](const std::string& id, IdVariant v, const std::string& doc) {
    register_task<MetaWorldPool>(registry, {.id = id, .family = "metaworld", .doc = doc,
                                   .max_episode_steps = kMaxPathLength, .max_seed = kLegacySeed}, v);
  };
  const auto variant = [](IdKind kind, bool observable = false, std::string bench = "", bool test = false) {
    IdVariant v;
    v.kind = kind;
    v.goal_observable = observable;
    v.bench = std::move(bench);
    v.test = test;
    return v;
  };
  add("Meta-World/goal_observable", variant(IdKind::kFixed, true),
      "One Meta-World task (env_name) with one goal per env, observed (ALL_V3_ENVIRONMENTS_GOAL_OBSERVABLE).");
  add("Meta-World/goal_hidden", variant(IdKind::kFixed),
      "One Meta-World task (env_name) with one goal per env, hidden (ALL_V3_ENVIRONMENTS_GOAL_HIDDEN).");
  add("Meta-World/MT1", variant(IdKind::kMT1), "Meta-World's MT1: one task (env_name), 50 goals sampled from the seed.");
  for (const char* b : {"MT10", "MT25", "MT50"})
    add(std::string("Meta-World/") + b, variant(IdKind::kMT, false, b),
        std::string("Meta-World's ") + b + ": one env per task class, each sampling among its 50 goals.");
  for (const bool test : {false, true}) {
    const std::string split = test ? "test" : "train";
    add("Meta-World/ML1-" + split, variant(IdKind::kML1, false, "", test),
        "Meta-World's ML1 " + split + " split: one task (env_name), goals hidden.");
    for (const char* b : {"ML10", "ML25", "ML45"})
      add(std::string("Meta-World/") + b + "-" + split, variant(IdKind::kML, false, b, test),
          std::string("Meta-World's ") + b + " " + split + " split: goals hidden, tasks walked pseudo-randomly.");
  }
}

}  // namespace envhive
