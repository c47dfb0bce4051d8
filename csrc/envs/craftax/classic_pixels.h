// Craftax-Classic's pixel observation (Craftax-Classic-Pixels-v1: 63 x 63 x 3 float32 in [0, 1])
// and frames (render(): craftax's play-window renderer, 64 pixels a block).
#pragma once

#include <cstdint>
#include <vector>

#include "classic_state.h"
#include "classic_textures.h"

namespace envhive::craftax {

// Per-thread buffers of the renderer.
struct PixelScratch {
  std::vector<float> map;
  std::vector<int32_t> inventory;
};

inline constexpr int kClassicPixelBlock = 7;  // BLOCK_PIXEL_SIZE_AGENT
inline constexpr int kClassicRenderBlock = 64;  // BLOCK_PIXEL_SIZE_HUMAN
inline constexpr int kClassicPixelRows = 9, kClassicPixelCols = 9;  // (OBS_DIM[0] + 2) x OBS_DIM[1] blocks

// What differs between the XLA kernels that draw the image (measured on jax 0.10.2's CPU backend):
// in the vmapped step's kernel the red channel's daylight product is shared with the sleep path, so
// LLVM fuses the other product there; the kernel's vector loop covers 8 pixels a row at a time, and
// the scalar loop after it (from `tail_from`) computes each channel on its own.
struct PixelKernel {
  bool red_shared = false;
  int tail_from = 1 << 30;
};
// The vmapped auto-resetting step's observation (Craftax-Classic-Pixels-v1 after a step), and the
// reset's (the jitted vmapped reset, or the reset inside the step that ends an episode).
inline constexpr PixelKernel kClassicStepKernel{true, 56};
inline constexpr PixelKernel kClassicResetKernel{false, 56};
// The play-window renderer jitted on one state (render()).
inline constexpr PixelKernel kClassicRenderKernel{false, 1 << 30};

// make_craftax_pixel_renderer(t.block)(state) at light level `daylight`: (9 block) x (9 block) x 3
// float32, divided by 255 when `normalise` (the observation) or left in 0..255 (frames).
void classic_pixels(const ClassicState& s, const ClassicParams& p, const ClassicTextures& t, float daylight,
                    const PixelKernel& kernel, bool normalise, float* out, PixelScratch& scratch);

}  // namespace envhive::craftax
