#include "tools/synth/synth_shapes.h"

#include "tools/synth/shape_builder.h"

namespace orcd::synth {
namespace {

ModelShape Demo(uint32_t demo_type) {
  ModelShape s;
  s.shape = "demo";
  s.architecture = "qwen2";
  s.name = "orcd-demo-qwen2";
  s.file_type = demo_type == ORCD_TYPE_F16 ? kFileTypeF16 : kFileTypeQ8_0;
  s.context_length = 512;
  s.n_embd = 64;
  s.n_layer = 2;
  s.n_head = 4;
  s.n_head_kv = 2;
  s.n_ff = 128;
  s.n_vocab = 151936;  // the real Qwen2 vocabulary, so text tokenizes
  s.rope_freq_base = 1000000.0f;
  s.needs_vocab_file = true;
  AddDecoderTensors(s, DecoderLayout{.qkv_bias = true},
                    [demo_type](const std::string&, uint32_t) { return demo_type; });
  return s;
}

// A tiny smollm3 (served by no bundled plugin: sdk/examples/smollm3 is the
// out-of-tree one): Llama-style layers, every fourth without RoPE (layer 3),
// tied head, with the Qwen2 vocabulary (the fixtures have no Llama 3 one).
ModelShape SmolLm3Tiny(uint32_t type) {
  ModelShape s;
  s.shape = "smollm3-tiny";
  s.architecture = "smollm3";
  s.name = "orcd-smollm3-tiny";
  s.file_type = type == ORCD_TYPE_F16 ? kFileTypeF16 : kFileTypeQ8_0;
  s.context_length = 2048;
  s.n_embd = 64;
  s.n_layer = 4;
  s.n_head = 4;
  s.n_head_kv = 2;
  s.n_ff = 128;
  s.n_vocab = 151936;
  s.rope_freq_base = 5000000.0f;
  s.needs_vocab_file = true;
  AddDecoderTensors(s, DecoderLayout{}, [type](const std::string&, uint32_t) { return type; });
  return s;
}

}  // namespace

std::optional<ModelShape> MakeShape(const std::string& shape, uint32_t demo_type) {
  if (shape == "demo") return Demo(demo_type);
  if (shape == "smollm3-tiny") return SmolLm3Tiny(demo_type);
  return MakeRealModelShape(shape);
}

const char* ShapeNames() {
  return "demo | smollm3-tiny | qwen2-0.5b | phi3-mini | gpt-oss-20b | qwen3-8b | qwen3-30b-a3b "
         "| gemma-3-4b | llama-3.1-8b";
}

}  // namespace orcd::synth
