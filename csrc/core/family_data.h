// What envhive's Python side hands a family when its module loads: the files and folders of
// installed Python packages the family declared (envhive_add_family's DATA: Gymnasium's MuJoCo
// assets, ale-py's ROMs), and files built on demand by the family's Python resolver (dm_control's
// model XML), if its descriptor has one (src/envhive/families/<family>.py). A register function
// that declares DATA takes it (`void register_tasks(TaskRegistry&, const FamilyData&)`); the object
// lives as long as the module, so tasks may keep a reference to it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace envhive {

class FamilyData {
 public:
  using Files = std::vector<std::pair<std::string, std::string>>;  // {name, contents}
  using Args = std::vector<std::pair<std::string, int64_t>>;
  // Called with the GIL taken by the bindings; may throw (the message reaches the caller).
  using Resolver = std::function<Files(const std::string& key, const Args& args)>;

  FamilyData() = default;
  FamilyData(std::string family, std::map<std::string, std::string> values, Resolver resolver)
      : family_(std::move(family)), values_(std::move(values)), resolver_(std::move(resolver)) {}

  const std::string& family() const { return family_; }
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  // The value of `key`; std::runtime_error naming the family, the key and what provides it when
  // the module was loaded without it (the package it comes from is not installed).
  const std::string& value(const std::string& key) const;
  // Files the family's resolver builds for `key` (std::runtime_error when the family has none).
  Files resolve(const std::string& key, const Args& args = {}) const;

 private:
  std::string family_;
  std::map<std::string, std::string> values_;
  Resolver resolver_;
};

// Every family's data of one module, by family name.
class ModuleData {
 public:
  void set(FamilyData data) { families_[data.family()] = std::move(data); }
  // The family's data (the bindings set one for every family of the module, empty or not).
  const FamilyData& family(const std::string& name) const;

 private:
  std::map<std::string, FamilyData> families_;
};

}  // namespace envhive
