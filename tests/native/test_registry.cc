// Task declaration and registration: what register_task and validate_spaces accept and refuse.
#include "check.h"
#include "core/task.h"

namespace envhive {
namespace {

class TinyEnv final : public Env {
 public:
  static std::vector<ConfigField> config(int infos) { return {{"infos", int64_t{infos}, "info fields declared"}}; }
  static Spaces spaces(const Config& c, int) {
    Spaces s{SpaceSpec::box(DType::kFloat32, {2}, {-1.0}, {1.0}), SpaceSpec::discrete(2), {}};
    for (int64_t i = 0; i < c.integer("infos"); ++i) s.infos.push_back({"info" + std::to_string(i), DType::kInt32, {}});
    return s;
  }
  TinyEnv(const Config&, int, int) {}
  void reset() override {}
  StepResult step(const void*) override { return {}; }
  void write_obs(void* dst) const override { static_cast<float*>(dst)[0] = static_cast<float*>(dst)[1] = 0.0f; }
};

TEST(register_task_appends_the_common_time_limit_field) {
  TaskRegistry r;
  register_task<TinyEnv>(r, {.id = "Tiny-v0", .family = "t", .doc = "d", .max_episode_steps = 77}, 0);
  const TaskDef* t = r.find("Tiny-v0");
  CHECK(t != nullptr);
  CHECK_EQ(t->config.size(), size_t{2});
  CHECK_EQ(t->config.back().name, std::string("max_episode_steps"));
  CHECK_EQ(t->resolve_config({}).integer("max_episode_steps"), int64_t{77});
  CHECK_THROWS(register_task<TinyEnv>(r, {.id = "Tiny-v0", .family = "t", .doc = "d"}, 0), "registered twice");
  CHECK_THROWS(t->resolve_config({{"bogus", int64_t{1}}}), "unknown config field 'bogus'");
}

TEST(the_info_field_limit_is_enforced_when_spaces_resolve) {
  TaskRegistry r;
  register_task<TinyEnv>(r, {.id = "Tiny-v0", .family = "t", .doc = "d"}, 0);
  const TaskDef* t = r.find("Tiny-v0");
  CHECK_EQ(t->resolve_spaces(t->resolve_config({{"infos", int64_t{kMaxInfoFields}}})).infos.size(), kMaxInfoFields);
  CHECK_THROWS(t->resolve_spaces(t->resolve_config({{"infos", int64_t{kMaxInfoFields + 1}}})), "at most 64");
}

TEST(spaces_are_validated) {
  Spaces s{SpaceSpec::box(DType::kFloat32, {3}, {0.0, 0.0}, {1.0}), SpaceSpec::discrete(2), {}};
  CHECK_THROWS(validate_spaces(s, "X"), "2 bounds for 3 elements");
  s.observation = SpaceSpec::box(DType::kFloat32, {1}, {2.0}, {1.0});
  CHECK_THROWS(validate_spaces(s, "X"), "low > high");
  s.observation = SpaceSpec::box(DType::kFloat32, {1}, {0.0}, {1.0});
  s.action = SpaceSpec::discrete(0);
  CHECK_THROWS(validate_spaces(s, "X"), "Discrete(0)");
  s.action = SpaceSpec::discrete(2);
  s.infos = {{"env_id", DType::kInt32, {}}};
  CHECK_THROWS(validate_spaces(s, "X"), "reserved");
  s.infos = {{"a", DType::kInt32, {}}, {"a", DType::kInt32, {}}};
  CHECK_THROWS(validate_spaces(s, "X"), "declared twice");
  s.infos = {{"a", DType::kInt32, {}}};
  validate_spaces(s, "X");
}

TEST(structured_observations_are_validated) {
  const SpaceSpec box = SpaceSpec::box(DType::kFloat32, {2}, {0.0}, {1.0});
  Spaces s{SpaceSpec::dict({{"a", box}, {"b", SpaceSpec::text(8)}, {"c", SpaceSpec::tuple({box, SpaceSpec::discrete(3)})}}),
           SpaceSpec::discrete(2), {}};
  validate_spaces(s, "X");
  CHECK_EQ(space_leaves(s.observation).size(), size_t{4});
  CHECK_EQ(space_leaves(s.observation)[3].path, std::string("c/1"));
  CHECK_EQ(s.observation.bytes(), size_t{8 + 8 + 8 + 8});
  s.observation = SpaceSpec::dict({{"a", box}, {"a", box}});
  CHECK_THROWS(validate_spaces(s, "X"), "key 'a' twice");
  s.observation = SpaceSpec::dict({{"a/b", box}});
  CHECK_THROWS(validate_spaces(s, "X"), "holds '/'");
  s.observation = SpaceSpec::tuple({});
  CHECK_THROWS(validate_spaces(s, "X"), "empty Dict or Tuple");
  s.observation = SpaceSpec::text(4, 5);
  CHECK_THROWS(validate_spaces(s, "X"), "min_length");
  s.observation = SpaceSpec::dict({{"a", SpaceSpec::dict({{"b", SpaceSpec::box(DType::kFloat32, {1}, {2.0}, {1.0})}})}});
  CHECK_THROWS(validate_spaces(s, "X"), "observation space['a']['b'] has low > high");
  std::vector<SpaceSpec> many(kMaxObsLeaves + 1, box);
  s.observation = SpaceSpec::tuple(many);
  CHECK_THROWS(validate_spaces(s, "X"), "at most 64");
  s.observation = box;
  s.action = SpaceSpec::dict({{"a", box}});
  CHECK_THROWS(validate_spaces(s, "X"), "must be a Box or a Discrete");
}

TEST(replace_swaps_a_definition_in_place) {
  TaskRegistry r;
  register_task<TinyEnv>(r, {.id = "A-v0", .family = "t", .doc = "first"}, 0);
  register_task<TinyEnv>(r, {.id = "B-v0", .family = "t", .doc = "other"}, 0);
  r.replace(make_task_def<TinyEnv>({.id = "A-v0", .family = "t", .doc = "second"}, 0));
  CHECK_EQ(r.tasks().size(), size_t{2});
  CHECK_EQ(r.tasks()[0].meta.doc, std::string("second"));
}

}  // namespace
}  // namespace envhive
