// The streaming detokenizer: characters split over tokens, invalid bytes,
// special tokens, the SentencePiece leading space.
#include <gtest/gtest.h>

#include "host/tokenizer/streaming_detokenizer.h"
#include "host/tokenizer/utf8.h"
#include "tokenizer_test_support.h"

namespace orcd::testing {
namespace {

const std::string kFffd(kUtf8Replacement);

// Byte-fallback token <0xNN> of the Llama / Phi-3 vocabularies.
TokenId ByteToken(unsigned b) { return static_cast<TokenId>(3 + b); }

TEST(StreamingDetokenizer, HoldsACharacterUntilItsLastByte) {
  const Tokenizer& gpt2 = VocabTokenizerFor("gpt-2");
  // "Hello 👋" with the emoji as its four single-byte tokens (as bpe4k encodes it).
  const std::vector<TokenId> ids = {39, 695, 78, 220, 172, 253, 239, 233};
  StreamingDetokenizer d(gpt2);
  std::vector<std::string> parts;
  for (const TokenId id : ids) parts.push_back(d.Push(id));
  EXPECT_EQ(parts,
            (std::vector<std::string>{"H", "ell", "o", " ", "", "", "", "\xF0\x9F\x91\x8B"}));
  EXPECT_EQ(d.Flush(), "");
}

TEST(StreamingDetokenizer, ByteFallbackCharacter) {
  const Tokenizer& phi3 = VocabTokenizerFor("phi-3");
  StreamingDetokenizer d(phi3);
  EXPECT_EQ(d.Push(ByteToken(0xE4)), "");
  EXPECT_EQ(d.Push(ByteToken(0xBD)), "");
  EXPECT_EQ(d.Push(ByteToken(0xA0)), "\xE4\xBD\xA0");  // 你
  EXPECT_EQ(d.Flush(), "");
}

TEST(StreamingDetokenizer, InvalidBytesBecomeOneReplacementEachOnceCertain) {
  const Tokenizer& phi3 = VocabTokenizerFor("phi-3");
  StreamingDetokenizer d(phi3);
  EXPECT_EQ(d.Push(ByteToken(0xFF)), kFffd);       // can never start a character
  EXPECT_EQ(d.Push(ByteToken(0xE4)), "");          // may still complete
  EXPECT_EQ(d.Push(ByteToken('A')), kFffd + "A");  // it cannot: one U+FFFD, then A
  EXPECT_EQ(d.Push(ByteToken(0xC0)), kFffd);       // overlong lead
  EXPECT_EQ(d.Push(ByteToken(0xED)), "");
  EXPECT_EQ(d.Push(ByteToken(0xA0)), kFffd + kFffd);  // surrogate: ED and A0 are both invalid
  EXPECT_EQ(d.Push(ByteToken(0xF0)), "");
  EXPECT_EQ(d.Push(ByteToken(0x9F)), "");
  EXPECT_EQ(d.Flush(), kFffd);  // truncated at the end: one U+FFFD
  EXPECT_EQ(d.Push(ByteToken('B')), "B");
}

TEST(StreamingDetokenizer, SkipsSpecialTokensUnlessAskedToRenderThem) {
  const Tokenizer& qwen2 = VocabTokenizerFor("qwen2");
  const std::vector<TokenId> ids = qwen2.Encode("<|im_start|>Hi<|im_end|>", false, true);
  EXPECT_EQ(DecodeTokens(qwen2, ids), "Hi");
  EXPECT_EQ(DecodeTokens(qwen2, ids, {.render_special = true}), "<|im_start|>Hi<|im_end|>");
}

TEST(StreamingDetokenizer, SpmDropsOnlyTheDummyPrefixSpace) {
  const Tokenizer& llama = VocabTokenizerFor("llama-spm");
  EXPECT_TRUE(llama.decode_strips_leading_space());
  EXPECT_EQ(DecodeTokens(llama, llama.Encode("Hello world", true, false)), "Hello world");
  EXPECT_EQ(DecodeTokens(llama, llama.Encode("  two", true, false)), "  two");
  StreamingDetokenizer d(llama);
  EXPECT_EQ(d.Push(15043), "Hello");   // "▁Hello" at the start
  EXPECT_EQ(d.Push(15043), " Hello");  // later: the space is text
  d.Reset();
  EXPECT_EQ(d.Push(15043), "Hello");
  // A generation continues its prompt: the first token's space is text.
  StreamingDetokenizer continuation(llama, {.continues_text = true});
  EXPECT_EQ(continuation.Push(15043), " Hello");
}

TEST(StreamingDetokenizer, IdsOutsideTheVocabularyRenderNothing) {
  const Tokenizer& gpt2 = VocabTokenizerFor("gpt-2");
  StreamingDetokenizer d(gpt2);
  EXPECT_EQ(d.Push(-5), "");
  EXPECT_EQ(d.Push(1 << 30), "");
  EXPECT_EQ(d.Push(static_cast<TokenId>(gpt2.vocab_size())), "");
  EXPECT_EQ(d.Flush(), "");
}

}  // namespace
}  // namespace orcd::testing
