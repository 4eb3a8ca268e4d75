// The contract every quant type implements, and the generic block decoder
// built on it.
//
// A type is a struct T with:
//   static constexpr orcd_ggml_type kType;  const char* kName;
//   static constexpr int kElems;             // elements per block (ggml's block size)
//   struct Block;                            // ggml's byte layout, sizeof == bytes per block
//   static constexpr int kChunks, kRunLen;   // see "chunks" below
//   ORCD_QUANT_HD static constexpr int run_start(int chunk, int run);
//   ORCD_QUANT_HD static void decode_chunk(const Block&, int chunk, float v[kChunkValues]);
//
// Chunks: a block is decoded in kChunks pieces of kChunkValues (8) values, each
// made from a few neighbouring bytes, so one GPU thread can decode one chunk
// with no cross-thread traffic. The 8 values of a chunk are kChunkValues/kRunLen
// runs of kRunLen consecutive elements: v[r * kRunLen + i] is element
// run_start(c, r) + i of the block. decode_chunk must compute every value with
// exactly ggml's float operations (same order, no fused multiply-add), so the
// decoded values are bit-identical to ggml's to_float on every backend.
//
// Chunks are numbered so that chunks [16k, 16k + 16) of a row cover exactly
// row elements [128k, 128k + 128) (checked by covers_tiles_of_128() below);
// the CUDA prefill kernel decodes 128-element column tiles that way.
#ifndef ORCD_QUANT_COMMON_BLOCK_CODEC_H_
#define ORCD_QUANT_COMMON_BLOCK_CODEC_H_

#include <stdint.h>

#include "common/compiler.h"
#include "orcd/cpp/half.h"
#include "orcd/plugin.h"

namespace orcd::quant {

inline constexpr int kChunkValues = 8;

// Decodes a whole block into out[0, T::kElems) with the chunk decoder: the
// portable (scalar) dequantizer, bit-identical to ggml's.
template <class T>
ORCD_QUANT_HD void decode_block_by_chunks(const typename T::Block& b, float* out) {
  constexpr int kRuns = kChunkValues / T::kRunLen;
  for (int c = 0; c < T::kChunks; ++c) {
    float v[kChunkValues];
    T::decode_chunk(b, c, v);
    for (int r = 0; r < kRuns; ++r) {
      float* dst = out + T::run_start(c, r);
      for (int i = 0; i < T::kRunLen; ++i) dst[i] = v[r * T::kRunLen + i];
    }
  }
}

// Compile-time check of the chunk numbering rule stated above.
template <class T>
constexpr bool covers_tiles_of_128() {
  if (T::kChunks * kChunkValues != T::kElems) return false;
  if (T::kElems % 32 != 0 || (T::kElems > 128 && T::kElems % 128 != 0)) return false;
  constexpr int kRuns = kChunkValues / T::kRunLen;
  const int blocks = T::kElems >= 128 ? 1 : 128 / T::kElems;  // blocks in a 128-element tile
  for (int b = 0; b < blocks; ++b) {
    for (int c = 0; c < T::kChunks; ++c) {
      const int g = b * T::kChunks + c;  // chunk number in the row
      for (int r = 0; r < kRuns; ++r) {
        const int e = b * T::kElems + T::run_start(c, r);  // first element in the row
        if (e / 128 != g / 16 || (e + T::kRunLen - 1) / 128 != g / 16) return false;
      }
    }
  }
  return true;
}

// Layout shared by Q4_0, Q4_1, Q5_0, Q5_1 and MXFP4: 16 bytes of nibbles, byte j
// holding element j (low nibble) and element j + 16 (high nibble). Chunk c reads
// bytes 4c..4c+3: run 0 is elements 4c..4c+3, run 1 elements 16+4c..16+4c+3.
struct NibblePairs32Layout {
  static constexpr int kElems = 32;
  static constexpr int kChunks = 4;
  static constexpr int kRunLen = 4;
  ORCD_QUANT_HD static constexpr int run_start(int c, int r) { return r * 16 + 4 * c; }
};

// Layout of Q4_K and Q5_K quants: 4 groups of 64 elements, each 32 bytes whose
// low nibbles are elements 0..31 of the group and high nibbles 32..63. Chunk c
// reads bytes 4(c%8)..+3 of group c/8.
struct KQuantNibbleLayout {
  static constexpr int kElems = 256;
  static constexpr int kChunks = 32;
  static constexpr int kRunLen = 4;
  ORCD_QUANT_HD static constexpr int run_start(int c, int r) {
    return (c / 8) * 64 + r * 32 + (c % 8) * 4;
  }
};

// Unpacks the 6-bit scale and min of sub-block j (0..7) from the 12 packed
// bytes of Q4_K / Q5_K (ggml's get_scale_min_k4).
ORCD_QUANT_HD void get_scale_min_k4(int j, const uint8_t* q, uint8_t* d, uint8_t* m) {
  if (j < 4) {
    *d = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *d = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    *m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4));
  }
}

// Little-endian 32-bit word from 4 bytes of any alignment.
ORCD_QUANT_HD uint32_t load_le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

}  // namespace orcd::quant

#endif  // ORCD_QUANT_COMMON_BLOCK_CODEC_H_
