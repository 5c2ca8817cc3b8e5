import { describe, expect, it } from 'vitest';
import { elicitationActionId, parseElicitationActionId } from '../../src/chat/elicitation-form.js';
import { fingerprintOf, requestOf, resultOf, storedRequest } from '../../src/questions/mcp/elicitation-record.js';
import { checkAnswers } from '../../src/questions/mcp/form-answers.js';
import { MalformedElicitation, readRequestedElicitation } from '../../src/questions/mcp/requested-form.js';

const form = (properties: Record<string, unknown>, required: string[] = []) =>
  readRequestedElicitation({ message: 'm', requestedSchema: { type: 'object', properties, required } });
const fieldsOf = (properties: Record<string, unknown>, required: string[] = []) => {
  const read = form(properties, required);
  if (read.mode !== 'form') throw new Error(`not a form: ${JSON.stringify(read)}`);
  return read.fields;
};

describe("reading a server's requested schema", () => {
  it('reads every kind of choice: oneOf with titles, enum with enumNames (legacy), plain enum, and a multi-select of enum or anyOf', () => {
    const fields = fieldsOf({
      a: { type: 'string', oneOf: [{ const: 'x', title: 'Ex' }] },
      b: { type: 'string', enum: ['p', 'q'], enumNames: ['Pe', 'Qu'], default: 'q' },
      c: { type: 'string', enum: ['r'] },
      d: {
        type: 'array',
        items: { type: 'string', enum: ['s', 't'] },
        minItems: 1,
        maxItems: 2,
        default: ['t', 'nope'],
      },
      e: { type: 'array', items: { anyOf: [{ const: 'u', title: 'You' }] } },
    });
    expect(fields.map((f) => [f.kind, 'options' in f ? f.options : null, f.initial])).toEqual([
      ['choice', [{ value: 'x', label: 'Ex' }], null],
      [
        'choice',
        [
          { value: 'p', label: 'Pe' },
          { value: 'q', label: 'Qu' },
        ],
        'q',
      ],
      ['choice', [{ value: 'r', label: 'r' }], null],
      [
        'multi',
        [
          { value: 's', label: 's' },
          { value: 't', label: 't' },
        ],
        ['t'],
      ],
      ['multi', [{ value: 'u', label: 'You' }], null],
    ]);
  });

  it('a nested object, a list of free values or an unknown type is a form Errand cannot draw, with the field named', () => {
    expect(form({ ok: { type: 'string' }, address: { type: 'object', properties: {} } })).toMatchObject({
      mode: 'unsupported',
      reason: 'the field "address" is a nested object (a form takes only flat fields)',
    });
    expect(form({ tags: { type: 'array', items: { type: 'string' } } })).toMatchObject({
      mode: 'unsupported',
      reason: expect.stringContaining('"tags"'),
    });
    expect(form({ when: { type: 'null' } })).toMatchObject({
      mode: 'unsupported',
      reason: expect.stringContaining('"when"'),
    });
  });

  it('a URL request needs a web address and an id; params that are no request at all are malformed', () => {
    expect(
      readRequestedElicitation({ mode: 'url', message: 'm', url: 'https://a.example/x', elicitationId: 'e1' }),
    ).toEqual({ mode: 'url', message: 'm', url: 'https://a.example/x', elicitationId: 'e1' });
    expect(
      readRequestedElicitation({ mode: 'url', message: 'm', url: 'javascript:alert(1)', elicitationId: 'e1' }),
    ).toMatchObject({ mode: 'unsupported' });
    expect(() => readRequestedElicitation({ mode: 'url', message: 'm' })).toThrow(MalformedElicitation);
    expect(() => readRequestedElicitation({ requestedSchema: { type: 'object', properties: {} } })).toThrow(
      MalformedElicitation,
    );
  });
});

