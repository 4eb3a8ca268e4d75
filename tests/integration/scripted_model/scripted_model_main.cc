// orcd-test-scripted-model: writes a model whose greedy output is a script,
// so that tests can check what a chat client receives for a known model
// output (tool calls, reasoning, end-of-turn tokens) through the real server,
// engine and plugins. Nothing in the host is bypassed or switched on: the
// script lives in the weights, which is why no production build can enable
// it by accident.
//
//   orcd-test-scripted-model --vocab V.gguf --template T.jinja --out M.gguf
//                            --script START:FILE [--script START:FILE ...]
//
// The model is a gpt2 whose one layer adds nothing (all its projections are
// zero): logits = W * LayerNorm(token_embd[t] + position_embd[pos]), with
// token_embd zero. Row pos of position_embd is a
// one-hot vector naming the script token to produce next, so with a prompt
// of exactly START tokens the model writes FILE's tokens (encoded with control
// tokens parsed), one per position, then token 0 forever. A prompt of any
// other length gives other output: the script doubles as a check that the
// server's prompt has the expected number of tokens. The script's logit
// margin is large (about 150) so sampling at any temperature follows it too.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/gguf/gguf_writer.h"
#include "host/tokenizer/tokenizer_factory.h"

namespace {

constexpr uint32_t kF32 = 0;
constexpr uint32_t kF16 = 1;
constexpr uint16_t kHalfTwenty = 0x4D00;  // 20.0 in IEEE half precision
constexpr int64_t kContext = 2048;

struct Script {
  int64_t start = 0;
  std::vector<orcd::TokenId> tokens;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw orcd::Error(orcd::ErrorCode::kNotFound, "cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<uint8_t> Bytes(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(float));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

int Run(int argc, char** argv) {
  std::string vocab_path, template_path, out_path;
  std::vector<std::pair<int64_t, std::string>> script_args;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--vocab") {
      vocab_path = v;
    } else if (a == "--template") {
      template_path = v;
    } else if (a == "--out") {
      out_path = v;
    } else if (a == "--script" && v.find(':') != std::string::npos) {
      script_args.emplace_back(std::stoll(v.substr(0, v.find(':'))), v.substr(v.find(':') + 1));
    } else {
      std::fprintf(stderr, "orcd-test-scripted-model: unexpected %s\n", a.c_str());
      return 2;
    }
  }
  if (vocab_path.empty() || template_path.empty() || out_path.empty() || script_args.empty()) {
    std::fprintf(stderr,
                 "usage: orcd-test-scripted-model --vocab V.gguf --template T.jinja --out M.gguf "
                 "--script START:FILE...\n");
    return 2;
  }
  const std::unique_ptr<orcd::GgufFile> vocab = orcd::GgufFile::Open(vocab_path);
  const std::unique_ptr<orcd::Tokenizer> tokenizer = orcd::CreateGgufTokenizer(*vocab);
  const int64_t n_vocab = static_cast<int64_t>(tokenizer->vocab_size());

  // Every script token gets a column of the hidden state; column 0 is unused
  // so that LayerNorm of a position without a script gives all-zero logits.
  std::map<orcd::TokenId, int64_t> column;
  std::vector<Script> scripts;
  for (const auto& [start, file] : script_args) {
    Script s{start,
             tokenizer->Encode(ReadFile(file), /*add_special=*/false, /*parse_special=*/true)};
    for (const orcd::TokenId t : s.tokens) column.emplace(t, 0);
    scripts.push_back(std::move(s));
  }
  int64_t next = 1;
  for (auto& [token, col] : column) col = next++;
  const int64_t d = (next + 31) / 32 * 32;

