// Space helpers the classic-control tasks share: Gymnasium declares their bounds as float32 arrays.
#pragma once

#include <cstdint>
#include <vector>

#include "../../core/numpy_compat.h"
#include "../../core/spec.h"

namespace envhive::classic_control {

// Box(-high, high, dtype=float32) with `high` a float32 array.
inline SpaceSpec symmetric_f32_box(const std::vector<double>& high_values) {
  std::vector<double> low, high;
  for (double h : high_values) {
    high.push_back(npcompat::f32(h));
    low.push_back(-npcompat::f32(h));
  }
  return SpaceSpec::box(DType::kFloat32, {static_cast<int64_t>(high_values.size())}, low, high);
}

// Box(low, high, dtype=float32) with float32 array bounds.
inline SpaceSpec f32_box(const std::vector<double>& low_values, const std::vector<double>& high_values) {
  std::vector<double> low, high;
  for (double v : low_values) low.push_back(npcompat::f32(v));
  for (double v : high_values) high.push_back(npcompat::f32(v));
  return SpaceSpec::box(DType::kFloat32, {static_cast<int64_t>(low_values.size())}, low, high);
}

}  // namespace envhive::classic_control
