// The unmodified `@anthropic-ai/sdk` client against orcd-host's Messages API:
// a message, a streamed message (the SDK's own event accumulation), a count.
// Exits non-zero on any mismatch.
import Anthropic from '@anthropic-ai/sdk';
import assert from 'node:assert/strict';

const client = new Anthropic({ baseURL: process.env.ORCD_BASE_URL, apiKey: 'unused', maxRetries: 0 });
const request = {
  model: 'qwen2-tiny',
  system: 'Be brief.',
  messages: [{ role: 'user', content: 'Say hello' }],
  max_tokens: 6,
  temperature: 0,
};

const message = await client.messages.create(request);
assert.equal(message.type, 'message');
assert.equal(message.role, 'assistant');
assert.equal(message.stop_reason, 'max_tokens');
assert.equal(message.content[0].type, 'text');
assert.equal(message.usage.output_tokens, 6);

const stream = client.messages.stream(request);
let deltas = 0;
stream.on('text', () => { deltas += 1; });
const streamed = await stream.finalMessage();
assert.ok(deltas >= 2, `expected several text deltas, got ${deltas}`);
assert.equal(streamed.content[0].text, message.content[0].text);
assert.equal(streamed.stop_reason, 'max_tokens');
assert.equal(streamed.usage.output_tokens, 6);

const counted = await client.messages.countTokens({
  model: 'qwen2-tiny', system: request.system, messages: request.messages,
});
assert.equal(counted.input_tokens, message.usage.input_tokens);

await assert.rejects(client.messages.create({ ...request, max_tokens: undefined }), (e) => {
  assert.equal(e.status, 400);
  assert.equal(e.error.error.type, 'invalid_request_error');
  return true;
});
console.log(`anthropic client: message ok, stream ok (${deltas} deltas), count ok`);
