import { describe, expect, it } from 'vitest';
import { answerActionId, parseActionId, stopActionId } from '../../src/chat/action-id.js';
import { conversationKey, parseConversationKey } from '../../src/chat/conversation-ref.js';

describe('conversation keys', () => {
  it('encode platform:workspace:channel:thread with - for no thread, and decode back', () => {
    const cases = [
      [
        'slack:T012:C034:1700000000.000100',
        { platform: 'slack', workspace: 'T012', channel: 'C034', thread: '1700000000.000100' },
      ],
      [
        'discord:81384788765712384:81384788765712390:-',
        { platform: 'discord', workspace: '81384788765712384', channel: '81384788765712390', thread: null },
      ],
      [
        'console:local:console:ab12cd34',
        { platform: 'console', workspace: 'local', channel: 'console', thread: 'ab12cd34' },
      ],
    ] as const;
    for (const [key, ref] of cases) {
      expect(conversationKey(ref)).toBe(key);
      expect(parseConversationKey(key)).toEqual(ref);
    }
  });

  it('reject malformed keys', () => {
    for (const bad of ['', 'slack:T1:C1', 'slack:T1:C1:1:2', 'slack::C1:-', 'slack:T 1:C1:-'])
      expect(parseConversationKey(bad)).toBeNull();
  });
});

describe('action ids', () => {
  it('round-trip stop and answer ids and reject foreign ones', () => {
    expect(parseActionId(stopActionId('run-1'))).toEqual({ kind: 'stop', runId: 'run-1' });
    expect(parseActionId(answerActionId('run-1', '0a1b2c3d', 3))).toEqual({
      kind: 'answer',
      runId: 'run-1',
      questionId: '0a1b2c3d',
      option: 3,
    });
    for (const bad of [
      'other:stop:x',
      'errand:stop:',
      'errand:answer:r:x',
      'errand:answer:r',
      'errand:answer:r:Q-1:0',
      'errand:answer:r:q1:x',
    ])
      expect(parseActionId(bad)).toBeNull();
  });

  it('decode an answer button posted before buttons named their question, with no question id', () => {
    expect(parseActionId('errand:answer:run-1:2')).toEqual({
      kind: 'answer',
      runId: 'run-1',
      questionId: null,
      option: 2,
    });
  });

  it('refuse to build an answer id whose question id would not decode', () => {
    expect(() => answerActionId('run-1', 'a:b', 0)).toThrow(/question id "a:b"/);
  });
});