describe('checking what a person entered', () => {
  const fields = fieldsOf(
    {
      mail: { type: 'string', format: 'email' },
      site: { type: 'string', format: 'uri' },
      at: { type: 'string', format: 'date-time' },
      name: { type: 'string', minLength: 2, maxLength: 4 },
      n: { type: 'number', minimum: 0.5 },
      yes: { type: 'boolean' },
      pick: { type: 'string', enum: ['in', 'out'], enumNames: ['Indoors', 'Terrace'] },
    },
    ['mail'],
  );

  it('says what is wrong with each field', () => {
    expect(
      checkAnswers(fields, {
        mail: 'nobody',
        site: 'not a url',
        at: '2026-01-31 09:30',
        name: 'x',
        n: '0.1',
        yes: 'maybe',
        pick: 'garden',
      }),
    ).toEqual({
      ok: false,
      errors: {
        mail: 'Enter an email address, like name@example.com.',
        site: 'Enter a full address, like https://example.com.',
        at: 'Enter a date and time like 2026-01-31T09:30:00Z.',
        name: 'Enter at least 2 characters.',
        n: 'Enter 0.5 or more.',
        yes: 'Answer yes or no.',
        pick: 'Choose one of: Indoors, Terrace.',
      },
    });
    expect(checkAnswers(fields, {})).toEqual({ ok: false, errors: { mail: 'Required.' } });
  });

  it('types what is right, reads a choice by its label, and leaves out empty optional fields', () => {
    expect(
      checkAnswers(fields, {
        mail: ' a@b.co ',
        site: 'https://x.example',
        at: '2026-01-31T09:30:00+01:00',
        name: 'Ann',
        n: '1,000.5',
        yes: 'No',
        pick: 'terrace',
      }),
    ).toEqual({
      ok: true,
      content: {
        mail: 'a@b.co',
        site: 'https://x.example',
        at: '2026-01-31T09:30:00+01:00',
        name: 'Ann',
        n: 1000.5,
        yes: false,
        pick: 'out',
      },
    });
  });
});

describe('elicitation button ids', () => {
  it('round-trip, and refuse what is not one', () => {
    expect(parseElicitationActionId(elicitationActionId('abc123', 'decline'))).toEqual({ id: 'abc123', op: 'decline' });
    expect(parseElicitationActionId('errand:elicit:abc:pick')).toBeNull();
    expect(parseElicitationActionId('errand:elicit:ABC:answer')).toBeNull();
    expect(parseElicitationActionId('errand:answer:r:q:0')).toBeNull();
    expect(() => elicitationActionId('a:b', 'answer')).toThrow();
  });
});

describe('a stored question and its fingerprint', () => {
  const params = {
    message: 'Where?',
    requestedSchema: {
      type: 'object',
      properties: { seating: { type: 'string', enum: ['in', 'out'] }, note: { type: 'string' } },
      required: ['seating'],
    },
  };
  const reordered = {
    requestedSchema: {
      required: ['seating'],
      properties: { note: { type: 'string' }, seating: { enum: ['in', 'out'], type: 'string' } },
      type: 'object',
    },
    message: 'Where?',
    _meta: { x: 1 },
  };

  it('is the same question however its server orders the keys, and another one for another server, message, schema or link', () => {
    expect(fingerprintOf('diner', reordered)).toBe(fingerprintOf('diner', params));
    expect(fingerprintOf('bistro', params)).not.toBe(fingerprintOf('diner', params));
    expect(fingerprintOf('diner', { ...params, message: 'Where now?' })).not.toBe(fingerprintOf('diner', params));
    expect(
      fingerprintOf('diner', { ...params, requestedSchema: { ...params.requestedSchema, required: [] } }),
    ).not.toBe(fingerprintOf('diner', params));
    const link = { mode: 'url', message: 'Pay', url: 'https://pay.example.com/a', elicitationId: 'e1' };
    expect(fingerprintOf('diner', { ...link, url: 'https://pay.example.com/b' })).not.toBe(
      fingerprintOf('diner', link),
    );
  });

  it('reads back from its stored JSON as the request it was, and a settled answer as an MCP result (anything else as cancel)', () => {
    const stored = JSON.parse(JSON.stringify(storedRequest(reordered))) as unknown;
    expect(requestOf({ request: stored })).toEqual(readRequestedElicitation(reordered));
    expect(requestOf({ request: { message: 'no schema' } })).toBeNull();
    expect(resultOf({ state: 'answered', answer: { action: 'accept', content: { seating: 'in' } } })).toEqual({
      action: 'accept',
      content: { seating: 'in' },
    });
    expect(resultOf({ state: 'answered', answer: { action: 'maybe' } })).toEqual({ action: 'cancel' });
    expect(resultOf({ state: 'waiting', answer: null })).toEqual({ action: 'cancel' });
  });
});
