// The MPE family (mpe2 1.1.1's nine classic scenarios) as multi-agent tasks: ids are mpe2's
// module names (simple_spread_v3, ...), kwargs its constructor arguments.
#include "mpe.h"

#include "mpe_env.h"
#include "scenario.h"

namespace envhive::mpe {

std::vector<ScenarioDef> scenario_defs() {
  return {simple_spread_def(),  simple_adversary_def(),        simple_tag_def(),
          simple_def(),         simple_push_def(),             simple_speaker_listener_def(),
          simple_reference_def(), simple_crypto_def(),         simple_world_comm_def()};
}

void register_tasks(TaskRegistry& registry, const FamilyData& data) {
  for (ScenarioDef def : scenario_defs()) {
    def.data = &data;
    TaskMeta meta{.id = def.name + "_v" + std::to_string(def.version), .family = "mpe", .doc = def.doc};
    register_task<MpeEnv>(registry, std::move(meta), def);
  }
}

}  // namespace envhive::mpe
