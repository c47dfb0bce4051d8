// dm_env's view of a batch: step types and discounts, written on the caller's thread into two
// more columns of the same block, and the batch as a dm_env.TimeStep of read-only views.
#pragma once

#include "../core/pool.h"
#include "batch_views.h"

namespace envhive::bindings {

class DmColumns {
 public:
  explicit DmColumns(const Spaces& spaces);

  // What step_dm / recv_dm return their timestep as: a 4-field tuple subclass (dm_env.TimeStep).
  nb::object timestep_type() const { return timestep_type_.is_valid() ? timestep_type_ : nb::none(); }
  void set_timestep_type(nb::handle type);
  void check_timestep_type() const;

  // (timestep, (info, terminated, truncated)) of a batch whose views are `out`.
  nb::tuple timestep(PyObject* owner, std::byte* blk, const BatchLayout& layout, BatchOutputs& out) const;

 private:
  // A row is LAST when its episode ended, FIRST when it (re)started an episode (elapsed_step 0: a
  // reset, or the NEXT_STEP reset step after a LAST), MID otherwise; its discount is 0 on
  // termination, 1 otherwise (a truncation bootstraps), lowered by the task's own `discount` info
  // (Atari's zero_discount_on_life_loss).
  void write(std::byte* blk, const BatchLayout& layout) const;

  const Spaces& spaces_;
  // The index of the task's scalar `discount` info field; -1 without one (the dm facade refuses a
  // task whose `discount` info is not a scalar).
  int discount_info_ = -1;
  nb::object timestep_type_;
};

}  // namespace envhive::bindings
