import type { TranscriptRow } from './agent-types.js';
import type { LlmMessage } from './llm-client.js';
import type { ContextUnit } from './transcript-units.js';

/** Where the viewer's own summary begins, inside the conversation's summary block. */
export const PRIVATE_SUMMARY_HEADING =
  'Only for the person you work for now (what their own sign-ins and memories gave earlier in this conversation; never share it in the thread unless they ask)';

/** The conversation's summary with the viewer's own summary after it; null when there is neither. */
export function withPrivateSummary(shared: string | null, own: string | null): string | null {
  if (own === null || own === '') return shared;
  return `${shared ?? '(nothing shared yet)'}\n\n${PRIVATE_SUMMARY_HEADING}:\n${own}`;
}

/**
 * Private rows read on their own (not whole units: their calls may be public and elsewhere), each as a message the
 * summary writer can read: what a result said, and what the run wrote from it.
 */
export function privateRowUnits(rows: readonly TranscriptRow[]): ContextUnit[] {
  const units: ContextUnit[] = [];
  for (const row of rows) {
    const content = row.content ?? '';
    if (row.role === 'tool') units.push([{ role: 'tool', toolCallId: row.toolCallId ?? 'call', content }]);
    else if (row.role === 'assistant') {
      const calls = Array.isArray(row.toolCalls) ? row.toolCalls : [];
      if (content !== '' || calls.length > 0)
        units.push([
          { role: 'assistant', content: row.content, ...(calls.length > 0 ? { toolCalls: calls } : {}) } as LlmMessage,
        ]);
    } else if (content !== '') units.push([{ role: 'user', content }]);
  }
  return units;
}
