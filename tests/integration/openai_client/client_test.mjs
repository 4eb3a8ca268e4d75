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
