// The gated activations of a feed-forward's first half, h = act(gate, up):
// one definition for every kernel that applies them (the host's SWIGLU and
// MoE kernels, and a quant plugin's fused gate/up matvec), so a fused launch
// gives the unfused launches' bits. Plain float code: host, emulator and,
// compiled by nvcc, device.
#ifndef ORCD_CPP_GATED_ACTIVATION_H_
#define ORCD_CPP_GATED_ACTIVATION_H_

#include <math.h>
#include <stdint.h>

#include "orcd/cpp/half.h"
#include "orcd/ops.h"

#if defined(__CUDACC__)
#define ORCD_GATED_HD __host__ __device__ __forceinline__
#else
#define ORCD_GATED_HD inline
#endif

namespace orcd {

// ggml_silu_f32: x / (1 + e^-x).
ORCD_GATED_HD float Silu(float x) { return x / (1.0f + expf(-x)); }

// GELU's tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) x (1 + 0.044715 x^2))).
ORCD_GATED_HD float GeluTanhF32(float x) {
  const float kSqrt2OverPi = 0.79788456080286535587989211986876f;
  return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * x * (1.0f + 0.044715f * x * x)));
}

// GELU as ggml's CPU backend computes it (GGML_GELU_FP16, the reference the
// goldens come from): 0 or x beyond +-10 (where it is that to f32
// precision), else the tanh form at x rounded to f16, rounded to f16 (ggml
// reads it from a 64K-entry table; the CPU adapters do too, with these bits).
ORCD_GATED_HD float GeluTanh(float x) {
  if (x <= -10.0f) return 0.0f;
  if (x >= 10.0f) return x;
  return fp16_to_f32(f32_to_fp16(GeluTanhF32(fp16_to_f32(f32_to_fp16(x)))));
}

// activation: orcd_moe_activation. SWIGLU: silu(g) * u; SWIGLU_OAI
// (gpt-oss): g = min(g, limit), u = clamp(u, -limit, limit),
// g * sigmoid(alpha g) * (u + 1); GEGLU: gelu(g) * u.
ORCD_GATED_HD float GatedActivation(uint32_t activation, float g, float u, float alpha,
                                    float limit) {
  if (activation == ORCD_MOE_ACT_GEGLU) return GeluTanh(g) * u;
  if (activation == ORCD_MOE_ACT_SWIGLU_OAI) {
    const float x = fminf(g, limit);
    const float y = fminf(fmaxf(u, -limit), limit);
    return x / (1.0f + expf(-alpha * x)) * (y + 1.0f);
  }
  return Silu(g) * u;
}

}  // namespace orcd

#endif  // ORCD_CPP_GATED_ACTIVATION_H_
