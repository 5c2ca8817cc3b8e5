import { describe, expect, it } from 'vitest';
import { answerActionId, parseActionId, stopActionId } from '../../src/chat/action-id.js';
import { conversationKey, parseConversationKey } from '../../src/chat/conversation-ref.js';

describe('conversation keys', () => {
  it('encode platform:workspace:channel:thread with - for no thread, and decode back', () => {
    const cases = [
      ['slack:T012:C034:1700000000.000100', { platform: 'slack', workspace: 'T012', channel: 'C034', thread: '1700000000.000100' }],
      ['discord:81384788765712384:81384788765712390:-', { platform: 'discord', workspace: '81384788765712384', channel: '81384788765712390', thread: null }],
      ['console:local:console:ab12cd34', { platform: 'console', workspace: 'local', channel: 'console', thread: 'ab12cd34' }],
    ] as const;
    for (const [key, ref] of cases) {
      expect(conversationKey(ref)).toBe(key);
      expect(parseConversationKey(key)).toEqual(ref);
    }
  });

  it('reject malformed keys', () => {
    for (const bad of ['', 'slack:T1:C1', 'slack:T1:C1:1:2', 'slack::C1:-', 'slack:T 1:C1:-']) expect(parseConversationKey(bad)).toBeNull();
  });
});

describe('action ids', () => {
  it('round-trip stop and answer ids and reject foreign ones', () => {
    expect(parseActionId(stopActionId('run-1'))).toEqual({ kind: 'stop', runId: 'run-1' });
    expect(parseActionId(answerActionId('run-1', 3))).toEqual({ kind: 'answer', runId: 'run-1', option: 3 });
    for (const bad of ['other:stop:x', 'errand:stop:', 'errand:answer:r:x', 'errand:answer:r']) expect(parseActionId(bad)).toBeNull();
  });
});
