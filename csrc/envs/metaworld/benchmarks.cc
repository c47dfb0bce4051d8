#include "benchmarks.h"

#include <map>
#include <stdexcept>

#include "task_table.h"

namespace envhive::metaworld {

const std::vector<std::string>& all_task_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const TaskEntry& t : task_table()) n.push_back(t.info.name);
    return n;
  }();
  return names;
}

const Benchmark& benchmark(const std::string& name) {
  static const std::map<std::string, Benchmark> benchmarks = [] {
    std::map<std::string, Benchmark> b;
    const std::vector<std::string> mt10 = {"reach-v3",          "push-v3",           "pick-place-v3",
                                           "door-open-v3",      "drawer-open-v3",    "drawer-close-v3",
                                           "button-press-topdown-v3", "peg-insert-side-v3", "window-open-v3",
                                           "window-close-v3"};
    std::vector<std::string> mt25 = mt10;
    for (const char* n : {"coffee-pull-v3", "pick-out-of-hole-v3", "disassemble-v3", "pick-place-wall-v3",
                          "basketball-v3", "stick-pull-v3", "button-press-wall-v3", "faucet-open-v3", "door-lock-v3",
                          "lever-pull-v3", "sweep-into-v3", "faucet-close-v3", "coffee-button-v3",
                          "button-press-topdown-wall-v3", "dial-turn-v3"})
      mt25.push_back(n);
    b["MT10"] = {"MT10", mt10, {}};
    b["MT25"] = {"MT25", mt25, {}};
    b["MT50"] = {"MT50", all_task_names(), {}};
    b["ML10"] = {"ML10",
                 {"reach-v3", "push-v3", "pick-place-v3", "door-open-v3", "drawer-close-v3", "button-press-topdown-v3",
                  "peg-insert-side-v3", "window-open-v3", "sweep-v3", "basketball-v3"},
                 {"drawer-open-v3", "door-close-v3", "shelf-place-v3", "sweep-into-v3", "lever-pull-v3"}};
    b["ML25"] = {"ML25", mt25, {"basketball-v3", "door-close-v3", "shelf-place-v3", "sweep-v3", "button-press-v3"}};
    std::vector<std::string> ml45_test = {"bin-picking-v3", "box-close-v3", "hand-insert-v3", "door-lock-v3",
                                          "door-unlock-v3"};
    // ML45's train classes: ML45_V3["train"]'s order (ALL_V3_ENVIRONMENTS's, with push-back-v3 moved
    // after pick-out-of-hole-v3 and push-v3 / reach-v3 after push-wall-v3 / reach-wall-v3).
    b["ML45"] = {"ML45",
                 {"assembly-v3",          "basketball-v3",       "button-press-topdown-v3",
                  "button-press-topdown-wall-v3", "button-press-v3", "button-press-wall-v3",
                  "coffee-button-v3",     "coffee-pull-v3",      "coffee-push-v3",
                  "dial-turn-v3",         "disassemble-v3",      "door-close-v3",
                  "door-open-v3",         "drawer-close-v3",     "drawer-open-v3",
                  "faucet-open-v3",       "faucet-close-v3",     "hammer-v3",
                  "handle-press-side-v3", "handle-press-v3",     "handle-pull-side-v3",
                  "handle-pull-v3",       "lever-pull-v3",       "pick-place-wall-v3",
                  "pick-out-of-hole-v3",  "push-back-v3",        "pick-place-v3",
                  "plate-slide-v3",       "plate-slide-side-v3", "plate-slide-back-v3",
                  "plate-slide-back-side-v3", "peg-insert-side-v3", "peg-unplug-side-v3",
                  "soccer-v3",            "stick-push-v3",       "stick-pull-v3",
                  "push-wall-v3",         "push-v3",             "reach-wall-v3",
                  "reach-v3",             "shelf-place-v3",      "sweep-into-v3",
                  "sweep-v3",             "window-open-v3",      "window-close-v3"},
                 ml45_test};
    return b;
  }();
  auto it = benchmarks.find(name);
  if (it == benchmarks.end())
    throw std::invalid_argument("unknown Meta-World benchmark '" + name + "' (MT10, MT25, MT50, ML10, ML25, ML45)");
  return it->second;
}

}  // namespace envhive::metaworld
