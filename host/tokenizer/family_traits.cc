#include "host/tokenizer/family_traits.h"

#include <array>

namespace orcd {
namespace {

constexpr std::string_view kQwenSystem = "You are a helpful assistant.";

constexpr std::array<FamilyTraits, 5> kFamilies = {{
    {"qwen2", ChatFormat::kChatMl, kQwenSystem, false},
    {"qwen2moe", ChatFormat::kChatMl, kQwenSystem, false},
    {"qwen3", ChatFormat::kChatMl, "", false},
    {"phi3", ChatFormat::kPhi3, "", true},
    {"gpt-oss", ChatFormat::kHarmony, "", false},
}};

}  // namespace

const FamilyTraits* FindFamilyTraits(std::string_view architecture) {
  for (const FamilyTraits& traits : kFamilies) {
    if (traits.architecture == architecture) return &traits;
  }
  return nullptr;
}

}  // namespace orcd
