#include "family_data.h"

#include <stdexcept>

namespace envhive {

const std::string& FamilyData::value(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end())
    throw std::runtime_error("the " + family_ + " family was loaded without its data '" + key +
                             "' (the Python package that provides it is not installed, or the module was loaded "
                             "outside envhive)");
  return it->second;
}

FamilyData::Files FamilyData::resolve(const std::string& key, const Args& args) const {
  if (!resolver_) throw std::runtime_error("the " + family_ + " family has no resolver for '" + key + "'");
  return resolver_(key, args);
}

const FamilyData& ModuleData::family(const std::string& name) const {
  auto it = families_.find(name);
  if (it == families_.end()) throw std::logic_error("no data for family '" + name + "' in this module");
  return it->second;
}

}  // namespace envhive
