// Tool calls and reasoning through orcd-host with the unmodified `openai`
// npm client (run by run_tools_test.sh, which scripted the model's output).
// Exits non-zero on any mismatch.
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
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

// The Responses API, stateless, with the same conversations: instructions +
// input items and flat function tools reach the template as the chat
// messages above do (the scripted replies come back only if the prompt has
// exactly their tokens), the call is a function_call item (after a reasoning
// item on harmony), streamed as the API's events and assembled by the
// client's helper, and the round trip sends the call and its output back
// as items.
const flatTools = tools.map((t) => ({ type: 'function', ...t.function }));
const [systemTurn, userTurn] = fixture('tools_system_user').messages;
const responsesCall = {
  model,
  instructions: systemTurn.content,
  input: [{ role: 'user', content: userTurn.content }],
  tools: flatTools,
  temperature: 0,
  max_output_tokens: 200,
  store: false,
  ...(family === 'harmony' ? { reasoning: { effort: 'high' } } : {}),
};
const rCall = await client.responses.create(responsesCall);
assert.equal(rCall.object, 'response');
assert.equal(rCall.status, 'completed', JSON.stringify(rCall));
assert.equal(rCall.usage.input_tokens, callTokens, 'the prompt orcd-tokenize renders and counts');
assert.equal(rCall.usage.output_tokens, Number(env.ORCD_SCRIPT_TOKENS_CALL) - 1);
assert.equal(rCall.output_text, '');
const itemTypes = rCall.output.map((i) => i.type);
assert.deepEqual(itemTypes, family === 'harmony' ? ['reasoning', 'function_call'] : ['function_call']);
const fnCall = rCall.output.at(-1);
assert.equal(fnCall.name, 'get_current_weather');
assert.match(fnCall.call_id, /^call_[A-Za-z0-9]{24}$/);
assert.deepEqual(JSON.parse(fnCall.arguments), expectedArguments);
if (family === 'harmony') {
  assert.equal(rCall.output[0].content[0].type, 'reasoning_text');
  assert.equal(rCall.output[0].content[0].text, 'The user wants the weather in Tokyo; call the tool.');
  assert.ok(rCall.usage.output_tokens_details.reasoning_tokens > 0);
}

const rStream = client.responses.stream(responsesCall);
const eventOrder = [];
let streamedArguments = '';
let lastSequence = -1;
rStream.on('response.function_call_arguments.delta', (e) => (streamedArguments += e.delta));
for await (const event of rStream) {
  assert.equal(event.sequence_number, lastSequence + 1);
  lastSequence = event.sequence_number;
  if (eventOrder.at(-1) !== event.type) eventOrder.push(event.type);
}
const itemEvents = (kind) =>
  kind === 'reasoning'
    ? ['response.output_item.added', 'response.content_part.added', 'response.reasoning_text.delta',
      'response.reasoning_text.done', 'response.content_part.done', 'response.output_item.done']
    : ['response.output_item.added', 'response.function_call_arguments.delta',
      'response.function_call_arguments.done', 'response.output_item.done'];
assert.deepEqual(eventOrder, [
  'response.created',
  'response.in_progress',
  ...(family === 'harmony' ? itemEvents('reasoning') : []),
  ...itemEvents('call'),
  'response.completed',
]);
assert.equal(streamedArguments, fnCall.arguments, 'streamed = non-streamed');
const rFinal = await rStream.finalResponse();
assert.deepEqual(rFinal.output.map((i) => i.type), itemTypes);
assert.equal(rFinal.output.at(-1).arguments, fnCall.arguments);

const [answerUser, answerCall, answerTool] = fixture('tools_call_string_args').messages;
const sentCall = answerCall.tool_calls[0];
const rAnswer = await client.responses.create({
  model,
  input: [
    { role: 'user', content: answerUser.content },
    { type: 'function_call', call_id: sentCall.id, name: sentCall.function.name, arguments: sentCall.function.arguments },
    { type: 'function_call_output', call_id: sentCall.id, output: answerTool.content },
  ],
  tools: flatTools,
  temperature: 0,
  max_output_tokens: 200,
  store: false,
});
assert.equal(rAnswer.usage.input_tokens, answerTokens, 'function_call items rendered as tool_calls');
assert.equal(rAnswer.output_text, 'It is 22 °C and sunny in Paris.');
assert.equal(rAnswer.output.at(-1).type, 'message');
if (family === 'harmony') {
  assert.equal(rAnswer.output[0].content[0].text, 'The tool says sunny, 22 degrees.');
}

// Anthropic's Messages API with the unmodified @anthropic-ai/sdk, the same
// conversations in its shapes (tools with input_schema, a tool_use block
// sent back with its tool_result): the scripted call and answer come back
// only if they render to the chat conversations' tokens. Hermes only: the
// harmony call prompt asks for reasoning_effort high, which Messages cannot.
if (family === 'hermes') {
  const anthropic = new Anthropic({ baseURL: env.ORCD_BASE_URL, apiKey: 'unused', maxRetries: 0 });
  const anthropicTools = tools.map((t) => ({
    name: t.function.name,
    description: t.function.description,
    input_schema: t.function.parameters,
  }));
  const aCall = await anthropic.messages.create({
    model,
    system: systemTurn.content,
    messages: [{ role: 'user', content: userTurn.content }],
    tools: anthropicTools,
    max_tokens: 200,
    temperature: 0,
  });
  assert.equal(aCall.stop_reason, 'tool_use', JSON.stringify(aCall));
  assert.equal(aCall.usage.input_tokens, callTokens);
  const use = aCall.content.find((b) => b.type === 'tool_use');
  assert.equal(use.name, 'get_current_weather');
  assert.match(use.id, /^toolu_/);
  assert.deepEqual(use.input, expectedArguments);
  const aAnswer = await anthropic.messages.create({
    model,
    messages: [
      { role: 'user', content: answerUser.content },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: sentCall.id, name: sentCall.function.name,
          input: JSON.parse(sentCall.function.arguments) }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: sentCall.id, content: answerTool.content }] },
    ],
    tools: anthropicTools,
    max_tokens: 200,
    temperature: 0,
  });
  assert.equal(aAnswer.usage.input_tokens, answerTokens, 'tool_use and tool_result rendered');
  assert.equal(aAnswer.stop_reason, 'end_turn');
  assert.equal(aAnswer.content[0].text, 'It is 22 °C and sunny in Paris.');
}

// A worker keeps no state: asking it to is refused, naming the field.
await assert.rejects(client.responses.create({ ...responsesCall, previous_response_id: 'resp_x' }), (e) => {
  assert.equal(e.status, 400);
  assert.equal(e.param, 'previous_response_id');
  return true;
});

console.log(`openai client: ${family} tool call, stream (${fragments} argument fragments), tool reply, forced calls, responses api${family === 'hermes' ? ', anthropic tool round trip' : ''} ok`);
