#include "host/tokenizer/pre_tokenizer_table.h"

#include <array>

#include "host/common/status.h"

namespace orcd {
namespace {

// GPT-2 (HF ByteLevel with use_regex).
constexpr std::string_view kGpt2 =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
// Qwen2 tokenizer.json Split: single digits.
constexpr std::string_view kQwen2 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// Llama 3 tokenizer.json Split (cl100k): digits in groups of up to three.
constexpr std::string_view kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// tiktoken o200k_base / o200k_harmony pat_str (gpt-oss): combining marks are
// part of words, and a word splits before an upper-case run in any script.
constexpr std::string_view kO200k =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

constexpr std::array<PreTokenizerSpec, 6> kPreTokenizers = {{
    {"gpt-2", kGpt2, false, false, false},
    {"qwen2", kQwen2, true, false, false},
    {"llama-bpe", kLlama3, false, true, true},
    {"llama3", kLlama3, false, true, true},
    {"llama-v3", kLlama3, false, true, true},
    {"gpt-4o", kO200k, false, true, false},
}};

}  // namespace

const PreTokenizerSpec* TryFindPreTokenizer(std::string_view name) {
  for (const PreTokenizerSpec& spec : kPreTokenizers) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

const PreTokenizerSpec& FindPreTokenizer(std::string_view name) {
  if (const PreTokenizerSpec* spec = TryFindPreTokenizer(name)) return *spec;
  throw Error(ErrorCode::kUnsupported,
              "unknown byte-level BPE pre-tokenizer tokenizer.ggml.pre = '" + std::string(name) +
                  "' (known: " + KnownPreTokenizerNames() + ")");
}

std::string KnownPreTokenizerNames() {
  std::string names;
  for (const PreTokenizerSpec& spec : kPreTokenizers) {
    if (!names.empty()) names += ", ";
    names += spec.name;
  }
  return names;
}

}  // namespace orcd
