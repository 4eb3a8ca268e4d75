// Building blocks of ggml's reference quantizers (ggml-quants.c, *_ref
// functions, no importance matrix). Every float operation is kept in ggml's
// order: the fixtures require byte-identical output, and this file is compiled
// with -ffp-contract=off so no multiply-add gets fused behind our back.
#ifndef ORCD_QUANT_COMMON_REFERENCE_QUANTIZER_H_
#define ORCD_QUANT_COMMON_REFERENCE_QUANTIZER_H_

#include <stdint.h>

namespace orcd::quant {

// Round to nearest (ties to even) through the 1.5 * 2^23 trick, as ggml; |x| < 2^22.
int nearest_int(float x);

// The element of largest magnitude, keeping its sign (first one on ties);
// 0 when all are zero. Q4_0 / Q5_0 scale their block by it.
float max_by_magnitude(const float* x, int n);

struct MinMax {
  float min;
  float max;
};
// Q4_1 / Q5_1: plain min and max of the block.
MinMax min_max(const float* x, int n);

// ggml's make_qx_quants: symmetric quants L[i] in [0, 2*nmax) for a group,
// returning the scale (rmse_type 1 with qw == nullptr weights by x^2).
float make_qx_quants(int n, int nmax, const float* x, int8_t* L, int rmse_type, const float* qw);

// ggml's make_qkx2_quants: asymmetric quants L[i] in [0, nmax] with a min,
// searching nstep + 1 candidate scales; returns the scale, *the_min = -min.
float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, uint8_t* L,
                       float* the_min, uint8_t* Laux, float rmin, float rdelta, int nstep,
                       bool use_mad);

// The shared half of quantize_row_q4_K_ref / quantize_row_q5_K_ref for one
// 256-element super-block: fits each 32-element sub-block with
// make_qkx2_quants(nmax, rmin, rdelta, nstep), packs the 6-bit scales and mins
// into scales[12], sets the fp16 d / dmin, and re-quantizes every element
// against the rounded scales into L[256] (values 0..nmax).
void quantize_k4_super_block(const float* x, int nmax, float rmin, float rdelta, int nstep,
                             uint8_t scales[12], uint16_t* d, uint16_t* dmin, uint8_t L[256]);

}  // namespace orcd::quant

#endif  // ORCD_QUANT_COMMON_REFERENCE_QUANTIZER_H_
