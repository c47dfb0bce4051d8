#include "engine_instance.h"

#include <cstring>
#include <stdexcept>

#include "engine_library.h"

namespace envhive::procgen {

namespace {

// The space a libenv instance reports, as one list.
std::vector<abi::TensorType> space(const EngineLibrary& lib, void* handle, abi::SpaceName name) {
  const int n = lib.tensor_types(handle, name, nullptr);
  std::vector<abi::TensorType> out(static_cast<size_t>(std::max(n, 0)));
  if (n > 0) lib.tensor_types(handle, name, out.data());
  return out;
}

bool is(const abi::TensorType& t, const char* name, abi::DType dtype, std::vector<int> shape) {
  if (std::strncmp(t.name, name, abi::kMaxNameLength) != 0 || t.dtype != dtype) return false;
  if (t.ndim != static_cast<int>(shape.size())) return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (t.shape[i] != shape[i]) return false;
  return true;
}

}  // namespace

EngineInstance::EngineInstance(const EngineOptions& o, int32_t rand_seed, bool render)
    : lib_(&engine_library()) {
  const EngineLibrary& lib = *lib_;
  // procgen/env.py's options, in its order and with its dtypes (bools are one uint8, ints int32,
  // strings their bytes). The engine reads them inside libenv_make; they are kept for its life.
  struct Named {
    const char* name;
    char kind;  // 'b' bool, 'i' int32, 's' string
    int64_t value;
    const std::string* text;
  };
  const Named named[] = {
      {"center_agent", 'b', o.center_agent, nullptr},
      {"use_generated_assets", 'b', o.use_generated_assets, nullptr},
      {"use_monochrome_assets", 'b', o.use_monochrome_assets, nullptr},
      {"restrict_themes", 'b', o.restrict_themes, nullptr},
      {"use_backgrounds", 'b', o.use_backgrounds, nullptr},
      {"paint_vel_info", 'b', o.paint_vel_info, nullptr},
      {"distribution_mode", 'i', o.distribution_mode, nullptr},
      {"env_name", 's', 0, &o.env_name},
      {"num_levels", 'i', o.num_levels, nullptr},
      {"start_level", 'i', o.start_level, nullptr},
      {"num_actions", 'i', kActions, nullptr},
      {"use_sequential_levels", 'b', o.use_sequential_levels, nullptr},
      {"debug_mode", 'i', o.debug_mode, nullptr},
      {"rand_seed", 'i', rand_seed, nullptr},
      {"num_threads", 'i', 0, nullptr},
      {"render_human", 'b', render, nullptr},
      {"resource_root", 's', 0, &lib.assets},
  };
  constexpr size_t n = sizeof(named) / sizeof(named[0]);
  strings_.reserve(n);
  ints_.reserve(n);
  bools_.reserve(n);
  std::vector<abi::Option> items(n);
  for (size_t i = 0; i < n; ++i) {
    abi::Option& opt = items[i];
    switch (named[i].kind) {
      case 'b':
        bools_.push_back(named[i].value ? 1 : 0);
        opt = {{}, abi::kDTypeUInt8, 1, &bools_.back()};
        break;
      case 'i':
        ints_.push_back(static_cast<int32_t>(named[i].value));
        opt = {{}, abi::kDTypeInt32, 1, &ints_.back()};
        break;
      default:
        strings_.push_back(*named[i].text);
        opt = {{}, abi::kDTypeUInt8, static_cast<int>(strings_.back().size()), strings_.back().data()};
    }
    std::strncpy(opt.name, named[i].name, abi::kMaxNameLength - 1);
  }
  handle_ = lib.make(1, abi::Options{items.data(), static_cast<int>(n)});
  if (!handle_) throw std::runtime_error("procgen: libenv_make returned no instance for " + o.env_name);

  // The spaces this instance reports must be the ones procgen 0.10.7 has.
  const auto ob = space(lib, handle_, abi::kSpaceObservation);
  const auto ac = space(lib, handle_, abi::kSpaceAction);
  const auto info = space(lib, handle_, abi::kSpaceInfo);
  const bool ok_ob = ob.size() == 1 && is(ob[0], "rgb", abi::kDTypeUInt8, {kFrameSide, kFrameSide, 3});
  const bool ok_ac = ac.size() == 1 && is(ac[0], "action", abi::kDTypeInt32, {});
  if (render) render_frame_ = std::make_unique<uint8_t[]>(kRenderBytes);
  info_ptrs_.assign(info.size(), nullptr);
  bool ok_info = info.size() == (render ? 4u : 3u);
  for (size_t k = 0; k < info.size() && ok_info; ++k) {
    if (is(info[k], "level_seed", abi::kDTypeInt32, {}))
      info_ptrs_[k] = &level_seed_;
    else if (is(info[k], "prev_level_seed", abi::kDTypeInt32, {}))
      info_ptrs_[k] = &prev_level_seed_;
    else if (is(info[k], "prev_level_complete", abi::kDTypeUInt8, {}))
      info_ptrs_[k] = &prev_level_complete_;
    else if (render && is(info[k], "rgb", abi::kDTypeUInt8, {kRenderSide, kRenderSide, 3}))
      info_ptrs_[k] = render_frame_.get();
    else
      ok_info = false;
  }
  if (!ok_ob || !ok_ac || !ok_info) {
    lib.close(handle_);
    handle_ = nullptr;
    throw std::runtime_error("procgen: " + lib.path + " reports spaces other than procgen 0.10.7's");
  }
  ob_ptrs_ = {frame_};
  ac_ptrs_ = {&action_};
  buffers_ = {ob_ptrs_.data(), &reward_, &first_, info_ptrs_.data(), ac_ptrs_.data()};
  // With no threads, the engine resets its game and draws the first frame inside this call.
  lib.set_buffers(handle_, &buffers_);
}

EngineInstance::~EngineInstance() {
  if (handle_) lib_->close(handle_);
}

void EngineInstance::act(int32_t action) {
  action_ = action;
  lib_->act(handle_);
}

const uint8_t* EngineInstance::render() {
  if (!render_frame_) throw std::logic_error("procgen: this engine instance was made without render_human");
  lib_->observe(handle_);
  return render_frame_.get();
}

}  // namespace envhive::procgen
