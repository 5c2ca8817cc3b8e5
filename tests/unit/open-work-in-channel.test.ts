import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Db } from '../../src/db/client.js';
import type { ConversationStore } from '../../src/conversations/conversation-store.js';
import type { RunStore } from '../../src/run-records/run-store.js';
import { OPEN_WORK_IN_CHANNEL_SQL } from '../../src/store/sqlite/sqlite-conversation-store.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import type { TaskService } from '../../src/tasks/task-service.js';
import { FakeClock } from '../fakes/fake-clock.js';

let db: Db;
let conversations: ConversationStore;
let tasks: TaskService;
let runs: RunStore;
const clock = new FakeClock();
const channel = { platform: 'slack', workspace: 'T0TEAM0001', channel: 'C0GENERAL' };

beforeEach(() => {
  db = openDatabase(':memory:');
  ({ conversations, tasks, runs } = createSqliteStore(db, clock));
});
afterEach(async () => closeDatabase(db));

async function conversationWithTask(ch: typeof channel, thread: string, finish: boolean): Promise<string> {
  const id = await conversations.ensure({ ...ch, thread });
  const added = await tasks.add({ conversationId: id, title: 't', description: 'd', createdBy: 'user' });
  if (!added.ok) throw new Error(added.error);
  if (finish) await tasks.complete(id, added.task.id, 'done');
  return id;
}

describe('conversations with open work in a channel', () => {
  it('are the ones with a pending or running task or an active run, in this channel only', async () => {
    for (let i = 0; i < 50; i++) await conversationWithTask(channel, `1700000000.${String(i).padStart(6, '0')}`, true);
    const pending = await conversationWithTask(channel, '1700000001.000001', false);
    const running = await conversationWithTask(channel, '1700000001.000002', false);
    await tasks.claimNext(running);
    const waiting = await conversations.ensure({ ...channel, thread: '1700000001.000003' });
    await runs.create(waiting, null);
    await conversationWithTask({ ...channel, channel: 'C0GENERAL2' }, '1700000001.000004', false);
    await conversationWithTask({ ...channel, channel: 'C0GENERA' }, '1700000001.000005', false);
    await conversations.ensure({ ...channel, thread: null });

    expect((await conversations.listWithOpenWork(channel)).map((c) => c.id)).toEqual([pending, running, waiting]);
    expect((await conversations.listWithOpenWork(channel))[0]).toMatchObject({
      platform: 'slack',
      workspace: 'T0TEAM0001',
      channel: 'C0GENERAL',
      thread: '1700000001.000001',
    });
  });

  it('are found through the open-work indexes, never by scanning the channel or every task', () => {
    const plan = (
      db.$client.prepare(`explain query plan ${OPEN_WORK_IN_CHANNEL_SQL}`).all({ lo: 'a:', hi: 'a;' }) as {
        detail: string;
      }[]
    ).map((r) => r.detail);
    expect(plan).toContainEqual(
      expect.stringMatching(/SEARCH tasks USING INDEX tasks_open_idx \(conversation_id>\? AND conversation_id<\?\)/),
    );
    expect(plan).toContainEqual(
      expect.stringMatching(
        /SEARCH runs USING INDEX runs_one_active_per_conversation \(conversation_id>\? AND conversation_id<\?\)/,
      ),
    );
    expect(plan.filter((d) => d.startsWith('SCAN'))).toEqual([]);
  });
});
