// A received batch as Python sees it: numpy arrays viewing the block (no copy), Gymnasium's
// (obs, reward, terminated, truncated, info) with SAME_STEP's final_obs / final_info.
#pragma once

#include <vector>

#include "../core/pool.h"
#include "numpy_views.h"

namespace envhive::bindings {

struct BatchOutputs {
  nb::object obs, reward, terminated, truncated;
  nb::dict info;
};

class BatchViews {
 public:
  BatchViews(const Spaces& spaces, const PoolOptions& options);

  // The arrays of block `blk` (owned by the capsule `owner`) laid out as `layout`.
  BatchOutputs outputs(PyObject* owner, std::byte* blk, const BatchLayout& layout) const;

 private:
  // SAME_STEP: Gymnasium's final_obs (object array, None where no episode ended) and final_info
  // (dict of arrays), each with its boolean mask; present only when an episode ended.
  void add_final(nb::dict& info, PyObject* owner, std::byte* blk, const BatchLayout& L, nb::handle env_id) const;

  const Spaces& spaces_;
  npy_intp rows_;
  ObsViews obs_;
  std::vector<nb::str> info_names_, final_info_masks_;
  std::vector<std::vector<npy_intp>> info_dims_;
};

}  // namespace envhive::bindings
