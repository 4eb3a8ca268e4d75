// The unmodified `openai` npm client against orcd-host: a chat request and a
// streamed chat request. Exits non-zero on any mismatch.
import OpenAI from 'openai';
import assert from 'node:assert/strict';

const client = new OpenAI({ baseURL: process.env.ORCD_BASE_URL + '/v1', apiKey: 'unused', maxRetries: 0 });

const models = await client.models.list();
assert.equal(models.data[0].id, 'qwen2-tiny');

const chat = await client.chat.completions.create({
  model: 'qwen2-tiny',
  messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello' }],
  max_tokens: 6,
  temperature: 0,
});
assert.equal(chat.object, 'chat.completion');
assert.equal(chat.choices[0].message.role, 'assistant');
assert.equal(typeof chat.choices[0].message.content, 'string');
assert.equal(chat.choices[0].finish_reason, 'length');
assert.equal(chat.usage.completion_tokens, 6);

const stream = await client.chat.completions.create({
  model: 'qwen2-tiny',
  messages: [{ role: 'user', content: 'Say hello' }],
  max_tokens: 6,
  temperature: 0,
  stream: true,
});
let text = '';
let finish = null;
let chunks = 0;
for await (const chunk of stream) {
  chunks += 1;
  text += chunk.choices[0]?.delta?.content ?? '';
  finish = chunk.choices[0]?.finish_reason ?? finish;
}
assert.ok(chunks >= 2, `expected several chunks, got ${chunks}`);
assert.equal(finish, 'length');
// Greedy decoding: streamed and non-streamed text agree for the same messages.
const plain = await client.chat.completions.create({
  model: 'qwen2-tiny',
  messages: [{ role: 'user', content: 'Say hello' }],
  max_tokens: 6,
  temperature: 0,
});
assert.equal(text, plain.choices[0].message.content);
console.log(`openai client: chat ok, stream ok (${chunks} chunks)`);

// logprobs and n, as the client types them.
const scored = await client.chat.completions.create({
  model: 'qwen2-tiny',
  messages: [{ role: 'user', content: 'Say hello' }],
  max_tokens: 4,
  temperature: 0,
  logprobs: true,
  top_logprobs: 2,
  n: 2,
});
assert.equal(scored.choices.length, 2);
assert.deepEqual(scored.choices.map((c) => c.index), [0, 1]);
const entries = scored.choices[0].logprobs.content;
assert.equal(entries.length, 4);
assert.equal(entries.map((e) => e.token).join(''), scored.choices[0].message.content);
for (const e of entries) {
  assert.ok(e.logprob <= 0);
  assert.equal(e.top_logprobs.length, 2);
  assert.equal(e.top_logprobs[0].token, e.token); // greedy: the most probable
}
assert.equal(scored.usage.completion_tokens, 8);

// n streamed, with stream_options.include_usage: each chunk names its
// choice; usage comes once, in a last chunk of its own with no choices.
const many = await client.chat.completions.create({
  model: 'qwen2-tiny',
  messages: [{ role: 'user', content: 'Say hello' }],
  max_tokens: 4,
  temperature: 0,
  n: 2,
  stream: true,
  stream_options: { include_usage: true },
});
const texts = ['', ''];
const finishes = [null, null];
let usage = null;
let afterUsage = 0;
for await (const chunk of many) {
  if (usage) afterUsage += 1;
  if (chunk.usage) {
    assert.equal(chunk.choices.length, 0, 'usage in a chunk of its own');
    usage = chunk.usage;
    continue;
  }
  assert.equal(chunk.usage ?? null, null);
  for (const c of chunk.choices) {
    texts[c.index] += c.delta?.content ?? '';
    finishes[c.index] = c.finish_reason ?? finishes[c.index];
  }
}
assert.deepEqual(finishes, ['length', 'length']);
assert.deepEqual(texts, [scored.choices[0].message.content, scored.choices[1].message.content]);
assert.equal(usage.completion_tokens, 8);
assert.equal(usage.prompt_tokens, scored.usage.prompt_tokens);
assert.equal(afterUsage, 0, 'the usage chunk is the last');
console.log('openai client: logprobs ok, n ok, n streamed with include_usage ok');
