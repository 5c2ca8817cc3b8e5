import { SUMMARY_INSTRUCTIONS } from '../../src/agent/context-summary.js';
import type { FakeOpenAI, RecordedRequest } from '../fakes/fake-openai.js';

/** Whether a recorded model request is one that writes a conversation's summary (compaction), not a run's step. */
export function isSummaryRequest(request: Pick<RecordedRequest, 'messages'>): boolean {
  const first = request.messages[0];
  return first?.role === 'system' && String(first.content).startsWith(SUMMARY_INSTRUCTIONS);
}

/** The requests of runs' steps, summary requests left out. */
export function stepRequests(model: Pick<FakeOpenAI, 'requests'>): RecordedRequest[] {
  return model.requests.filter((r) => !isSummaryRequest(r));
}
