import type { AnswerStream, PostedMessage } from '../../src/chat/chat-adapter.js';
import type { HistoryMessage } from '../../src/chat/conversation-history.js';
import type { ChatAdapterHarness } from './chat-adapter-harness.js';
import {
  declares,
  manyScreens,
  plainly,
  tampering,
  withCapability,
  wrapStream,
  type Broken,
  type BrokenAdapter,
} from './broken-kit.js';

/** The adapter whose history reads a thread and hands over its messages changed by `change`. */
function readThreadAs(
  h: ChatAdapterHarness,
  change: (messages: readonly HistoryMessage[]) => HistoryMessage[],
): Broken {
  return plainly(
    h,
    withCapability(h.adapter, 'history', (history) => ({
      ...history,
      readThread: async (c, o) => {
        const page = await history.readThread(c, o);
        return { ...page, messages: change(page.messages) };
      },
    })),
  );
}

/** Adapters broken in one capability they declare. */
export const BROKEN_CAPABILITIES: readonly BrokenAdapter[] = [
  {
    check: 'memberRoles',
    broken: 'rolesOf keeps answering the roles it read first',
    fails: /the roles as they are now/,
    applies: declares('memberRoles'),
    breakIn: (h) => {
      const first = new Map<string, Promise<readonly string[]>>();
      return plainly(
        h,
        withCapability(h.adapter, 'memberRoles', (lookup) => ({
          rolesOf: (workspace, userId) => {
            const key = `${workspace}:${userId}`;
            if (!first.has(key)) first.set(key, lookup.rolesOf(workspace, userId));
            return first.get(key)!;
          },
        })),
      );
    },
  },
  {
    check: 'stream',
    broken: 'finish shows the final text after what was streamed, instead of replacing it',
    fails: /exactly the final text/,
    applies: declares('stream'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'stream', (stream) => ({
          open: (c, r, hooks) => {
            const inner = stream.open(c, r, hooks);
            let streamed = '';
            return {
              ...wrapStream(inner),
              append: (text) => {
                streamed += text;
                inner.append(text);
              },
              // The final text goes out as more of the stream (a terminal prints it), and the pieces as both.
              finish: (text, pieces) => {
                inner.append(text);
                return inner.finish(`${streamed}${text}`, [`${streamed}${pieces.join('')}`]);
              },
            };
          },
        })),
      ),
  },
  {
    check: 'stream-stop',
    broken: 'stop() leaves the preview open',
    fails: /a stopped preview finishes nothing/,
    applies: declares('stream'),
    breakIn: (h) => {
      const open: AnswerStream[] = [];
      const adapter = withCapability(h.adapter, 'stream', (stream) => ({
        open: (c, r, hooks) => {
          const inner = stream.open(c, r, hooks);
          open.push(inner);
          return { ...wrapStream(inner), stop: async () => undefined };
        },
      }));
      return {
        harness: { ...h, adapter },
        restore: async () => void (await Promise.all(open.map((s) => s.stop('discard')))),
      };
    },
  },
  {
    check: 'delete',
    broken: 'deleteMessage says the message is gone without deleting it',
    fails: /the post to be gone/,
    applies: declares('delete'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'delete', () => ({ deleteMessage: async () => true })),
      ),
  },
  {
    check: 'postedLookup',
    broken: 'findPosted answers every key it is asked about',
    fails: /the key it carried, and no other/,
    applies: declares('postedLookup'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'postedLookup', (lookup) => ({
          findPosted: async (c, keys) => {
            const found = await lookup.findPosted(c, keys);
            const any = [...found.values()][0] ?? 'x';
            return new Map(keys.map((k) => [k, found.get(k) ?? any]));
          },
        })),
      ),
  },
  {
    check: 'previewLookup',
    broken: 'findUnrecordedPreview finds nothing',
    fails: /the preview is found/,
    applies: declares('previewLookup'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'previewLookup', () => ({ findUnrecordedPreview: async () => null })),
      ),
  },
  {
    check: 'history',
    broken: 'readThread reads the thread newest first',
    fails: /oldest first/,
    applies: declares('history'),
    breakIn: (h) => readThreadAs(h, (messages) => [...messages].reverse()),
  },
  {
    check: 'history',
    broken: "readThread takes its own posts for a person's",
    fails: /people and itself told apart/,
    applies: declares('history'),
    breakIn: (h) =>
      readThreadAs(h, (messages) =>
        messages.map((m) => ({ ...m, author: { ...m.author, isBot: false, isSelf: false } })),
      ),
  },
  {
    check: 'history',
    broken: 'readChannel reads the thread',
    fails: /the channel holds the message the thread was opened on|the channel, not the thread's replies/,
    applies: (o) => o.capabilities.includes('history') && manyScreens(o),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'history', (history) => ({
          ...history,
          readChannel: (c, o) => history.readThread(c, o),
        })),
      ),
  },
  {
    check: 'readAfter',
    broken: 'readAfter reads nothing',
    fails: /what came after, and only that/,
    applies: (o) => o.readAfter === true,
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'history', (history) => ({
          ...history,
          readAfter: async () => ({ messages: [], truncated: false }),
        })),
      ),
  },
  {
    check: 'directMessage',
    broken: 'sendDirect posts in the channel instead of the direct conversation',
    fails: /both reached their direct conversation/,
    applies: declares('directMessage'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'directMessage', (direct) => ({
          sendDirect: async (userId, text) =>
            userId === h.person
              ? {
                  kind: 'sent' as const,
                  messageId: (await h.adapter.postMessage({ ...h.channel, thread: null }, { text })).id,
                }
              : direct.sendDirect(userId, text),
        })),
      ),
  },
  {
    check: 'privateAnswers',
    broken: 'showPrivately drops the buttons',
    fails: /shown to the person, with its buttons/,
    applies: declares('privateAnswers'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'privateAnswers', (p) => ({
          ...p,
          showPrivately: (c, u, m) => p.showPrivately(c, u, { text: m.text }),
        })),
      ),
  },
  {
    check: 'privateAnswers',
    broken: 'showPrivately posts in the conversation',
    fails: /never among the posts of the conversation/,
    applies: declares('privateAnswers'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'privateAnswers', (p) => ({
          ...p,
          showPrivately: async (c, _u, m) => {
            await h.adapter.postMessage(c, m);
            return { kind: 'shown' as const };
          },
        })),
      ),
  },
  {
    check: 'privateAnswers',
    broken: 'othersRead says a one-to-one conversation is read by others',
    fails: /read by nobody else/,
    applies: (o) => o.capabilities.includes('privateAnswers') && manyScreens(o),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'privateAnswers', (p) => ({ ...p, othersRead: () => true })),
      ),
  },
  {
    check: 'files',
    broken: 'postFiles posts each file as a message of its own',
    fails: /posted as one message/,
    applies: declares('files'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'files', (files) => ({
          ...files,
          postFiles: async (c, post) => {
            let last: PostedMessage = { id: '' };
            for (const [i, file] of post.files.entries())
              last = await files.postFiles(c, { ...post, files: [file], idempotencyKey: `${post.idempotencyKey}${i}` });
            return last;
          },
        })),
      ),
  },
  {
    check: 'privateFiles',
    broken: 'showFilesPrivately posts the files in the conversation too',
    fails: /no file in the conversation/,
    applies: declares('privateFiles'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'privateFiles', (p) => ({
          showFilesPrivately: async (c, u, files, m) => {
            await h.adapter.capabilities.files!.postFiles(c, { files, idempotencyKey: 'e670100' });
            return p.showFilesPrivately(c, u, files, m);
          },
        })),
      ),
  },
  {
    check: 'session',
    broken: 'setSession shows waiting as idle',
    fails: /every change, once/,
    applies: declares('session'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'session', (s) => ({
          setSession: (c, u) => s.setSession(c, u.state === 'waiting' ? { ...u, state: 'idle' } : u),
        })),
      ),
  },
  {
    check: 'session',
    broken: "the platform's Stop on a session is not handed to the core",
    fails: /the Stop on the session/,
    applies: declares('session'),
    breakIn: (h) => tampering(h, { sessionStop: () => null }),
  },
  {
    check: 'timezone',
    broken: 'fetchUserTimezone answers UTC for everyone',
    fails: /the person's timezone/,
    applies: declares('timezone'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'timezone', () => ({ fetchUserTimezone: async () => 'UTC' })),
      ),
  },
];
