/* Example quant plugin: serves ggml's Q8_1 (blocks of 32 int8 values with an
 * f16 scale d and an f16 sum s = d * sum(q)). Plain C, one file, nothing but
 * <orcd/plugin.h>: what a third-party plugin needs. */
#include <math.h>
#include <orcd/plugin.h>
#include <stdint.h>
#include <string.h>

#define QK8_1 32
typedef struct {
  uint16_t d; /* f16 */
  uint16_t s; /* f16 */
  int8_t qs[QK8_1];
} block_q8_1;

static float f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  float f;
  if (exp == 0) { /* zero or subnormal */
    f = ldexpf((float)mant, -24);
    memcpy(&bits, &f, 4);
    bits |= sign;
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  }
  memcpy(&f, &bits, 4);
  return f;
}

static uint16_t f32_to_f16(float f) { /* round to nearest even */
  uint32_t x;
  memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31) return (uint16_t)(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return (uint16_t)sign;
    mant |= 0x800000;
    {
      const uint32_t shift = (uint32_t)(14 - exp);
      uint32_t half = mant >> shift;
      const uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
      if (rem > mid || (rem == mid && (half & 1))) ++half;
      return (uint16_t)(sign | half);
    }
  }
  {
    uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
    return (uint16_t)h;
  }
}

static void dequantize_row(const void* blocks, float* out, int64_t n) {
  const block_q8_1* b = (const block_q8_1*)blocks;
  for (int64_t i = 0; i < n / QK8_1; ++i) {
    const float d = f16_to_f32(b[i].d);
    for (int j = 0; j < QK8_1; ++j) out[i * QK8_1 + j] = d * (float)b[i].qs[j];
  }
}

/* ggml's quantize_row_q8_1_ref. */
static void quantize_row(const float* in, void* blocks, int64_t n) {
  block_q8_1* b = (block_q8_1*)blocks;
  for (int64_t i = 0; i < n / QK8_1; ++i) {
    float amax = 0.0f, d, id;
    int sum = 0;
    for (int j = 0; j < QK8_1; ++j) amax = fmaxf(amax, fabsf(in[i * QK8_1 + j]));
    d = amax / 127.0f;
    id = d ? 1.0f / d : 0.0f;
    b[i].d = f32_to_f16(d);
    for (int j = 0; j < QK8_1; ++j) {
      b[i].qs[j] = (int8_t)roundf(in[i * QK8_1 + j] * id);
      sum += b[i].qs[j];
    }
    b[i].s = f32_to_f16((float)sum * d);
  }
}

static void get_rows(const void* w, int64_t cols, const int32_t* ids, int64_t n_ids, float* out) {
  const size_t row_bytes = (size_t)(cols / QK8_1) * sizeof(block_q8_1);
  for (int64_t i = 0; i < n_ids; ++i) {
    dequantize_row((const char*)w + (size_t)ids[i] * row_bytes, out + i * cols, cols);
  }
}

static void matmul(const void* w, int64_t rows, int64_t cols, const float* x, int64_t n_tokens,
                   float* y, int64_t y_stride) {
  const block_q8_1* b = (const block_q8_1*)w;
  const int64_t nb = cols / QK8_1;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t t = 0; t < n_tokens; ++t) {
      float acc = 0.0f;
      for (int64_t i = 0; i < nb; ++i) {
        const block_q8_1* blk = &b[r * nb + i];
        const float* xs = x + t * cols + i * QK8_1;
        float s = 0.0f;
        for (int j = 0; j < QK8_1; ++j) s += (float)blk->qs[j] * xs[j];
        acc += f16_to_f32(blk->d) * s;
      }
      y[t * y_stride + r] = acc;
    }
  }
}

static const orcd_quant_cpu_ops kCpu = {sizeof(orcd_quant_cpu_ops), dequantize_row, quantize_row,
                                        get_rows, matmul};
static const orcd_quant_type kTypes[] = {
    {sizeof(orcd_quant_type), ORCD_TYPE_Q8_1, "Q8_1", QK8_1, sizeof(block_q8_1), &kCpu, 0}};
static const orcd_quant_plugin kQuant = {sizeof(orcd_quant_plugin), 1, kTypes};
static const orcd_plugin_descriptor kDescriptor = {sizeof(orcd_plugin_descriptor),
                                                   ORCD_ABI_MAJOR,
                                                   ORCD_ABI_MINOR,
                                                   "example-q8_1",
                                                   "1.0.0",
                                                   ORCD_PLUGIN_QUANT,
                                                   0,
                                                   &kQuant};

ORCD_PLUGIN_EXPORT const orcd_plugin_descriptor* orcd_plugin_v1(const orcd_host_services* host) {
  (void)host;
  return &kDescriptor;
}
