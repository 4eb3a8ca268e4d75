// Structured output through orcd-host with unmodified clients: the `openai`
// npm client's zodResponseFormat + beta.chat.completions.parse (the reply
// parsed and validated by zod), and the Vercel AI SDK's generateObject
// (@ai-sdk/openai with structuredOutputs: response_format json_schema). The
// model is a random-weight fixture: only the grammar makes its reply valid.
// Exits non-zero on any mismatch.
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { generateObject } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import assert from 'node:assert/strict';

const base = process.env.ORCD_BASE_URL + '/v1';
const client = new OpenAI({ baseURL: base, apiKey: 'unused', maxRetries: 0 });
const model = (await client.models.list()).data[0].id;

// Bounded strings and arrays: a random-weight model closes them only at the bound.
const Person = z.object({
  name: z.string().max(10),
  age: z.number().int().min(0).max(120),
  pets: z.array(z.enum(['cat', 'dog', 'fish'])).max(3),
  verified: z.boolean(),
});

for (const seed of [1, 2, 3]) {
  const completion = await client.beta.chat.completions.parse({
    model,
    messages: [{ role: 'user', content: 'Describe a person as JSON.' }],
    response_format: zodResponseFormat(Person, 'person'),
    temperature: 1,
    seed,
    max_tokens: 200,
  });
  const message = completion.choices[0].message;
  assert.equal(completion.choices[0].finish_reason, 'stop');
  assert.ok(message.parsed, 'the reply parsed as the zod schema');
  Person.parse(message.parsed);
  // The schema's property order, compact: one spelling per instance.
  assert.ok(message.content.startsWith('{"name":"'), message.content);
}

// The Responses API's text.format, as the client's zodTextFormat +
// responses.parse send and read it.
for (const seed of [4, 5]) {
  const response = await client.responses.parse({
    model,
    input: 'Describe a person as JSON.',
    text: { format: zodTextFormat(Person, 'person') },
    temperature: 1,
    max_output_tokens: 200,
    store: false,
    metadata: { seed: String(seed) },
  });
  assert.equal(response.status, 'completed', JSON.stringify(response));
  assert.ok(response.output_parsed, 'the reply parsed as the zod schema');
  Person.parse(response.output_parsed);
  assert.ok(response.output_text.startsWith('{"name":"'), response.output_text);
}

// An unsupported keyword is refused by name, not ignored.
await assert.rejects(
  client.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'x' }],
    response_format: {
      type: 'json_schema',
      json_schema: { name: 's', schema: { type: 'array', uniqueItems: true } },
    },
  }),
  (e) => e.status === 400 && /'uniqueItems'/.test(e.message),
);

const provider = createOpenAI({ baseURL: base, apiKey: 'unused', compatibility: 'compatible' });
const { object } = await generateObject({
  model: provider.chat(model, { structuredOutputs: true }),
  schema: Person,
  prompt: 'Describe a person.',
  temperature: 1,
  seed: 7,
  maxTokens: 200,
});
Person.parse(object);
console.log('structured output: openai zodResponseFormat, responses zodTextFormat and AI SDK generateObject ok');