  std::vector<float> positions(static_cast<size_t>(d * kContext), 0.0f);
  std::vector<bool> used(kContext, false);
  for (const Script& s : scripts) {
    for (size_t j = 0; j < s.tokens.size(); ++j) {
      // The logits at position p choose the token at p + 1.
      const int64_t pos = s.start - 1 + static_cast<int64_t>(j);
      if (pos < 0 || pos >= kContext || used[static_cast<size_t>(pos)]) {
        std::fprintf(stderr,
                     "orcd-test-scripted-model: scripts overlap or leave the context at %lld\n",
                     static_cast<long long>(pos));
        return 1;
      }
      used[static_cast<size_t>(pos)] = true;
      positions[static_cast<size_t>(pos * d + column[s.tokens[j]])] = 1.0f;
    }
  }
  std::vector<uint8_t> output(static_cast<size_t>(d * n_vocab * 2), 0);
  for (const auto& [token, col] : column) {
    const size_t at = static_cast<size_t>((token * d + col) * 2);
    output[at] = kHalfTwenty & 0xFF;
    output[at + 1] = kHalfTwenty >> 8;
  }

  orcd::GgufWriter w;
  w.SetString("general.architecture", "gpt2");
  w.SetString("general.name", "scripted");
  w.SetU32("gpt2.context_length", kContext);
  w.SetU32("gpt2.embedding_length", static_cast<uint32_t>(d));
  w.SetU32("gpt2.feed_forward_length", static_cast<uint32_t>(4 * d));
  w.SetU32("gpt2.block_count", 1);
  w.SetU32("gpt2.attention.head_count", 1);
  w.SetF32("gpt2.attention.layer_norm_epsilon", 1e-5f);
  for (const auto& [key, value] : vocab->metadata()) {
    if (key.starts_with("tokenizer.") && key != "tokenizer.chat_template") w.Set(key, value);
  }
  w.SetString("tokenizer.chat_template", ReadFile(template_path));
  w.AddTensor("token_embd.weight", kF16, {d, n_vocab},
              std::vector<uint8_t>(static_cast<size_t>(d * n_vocab * 2), 0));
  w.AddTensor("position_embd.weight", kF32, {d, kContext}, Bytes(positions));
  const auto zeros = [](int64_t n) {
    return Bytes(std::vector<float>(static_cast<size_t>(n), 0.0f));
  };
  const auto ones = [](int64_t n) {
    return Bytes(std::vector<float>(static_cast<size_t>(n), 1.0f));
  };
  const int64_t ff = 4 * d;
  w.AddTensor("blk.0.attn_norm.weight", kF32, {d}, ones(d));
  w.AddTensor("blk.0.attn_norm.bias", kF32, {d}, zeros(d));
  w.AddTensor("blk.0.attn_qkv.weight", kF32, {d, 3 * d}, zeros(3 * d * d));
  w.AddTensor("blk.0.attn_qkv.bias", kF32, {3 * d}, zeros(3 * d));
  w.AddTensor("blk.0.attn_output.weight", kF32, {d, d}, zeros(d * d));
  w.AddTensor("blk.0.attn_output.bias", kF32, {d}, zeros(d));
  w.AddTensor("blk.0.ffn_norm.weight", kF32, {d}, ones(d));
  w.AddTensor("blk.0.ffn_norm.bias", kF32, {d}, zeros(d));
  w.AddTensor("blk.0.ffn_up.weight", kF32, {d, ff}, zeros(d * ff));
  w.AddTensor("blk.0.ffn_up.bias", kF32, {ff}, zeros(ff));
  w.AddTensor("blk.0.ffn_down.weight", kF32, {ff, d}, zeros(ff * d));
  w.AddTensor("blk.0.ffn_down.bias", kF32, {d}, zeros(d));
  w.AddTensor("output_norm.weight", kF32, {d}, Bytes(std::vector<float>(d, 1.0f)));
  w.AddTensor("output_norm.bias", kF32, {d}, Bytes(std::vector<float>(d, 0.0f)));
  w.AddTensor("output.weight", kF16, {d, n_vocab}, std::move(output));
  w.WriteFile(out_path);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "orcd-test-scripted-model: %s\n", e.what());
    return 1;
  }
}
