// A tool call loop through orcd-host with the Vercel AI SDK (`ai` streamText
// with maxSteps over @ai-sdk/openai-compatible), unmodified: the streamed
// call is parsed by the SDK, its tool executed, and the result sent back as
// the SDK shapes it (assistant content "" with tool_calls, arguments
// re-serialized, the result as a JSON string). run_tools_test.sh placed the
// scripted call after the first step's prompt and the scripted answer after
// the second's, counted by orcd-tokenize from that shape: the answer comes
// back only if the server rendered the SDK's messages as counted.
// Exits non-zero on any mismatch.
import { streamText, tool, jsonSchema } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import assert from 'node:assert/strict';
import fs from 'node:fs';

const env = process.env;
const family = env.ORCD_FAMILY;
const cases = JSON.parse(fs.readFileSync(env.ORCD_FIXTURES_DIR + '/chat/cases.json', 'utf8')).cases;
const fixture = (name) => cases.find((c) => c.name === name);
const [systemTurn, userTurn] = fixture('tools_system_user').messages;
const fn = fixture('tools_system_user').tools[0].function;

const provider = createOpenAICompatible({
  name: 'orcd',
  baseURL: env.ORCD_BASE_URL + '/v1',
  apiKey: 'unused',
});
const model = (await (await fetch(env.ORCD_BASE_URL + '/v1/models')).json()).data[0].id;
let executedWith = null;
const result = streamText({
  model: provider(model),
  system: systemTurn.content,
  prompt: userTurn.content,
  tools: {
    [fn.name]: tool({
      description: fn.description,
      parameters: jsonSchema(fn.parameters),
      execute: async (args) => {
        executedWith = args;
        return JSON.parse(env.ORCD_TOOL_RESULT);
      },
    }),
  },
  maxSteps: 2,
  temperature: 0,
  maxTokens: 200,
  maxRetries: 0,
  ...(family === 'harmony' ? { providerOptions: { orcd: { reasoningEffort: 'high' } } } : {}),
});
let text = '';
let reasoning = '';
for await (const part of result.fullStream) {
  if (part.type === 'error') throw part.error;
  if (part.type === 'text-delta') text += part.textDelta;
  if (part.type === 'reasoning') reasoning += part.textDelta;
}
const steps = await result.steps;
assert.equal(steps.length, 2);
assert.deepEqual(executedWith, { location: 'Tokyo, Japan', unit: 'celsius' });
// The scripted call and answer come only after prompts of exactly the
// counted lengths (this provider version reports no usage when streaming).
assert.equal(steps[0].finishReason, 'tool-calls');
assert.equal(steps[1].finishReason, 'stop');
assert.equal(text, 'It is 22 °C and sunny in Paris.', 'the SDK\'s call and result rendered as counted');
if (family === 'harmony') {
  assert.equal(reasoning,
    'The user wants the weather in Tokyo; call the tool.The tool says sunny, 22 degrees.');
}
console.log(`ai sdk: ${family} streamText tool loop ok`);
