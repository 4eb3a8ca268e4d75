// Special tokens in the text: control tokens become single tokens only with
// parse_special; user-defined ones always; the add-BOS rule; Phi-3's rstrip.
#include <gtest/gtest.h>

#include "tokenizer_test_support.h"

namespace orcd::testing {
namespace {

using Ids = std::vector<TokenId>;

TEST(SpecialTokens, ControlTokenTextIsOneTokenOnlyWithParseSpecial) {
  const Tokenizer& qwen2 = VocabTokenizerFor("qwen2");
  const std::string text = "<|im_start|>user\nHi<|im_end|>";
  const Ids parsed = qwen2.Encode(text, false, true);
  ASSERT_GE(parsed.size(), 3u);
  EXPECT_EQ(parsed.front(), 151644);
  EXPECT_EQ(parsed.back(), 151645);
  const Ids plain = qwen2.Encode(text, false, false);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 151644), 0) << FormatIds(plain);
  EXPECT_GT(plain.size(), parsed.size());
  // Plain text is the text around the tokens, tokenized the same way.
  Ids expected = {151644};
  for (const TokenId id : qwen2.Encode("user\nHi", false, false)) expected.push_back(id);
  expected.push_back(151645);
  EXPECT_EQ(parsed, expected);
}

TEST(SpecialTokens, HarmonyMessageWithParseSpecial) {
  const Tokenizer& oss = VocabTokenizerFor("gpt-oss");
  const Ids ids =
      oss.Encode("<|start|>assistant<|channel|>final<|message|>4<|return|>", true, true);
  ASSERT_EQ(ids.size(), 7u) << FormatIds(ids);
  EXPECT_EQ(ids[0], 200006);
  EXPECT_EQ(ids[2], 200005);
  EXPECT_EQ(ids[4], 200008);
  EXPECT_EQ(ids[6], 200002);
  EXPECT_EQ(oss.special_ids().eot, 200002);  // <|return|>, not <|end|>
  EXPECT_FALSE(oss.add_bos());
}

TEST(SpecialTokens, SpmAddsBosAndEmptyTextIsOnlyBos) {
  const Tokenizer& llama = VocabTokenizerFor("llama-spm");
  EXPECT_TRUE(llama.add_bos());
  EXPECT_EQ(llama.Encode("", true, true), Ids{1});
  EXPECT_EQ(llama.Encode("", false, false), Ids{});
  EXPECT_EQ(llama.Encode("Hello world", true, false), (Ids{1, 15043, 3186}));
  // "<s>" is control: plain text unless parse_special.
  EXPECT_EQ(llama.Encode("<s>Hello", false, true), (Ids{1, 15043}));
  EXPECT_NE(llama.Encode("<s>Hello", false, false).front(), 1);
}

TEST(SpecialTokens, Phi3ChatTokensStripTheWhitespaceAfterThem) {
  const Tokenizer& phi3 = VocabTokenizerFor("phi-3");
  // As HF's Phi-3 tokenizer: rstrip on <|user|>, <|end|>, <|assistant|>; each
  // text segment gets the dummy-prefix space.
  EXPECT_EQ(phi3.Encode("<|user|>\nHello<|end|>\n<|assistant|>\n", true, true),
            (Ids{1, 32010, 15043, 32007, 32001}));
  EXPECT_EQ(phi3.special_ids().eot, 32007);
}

TEST(SpecialTokens, UserDefinedTokensMatchEvenWithoutParseSpecial) {
  // Phi-3's "</s>" is user-defined (HF added token with special = false).
  const Tokenizer& phi3 = VocabTokenizerFor("phi-3");
  const Ids ids = phi3.Encode("a</s>", false, false);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.back(), 2) << FormatIds(ids);
}

TEST(SpecialTokens, EndOfGeneration) {
  const Tokenizer& qwen2 = VocabTokenizerFor("qwen2");
  EXPECT_TRUE(qwen2.IsEndOfGeneration(151645));  // <|im_end|>
  EXPECT_TRUE(qwen2.IsEndOfGeneration(151643));  // <|endoftext|>
  EXPECT_FALSE(qwen2.IsEndOfGeneration(151644));
  const Tokenizer& oss = VocabTokenizerFor("gpt-oss");
  EXPECT_TRUE(oss.IsEndOfGeneration(200002));   // <|return|>
  EXPECT_TRUE(oss.IsEndOfGeneration(200012));   // <|call|>
  EXPECT_FALSE(oss.IsEndOfGeneration(200007));  // <|end|> closes a message only
  const Tokenizer& phi3 = VocabTokenizerFor("phi-3");
  EXPECT_TRUE(phi3.IsEndOfGeneration(32000));
  EXPECT_TRUE(phi3.IsEndOfGeneration(32007));
  EXPECT_FALSE(phi3.IsEndOfGeneration(kNoToken));
  // The second fixture batch's vocabularies (fixtures/README.md): Gemma's
  // <end_of_turn> 4097 (eos is </s> 2), Qwen3's <|im_end|> 4098, Llama 3's
  // <|eot_id|> 4100; not <start_of_turn> 4096 nor Qwen3's <think> 4099.
  const auto gemma = LoadModelTokenizer(FixturesDir() / "models" / "gemma3-tiny.F16.gguf");
  EXPECT_TRUE(gemma->IsEndOfGeneration(4097));
  EXPECT_TRUE(gemma->IsEndOfGeneration(2));
  EXPECT_FALSE(gemma->IsEndOfGeneration(4096));
  const auto qwen3 = LoadModelTokenizer(FixturesDir() / "models" / "qwen3-tiny.F16.gguf");
  EXPECT_TRUE(qwen3->IsEndOfGeneration(4098));
  EXPECT_FALSE(qwen3->IsEndOfGeneration(4099));
  const auto llama3 = LoadModelTokenizer(FixturesDir() / "models" / "llama3-tiny.F16.gguf");
  EXPECT_TRUE(llama3->IsEndOfGeneration(4100));
  EXPECT_FALSE(llama3->IsEndOfGeneration(4098));
}

}  // namespace
}  // namespace orcd::testing
