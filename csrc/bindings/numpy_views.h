// numpy arrays viewing the memory of a batch block or a frame block, without a copy. A block is
// owned on the Python side by a capsule (make_owner) that every array viewing it keeps alive; the
// capsule gives the block back to its recycler when the last view goes, however long after the
// pool closed. The numpy C API is imported by module.cc (PY_ARRAY_UNIQUE_SYMBOL envhive_ARRAY_API).
#pragma once

#include <nanobind/nanobind.h>

#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL envhive_ARRAY_API
#include <numpy/arrayobject.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "../core/batch.h"
#include "../core/spec.h"

namespace envhive::bindings {

namespace nb = nanobind;

// The numpy type number of a DType.
int npy_type(DType d);

// Raises `type(message)` (an envhive error type, or `fallback` before envhive installed them).
[[noreturn]] void raise(const nb::object& type, PyObject* fallback, const std::string& message);

// A capsule owning `block` for the arrays that view it (a new reference): the block goes back to
// `recycler` when the capsule dies.
PyObject* make_owner(const std::shared_ptr<BlockRecycler>& recycler, std::byte* block);

// A numpy array viewing `data`, kept alive by `owner`.
nb::object view(PyObject* owner, const void* data, int typenum, int nd, const npy_intp* dims,
                int flags = NPY_ARRAY_CARRAY);

// The dtype of `a` as numpy prints it ("float32", "<U3", ...).
std::string dtype_text(PyArrayObject* a);

// How one leaf of an observation is viewed: rows of `dims` (without the row axis) of `typenum`;
// a Text leaf is one numpy bytes value ("S<max_length>", zero padded) per row.
struct LeafView {
  int typenum = NPY_FLOAT32;
  int itemsize = 0;  // > 0: a bytes dtype of this many bytes (a Text leaf)
  std::vector<npy_intp> dims;

  static LeafView of(const SpaceSpec& leaf);
  // `rows` rows starting at `data`; rows < 0: one row without the row axis (a final observation).
  nb::object array(PyObject* owner, const void* data, npy_intp rows) const;
};

// An observation's structure as Python sees it: the leaves' views and how they nest (Dict items as
// a dict in the declared order, Tuple items as a tuple).
class ObsViews {
 public:
  explicit ObsViews(const SpaceSpec& observation);
  // The observation of `rows` rows whose leaf k starts at leaf_data[k] (rows < 0: one row).
  nb::object build(PyObject* owner, const std::byte* const* leaf_data, npy_intp rows) const;
  size_t leaves() const { return leaves_.size(); }
  const LeafView& leaf(size_t k) const { return leaves_[k]; }

 private:
  struct Node {
    bool is_dict = false, is_tuple = false;
    size_t leaf = 0;                // a leaf node: its index
    std::vector<nb::str> keys;      // a Dict node's keys
    std::vector<size_t> children;   // indexes into nodes_
  };
  size_t add(const SpaceSpec& s);
  nb::object build_node(size_t node, PyObject* owner, const std::byte* const* leaf_data, npy_intp rows) const;

  std::vector<LeafView> leaves_;
  std::vector<Node> nodes_;  // nodes_[0]: the root
};

}  // namespace envhive::bindings
