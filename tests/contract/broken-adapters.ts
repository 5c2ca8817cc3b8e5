import type { AdapterCapabilities, AnswerStream, ChatAdapter, OutboundMessage, PostedMessage } from '../../src/chat/chat-adapter.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { CapabilityName, ChatAdapterHarness, ContractOptions, Patience } from './chat-adapter-harness.js';

/** Patience against a broken adapter: what it should do but never will is given up on sooner. */
export const BROKEN_PATIENCE: Patience = { wait: 5000, last: 750 };

/** A harness whose adapter (or whose inbound side) is broken, and how to undo what breaking it left behind. */
export interface Broken {
  readonly harness: ChatAdapterHarness;
  restore(): Promise<void>;
}

/**
 * An adapter broken in one member, and the contract check that must fail against it: the suite runs the check
 * with `breakIn(h)` and expects it to throw `fails` (the assertion or the wait that catches the fault).
 */
export interface BrokenAdapter {
  readonly check: string;
  /** What is broken, in words. */
  readonly broken: string;
  readonly fails: RegExp;
  applies?(options: ContractOptions): boolean;
  breakIn(h: ChatAdapterHarness): Broken;
}

/** `adapter` with some members replaced; every other member is the adapter's own. */
function withMembers(adapter: ChatAdapter, members: Partial<ChatAdapter>): ChatAdapter {
  return new Proxy(adapter, {
    get(target, prop) {
      if (Object.prototype.hasOwnProperty.call(members, prop)) return members[prop as keyof ChatAdapter];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** `adapter` with one capability replaced by `make(original)`. */
function withCapability<K extends CapabilityName>(adapter: ChatAdapter, name: K, make: (original: NonNullable<AdapterCapabilities[K]>) => AdapterCapabilities[K]): ChatAdapter {
  return withMembers(adapter, { capabilities: { ...adapter.capabilities, [name]: make(adapter.capabilities[name]!) } });
}

const nothingToRestore = async () => undefined;
/** The harness with a broken adapter and nothing to undo. */
const plainly = (h: ChatAdapterHarness, adapter: ChatAdapter): Broken => ({ harness: { ...h, adapter }, restore: nothingToRestore });
/** The harness whose adapter hands the core something else than it got (`h.sink.tamper`), until restored. */
function tampering(h: ChatAdapterHarness, tamper: NonNullable<ChatAdapterHarness['sink']['tamper']>): Broken {
  h.sink.tamper = tamper;
  return { harness: h, restore: async () => void (h.sink.tamper = null) };
}
/** The same for the surfaces. */
function tamperingSurfaces(h: ChatAdapterHarness, tamper: NonNullable<NonNullable<ChatAdapterHarness['surfaces']>['tamper']>): Broken {
  h.surfaces!.tamper = tamper;
  return { harness: h, restore: async () => void (h.surfaces!.tamper = null) };
}
const top = (c: ConversationRef): ConversationRef => ({ ...c, thread: null });
const manyScreens = (o: ContractOptions) => o.singleScreen !== true;
const declares = (c: CapabilityName) => (o: ContractOptions) => o.capabilities.includes(c);

/** Every broken adapter of the suite; those whose check an adapter does not have (or that `applies` rules out) are left out. */
export const BROKEN_ADAPTERS: readonly BrokenAdapter[] = [
  {
    check: 'mention',
    broken: "it leaves the bot's mention in the text it hands over",
    fails: /the mention is stripped/,
    breakIn: (h) => tampering(h, { message: (m) => ({ ...m, text: `<@BOT> ${m.text}` }) }),
  },
  {
    check: 'redelivery',
    broken: "it hands a post over again under a new id (a redelivery, or a mention's second event)",
    fails: /a redelivery comes under the id of the post it repeats/,
    breakIn: (h) => tampering(h, { message: (m) => [m, { ...m, messageId: `${m.messageId}.again` }] }),
  },
  {
    check: 'new-id',
    broken: 'it makes a message id of the text',
    fails: /a new post has a new id/,
    breakIn: (h) => tampering(h, { message: (m) => ({ ...m, messageId: `text:${m.text}` }) }),
  },
  {
    check: 'thread',
    broken: "postMessage posts at the channel's top level instead of in the thread",
    fails: /the post is in the thread/,
    applies: manyScreens,
    breakIn: (h) => plainly(h, withMembers(h.adapter, { postMessage: (c, m) => h.adapter.postMessage(top(c), m) })),
  },
  {
    check: 'thread',
    broken: 'openThread opens the thread in another channel',
    fails: /the thread is in the channel of its message/,
    breakIn: (h) => plainly(h, withMembers(h.adapter, { openThread: async (channel, id, name) => ({ ...(await h.adapter.openThread(channel, id, name)), channel: 'C0ELSEWHERE' }) })),
  },
  {
    check: 'split',
    broken: 'it cuts long text at the limit, through code fences',
    fails: /keeps its code fences whole/,
    breakIn: (h) => {
      const limit = h.adapter.maxMessageLength;
      const postMessage = async (c: ConversationRef, m: OutboundMessage): Promise<PostedMessage> => {
        let last: PostedMessage = { id: '' };
        for (let at = 0; at < m.text.length; at += limit) last = await h.adapter.postMessage(c, { ...m, text: m.text.slice(at, at + limit) });
        return last;
      };
      return plainly(h, withMembers(h.adapter, { postMessage }));
    },
  },
  {
    check: 'edit',
    broken: 'editMessage posts the new text anew',
    fails: /replaced the message in place|shown as an edit/,
    breakIn: (h) => plainly(h, withMembers(h.adapter, { editMessage: async (c, _id, m) => void (await h.adapter.postMessage(c, m)) })),
  },
  {
    check: 'working',
    broken: 'setWorking(null) leaves the indicator up',
    fails: /the working indicator to go/,
    breakIn: (h) => {
      const shown: ConversationRef[] = [];
      const adapter = withMembers(h.adapter, {
        setWorking: async (c, status) => {
          if (status) shown.push(c);
          if (status) await h.adapter.setWorking(c, status);
        },
      });
      return { harness: { ...h, adapter }, restore: async () => void (await Promise.all(shown.map((c) => h.adapter.setWorking(c, null)))) };
    },
  },
  {
    check: 'working',
    broken: "setWorking shows the indicator at the channel's top level instead of in the thread",
    fails: /shown in the conversation that works/,
    applies: manyScreens,
    breakIn: (h) => plainly(h, withMembers(h.adapter, { setWorking: (c, status) => h.adapter.setWorking(top(c), status) })),
  },
  {
    check: 'steps',
    broken: "setWorking drops the run's steps",
    fails: /the first step is shown running, with the working indicator/,
    applies: (o) => o.steps === 'working',
    breakIn: (h) => plainly(h, withMembers(h.adapter, { setWorking: (c, status) => h.adapter.setWorking(c, status ? { ...status, steps: undefined } : null) })),
  },
  {
    check: 'steps',
    broken: "the stream ignores the run's steps (showSteps does nothing)",
    fails: /the first step is shown running, in the streamed answer/,
    applies: (o) => o.steps === 'stream',
    breakIn: (h) => plainly(h, withCapability(h.adapter, 'stream', (stream) => ({ open: (c, r, hooks) => ({ ...wrapStream(stream.open(c, r, hooks)), showSteps: () => undefined }) }))),
  },
  {
    check: 'notice',
    broken: 'postEphemeral posts the notice as an ordinary post (public, notifying nobody)',
    fails: /the notice is shown to the person/,
    breakIn: (h) => plainly(h, withMembers(h.adapter, { postEphemeral: async (c, _u, text) => void (await h.adapter.postMessage(c, { text })) })),
  },
  {
    check: 'notice',
    broken: 'postEphemeral shows the notice to someone else',
    fails: /the notice is shown to the person/,
    applies: manyScreens,
    breakIn: (h) => plainly(h, withMembers(h.adapter, { postEphemeral: (c, _u, text) => h.adapter.postEphemeral(c, h.otherPerson!, text) })),
  },
  {
    check: 'notice',
    broken: "postEphemeral shows the notice at the channel's top level instead of in the thread",
    fails: /the notice is shown to the person/,
    applies: manyScreens,
    breakIn: (h) => plainly(h, withMembers(h.adapter, { postEphemeral: (c, u, text) => h.adapter.postEphemeral(top(c), u, text) })),
  },
  {
    check: 'command',
    broken: "it hands the command over without what was typed after the command's name",
    fails: /the command as the person typed it/,
    breakIn: (h) => tampering(h, { command: (c) => ({ ...c, args: '' }) }),
  },
  {
    check: 'answer-click',
    broken: "it hands the option's position over as the answer",
    fails: /the click as the answer it stands for/,
    breakIn: (h) => tampering(h, { action: (a) => (a.kind === 'answer' ? { ...a, answer: '2' } : a) }),
  },
  {
    check: 'stop-click',
    broken: 'it drops where the Stop was clicked',
    fails: /the click as a stop of the run where it was clicked/,
    breakIn: (h) => tampering(h, { action: (a) => (a.kind === 'stop' ? { ...a, conversation: null } : a) }),
  },
  {
    check: 'thread-fallback',
    broken: 'openThread throws where no thread can be opened',
    fails: /no thread can be opened here/,
    breakIn: (h) =>
      plainly(
        h,
        withMembers(h.adapter, {
          openThread: async (channel, id, name) => {
            const opened = await h.adapter.openThread(channel, id, name);
            if (opened.thread === null) throw new Error('no thread can be opened here');
            return opened;
          },
        }),
      ),
  },
  {
    check: 'thread-fallback',
    broken: 'openThread makes a thread up where none can be opened',
    fails: /the channel's own conversation/,
    breakIn: (h) => plainly(h, withMembers(h.adapter, { openThread: async (channel, id) => ({ ...channel, thread: id }) })),
  },
  {
    check: 'stop',
    broken: 'stop() drops the posts still queued',
    fails: /every queued post reached the platform/,
    breakIn: (h) => {
      // Its own queue, which stop() throws away instead of flushing (the adapter itself is left running).
      const queued = new Set<NodeJS.Timeout>();
      const postMessage = (c: ConversationRef, m: OutboundMessage) =>
        new Promise<PostedMessage>((resolve, reject) => {
          const timer = setTimeout(() => {
            queued.delete(timer);
            h.adapter.postMessage(c, m).then(resolve, reject);
          }, 50);
          queued.add(timer);
        });
      const drop = async () => {
        for (const timer of queued) clearTimeout(timer);
        queued.clear();
      };
      return { harness: { ...h, adapter: withMembers(h.adapter, { postMessage, stop: drop }) }, restore: drop };
    },
  },
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
      return { harness: { ...h, adapter }, restore: async () => void (await Promise.all(open.map((s) => s.stop('discard')))) };
    },
  },
  {
    check: 'delete',
    broken: 'deleteMessage says the message is gone without deleting it',
    fails: /the post to be gone/,
    applies: declares('delete'),
    breakIn: (h) => plainly(h, withCapability(h.adapter, 'delete', () => ({ deleteMessage: async () => true }))),
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
    breakIn: (h) => plainly(h, withCapability(h.adapter, 'previewLookup', () => ({ findUnrecordedPreview: async () => null }))),
  },
  {
    check: 'history',
    broken: 'readThread reads the thread newest first',
    fails: /oldest first/,
    applies: declares('history'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'history', (history) => ({
          ...history,
          readThread: async (c, o) => {
            const page = await history.readThread(c, o);
            return { ...page, messages: [...page.messages].reverse() };
          },
        })),
      ),
  },
  {
    check: 'history',
    broken: "readThread takes its own posts for a person's",
    fails: /people and itself told apart/,
    applies: declares('history'),
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'history', (history) => ({
          ...history,
          readThread: async (c, o) => {
            const page = await history.readThread(c, o);
            return { ...page, messages: page.messages.map((m) => ({ ...m, author: { ...m.author, isBot: false, isSelf: false } })) };
          },
        })),
      ),
  },
  {
    check: 'history',
    broken: 'readChannel reads the thread',
    fails: /the channel holds the message the thread was opened on|the channel, not the thread's replies/,
    applies: (o) => o.capabilities.includes('history') && manyScreens(o),
    breakIn: (h) => plainly(h, withCapability(h.adapter, 'history', (history) => ({ ...history, readChannel: (c, o) => history.readThread(c, o) }))),
  },
  {
    check: 'readAfter',
    broken: 'readAfter reads nothing',
    fails: /what came after, and only that/,
    applies: (o) => o.readAfter === true,
    breakIn: (h) => plainly(h, withCapability(h.adapter, 'history', (history) => ({ ...history, readAfter: async () => ({ messages: [], truncated: false }) }))),
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
          sendDirect: async (userId, text) => (userId === h.person ? { kind: 'sent' as const, messageId: (await h.adapter.postMessage({ ...h.channel, thread: null }, { text })).id } : direct.sendDirect(userId, text)),
        })),
      ),
  },
  {
    check: 'privateAnswers',
    broken: 'showPrivately drops the buttons',
    fails: /shown to the person, with its buttons/,
    applies: declares('privateAnswers'),
    breakIn: (h) => plainly(h, withCapability(h.adapter, 'privateAnswers', (p) => ({ ...p, showPrivately: (c, u, m) => p.showPrivately(c, u, { text: m.text }) }))),
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
    breakIn: (h) => plainly(h, withCapability(h.adapter, 'privateAnswers', (p) => ({ ...p, othersRead: () => true }))),
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
            for (const [i, file] of post.files.entries()) last = await files.postFiles(c, { ...post, files: [file], idempotencyKey: `${post.idempotencyKey}${i}` });
            return last;
          },
        })),
      ),
  },
  {
    check: 'session',
    broken: 'setSession shows waiting as idle',
    fails: /every change, once/,
    applies: declares('session'),
    breakIn: (h) => plainly(h, withCapability(h.adapter, 'session', (s) => ({ setSession: (c, u) => s.setSession(c, u.state === 'waiting' ? { ...u, state: 'idle' } : u) }))),
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
    breakIn: (h) => plainly(h, withCapability(h.adapter, 'timezone', () => ({ fetchUserTimezone: async () => 'UTC' }))),
  },
  {
    check: 'home',
    broken: 'it asks for the App Home of someone else',
    fails: /the Home of the person who opened it/,
    applies: (o) => o.surfaces?.home === true,
    breakIn: (h) => tamperingSurfaces(h, { home: (r) => ({ ...r, userId: 'someone-else' }) }),
  },
  {
    check: 'disconnect',
    broken: 'it hands a Disconnect over for another server',
    fails: /the Disconnect of that person and server/,
    applies: (o) => o.surfaces?.disconnect === true,
    breakIn: (h) => tamperingSurfaces(h, { disconnect: (r) => ({ ...r, server: 'another' }) }),
  },
  {
    check: 'forms',
    broken: "it drops the schedule form's prompt",
    fails: /the form as submitted/,
    applies: (o) => o.surfaces?.forms === true,
    breakIn: (h) => tamperingSurfaces(h, { form: (s) => ({ ...s, values: { ...s.values, prompt: '' } }) }),
  },
  {
    check: 'elicitation',
    broken: "it drops what was typed in a server's form",
    fails: /the form came back with what was typed/,
    applies: (o) => o.surfaces?.elicitation === true,
    breakIn: (h) => tamperingSurfaces(h, { elicitation: (e) => (e.kind === 'submit' ? { ...e, values: {} } : e) }),
  },
  {
    check: 'schedule-click',
    broken: "it loses the schedule's id on a click",
    fails: /the op on the schedule it names/,
    applies: (o) => o.commandReplyButtons,
    breakIn: (h) => tampering(h, { action: (a) => (a.kind === 'schedule' ? { ...a, scheduleId: null } : a) }),
  },
];

/** The checks no broken adapter is run against, and why. */
export const NOT_BROKEN: Readonly<Record<string, string>> = {
  declares: 'compares declarations with the options; nothing is driven',
  'bot-echo': "a broken echo filter hands the core posts it should drop: the sink cannot be made to receive what the adapter never handed it, and the fakes' bot posts are what the check itself sends",
};

/** A stream that passes every call to `inner` (its methods replaced one at a time by the broken ones). */
function wrapStream(inner: AnswerStream): AnswerStream {
  return {
    append: (text) => inner.append(text),
    finish: (text, pieces) => inner.finish(text, pieces),
    stop: (how) => inner.stop(how),
    ...(inner.showSteps ? { showSteps: (steps: Parameters<NonNullable<AnswerStream['showSteps']>>[0]) => inner.showSteps!(steps) } : {}),
  };
}
