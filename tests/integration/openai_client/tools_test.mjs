// Tool calls and reasoning through orcd-host with the unmodified `openai`
// npm client (run by run_tools_test.sh, which scripted the model's output).
// Exits non-zero on any mismatch.
import OpenAI from 'openai';
import assert from 'node:assert/strict';
import fs from 'node:fs';

const env = process.env;
const family = env.ORCD_FAMILY; // "hermes" or "harmony"
const client = new OpenAI({ baseURL: env.ORCD_BASE_URL + '/v1', apiKey: 'unused', maxRetries: 0 });
const cases = JSON.parse(fs.readFileSync(env.ORCD_FIXTURES_DIR + '/chat/cases.json', 'utf8')).cases;
const fixture = (name) => cases.find((c) => c.name === name);
const tools = fixture('tools_call').tools;
const model = (await client.models.list()).data[0].id;

// The prompt the scripted tool call follows: system + user, with tools.
const callRequest = {
  model,
  messages: fixture('tools_system_user').messages,
  tools,
  temperature: 0,
  max_tokens: 200,
  ...(family === 'harmony' ? { reasoning_effort: 'high' } : {}),
};
// The prompt the scripted answer follows: the tool call sent back as OpenAI
// clients send it (content null, arguments a JSON string) and the tool's reply.
const answerRequest = {
  model,
  messages: fixture('tools_call_string_args').messages,
  tools,
  temperature: 0,
  max_tokens: 200,
};
const expectedArguments = { location: 'Tokyo, Japan', unit: 'celsius' };
const callTokens = Number(env.ORCD_PROMPT_TOKENS_CALL);
const answerTokens = Number(env.ORCD_PROMPT_TOKENS_ANSWER);

// Non-streamed: the tool call comes back parsed.
const call = await client.chat.completions.create(callRequest);
assert.equal(call.usage.prompt_tokens, callTokens, 'the prompt orcd-tokenize renders and counts');
// The end-of-turn token (<|im_end|> / <|call|>) ended the turn: it is not counted.
assert.equal(call.usage.completion_tokens, Number(env.ORCD_SCRIPT_TOKENS_CALL) - 1);
const choice = call.choices[0];
assert.equal(choice.finish_reason, 'tool_calls');
assert.equal(choice.message.content, null);
assert.equal(choice.message.tool_calls.length, 1);
const toolCall = choice.message.tool_calls[0];
assert.equal(toolCall.type, 'function');
assert.match(toolCall.id, /^call_[A-Za-z0-9]{24}$/);
assert.equal(toolCall.function.name, 'get_current_weather');
assert.deepEqual(JSON.parse(toolCall.function.arguments), expectedArguments);
if (family === 'harmony') {
  assert.equal(choice.message.reasoning_content, 'The user wants the weather in Tokyo; call the tool.');
}

// Streamed: OpenAI's delta shape, assembled by the client library's helper too.
const stream = await client.chat.completions.create({ ...callRequest, stream: true });
let reasoning = '';
let argumentsText = '';
let fragments = 0;
let header = null;
let finish = null;
for await (const chunk of stream) {
  const delta = chunk.choices[0]?.delta ?? {};
  reasoning += delta.reasoning_content ?? '';
  assert.ok(!delta.content, `no content in a tool-call turn: ${JSON.stringify(delta)}`);
  for (const d of delta.tool_calls ?? []) {
    assert.equal(d.index, 0);
    if (d.id !== undefined) {
      assert.equal(header, null, 'one header per call');
      header = d;
      assert.equal(d.type, 'function');
      assert.equal(d.function.name, 'get_current_weather');
      assert.equal(d.function.arguments, '');
    } else {
      assert.notEqual(header, null, 'arguments after the header');
      argumentsText += d.function.arguments;
      fragments += 1;
    }
  }
  finish = chunk.choices[0]?.finish_reason ?? finish;
}
assert.equal(finish, 'tool_calls');
assert.ok(fragments >= 2, `arguments streamed in fragments, got ${fragments}`);
assert.equal(argumentsText, toolCall.function.arguments, 'streamed = non-streamed');
assert.equal(reasoning, choice.message.reasoning_content ?? '');
const assembled = await client.beta.chat.completions
  .stream({ ...callRequest, stream: true })
  .finalChatCompletion();
assert.deepEqual(JSON.parse(assembled.choices[0].message.tool_calls[0].function.arguments),
  expectedArguments);
assert.equal(assembled.choices[0].message.tool_calls[0].function.name, 'get_current_weather');

// The tool's reply goes back through the template; the scripted answer follows.
const answer = await client.chat.completions.create(answerRequest);
assert.equal(answer.usage.prompt_tokens, answerTokens, 'tool_calls and tool messages rendered');
assert.equal(answer.usage.completion_tokens, Number(env.ORCD_SCRIPT_TOKENS_ANSWER) - 1);
assert.equal(answer.choices[0].finish_reason, 'stop');
assert.equal(answer.choices[0].message.content, 'It is 22 °C and sunny in Paris.');
assert.equal(answer.choices[0].message.tool_calls, undefined);
if (family === 'harmony') {
  assert.equal(answer.choices[0].message.reasoning_content, 'The tool says sunny, 22 degrees.');
}

// tool_choice "none" withdraws the tools from the prompt.
const none = await client.chat.completions.create({ ...callRequest, tool_choice: 'none', max_tokens: 2 });
assert.ok(none.usage.prompt_tokens < callTokens, 'no tools in the prompt');
assert.equal(none.choices[0].message.tool_calls, undefined);

// tool_choice "required" and a named function: a prompt the script does not
// know, so only the grammar makes the reply a call, in the family's own
// markup (harmony's control tokens included), its arguments an instance of
// the parameters. Enum and bounded integer: the call ends whatever the
// model would rather write.
const pickTools = [
  {
    type: 'function',
    function: {
      name: 'pick',
      description: 'Picks a color and a number.',
      parameters: {
        type: 'object',
        properties: { color: { enum: ['red', 'blue'] }, n: { type: 'integer', minimum: 1, maximum: 9 } },
        required: ['color', 'n'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'stop',
      description: 'Stops.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
  },
];
for (const toolChoice of ['required', { type: 'function', function: { name: 'pick' } }]) {
  const forced = await client.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'Choose something.' }],
    tools: pickTools,
    tool_choice: toolChoice,
    temperature: 0,
    max_tokens: 200, // a model without a preference spells the markup byte by byte
  });
  const c = forced.choices[0];
  assert.equal(c.finish_reason, 'tool_calls', JSON.stringify(forced));
  assert.equal(c.message.tool_calls.length, 1);
  const f = c.message.tool_calls[0].function;
  if (typeof toolChoice !== 'string') assert.equal(f.name, 'pick');
  const args = JSON.parse(f.arguments);
  if (f.name === 'pick') {
    assert.ok(['red', 'blue'].includes(args.color) && args.n >= 1 && args.n <= 9, f.arguments);
  } else {
    assert.deepEqual(args, {});
  }
}

console.log(`openai client: ${family} tool call, stream (${fragments} argument fragments), tool reply, forced calls ok`);
