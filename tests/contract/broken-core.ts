import type { OutboundMessage, PostedMessage } from '../../src/chat/chat-adapter.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { splitText } from '../../src/chat/split-text.js';
import {
  manyScreens,
  plainly,
  tampering,
  tamperingSurfaces,
  top,
  withCapability,
  withMembers,
  wrapStream,
  type BrokenAdapter,
} from './broken-kit.js';

/** Adapters broken in one of the port's own members, or in what they hand the core from a conversation or a surface. */
export const BROKEN_CORE: readonly BrokenAdapter[] = [
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
    check: 'bot-echo',
    broken: "its echo filter is off: its own and other bots' posts reach the core as a person's would",
    fails: /expected \[[^\]]*I am a bot 6001/,
    applies: (o) => o.echoFilterReachable === true,
    breakIn: (h) => {
      const filterBackOn = h.hearBots!();
      return { harness: h, restore: async () => filterBackOn() };
    },
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
    breakIn: (h) =>
      plainly(
        h,
        withMembers(h.adapter, {
          openThread: async (channel, id, name) => ({
            ...(await h.adapter.openThread(channel, id, name)),
            channel: 'C0ELSEWHERE',
          }),
        }),
      ),
  },
  {
    check: 'split',
    broken: 'render cuts long text at the limit, through code fences',
    fails: /keeps its code fences whole/,
    breakIn: (h) => {
      const limit = h.adapter.maxMessageLength;
      const render = (text: string): string[] => {
        const pieces: string[] = [];
        for (let at = 0; at < text.length; at += limit / 2) pieces.push(text.slice(at, at + limit / 2));
        return pieces;
      };
      return plainly(h, withMembers(h.adapter, { render }));
    },
  },
  {
    check: 'split',
    broken: "render splits at the limit of Markdown, not of the platform's formatted text, and the post splits again",
    fails: /the post splits nothing again|within the limit/,
    breakIn: (h) => {
      const limit = h.adapter.maxMessageLength;
      const render = (text: string) => splitText(text, limit);
      const postMessage = async (c: ConversationRef, m: OutboundMessage): Promise<PostedMessage> => {
        let last: PostedMessage = { id: '' };
        for (const [i, piece] of splitText(m.text, Math.floor(limit / 2)).entries())
          last = await h.adapter.postMessage(c, { ...m, text: piece, ...(i > 0 ? { mentionUserId: undefined } : {}) });
        return last;
      };
      return plainly(h, withMembers(h.adapter, { render, postMessage }));
    },
  },
  {
    check: 'one-message',
    broken: 'postMessage splits a text over the limit into several messages',
    fails: /a text over the limit is refused/,
    breakIn: (h) => {
      const limit = h.adapter.maxMessageLength;
      const postMessage = async (c: ConversationRef, m: OutboundMessage): Promise<PostedMessage> => {
        let last: PostedMessage = { id: '' };
        for (const piece of splitText(m.text, Math.floor(limit / 2)))
          last = await h.adapter.postMessage(c, { ...m, text: piece });
        return last;
      };
      return plainly(h, withMembers(h.adapter, { postMessage }));
    },
  },
  {
    check: 'edit',
    broken: 'editMessage posts the new text anew',
    fails: /replaced the message in place|shown as an edit/,
    breakIn: (h) =>
      plainly(
        h,
        withMembers(h.adapter, { editMessage: async (c, _id, m) => void (await h.adapter.postMessage(c, m)) }),
      ),
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
      return {
        harness: { ...h, adapter },
        restore: async () => void (await Promise.all(shown.map((c) => h.adapter.setWorking(c, null)))),
      };
    },
  },
  {
    check: 'working',
    broken: "setWorking shows the indicator at the channel's top level instead of in the thread",
    fails: /shown in the conversation that works/,
    applies: manyScreens,
    breakIn: (h) =>
      plainly(h, withMembers(h.adapter, { setWorking: (c, status) => h.adapter.setWorking(top(c), status) })),
  },
  {
    check: 'steps',
    broken: "setWorking drops the run's steps",
    fails: /the first step is shown running, with the working indicator/,
    applies: (o) => o.steps === 'working',
    breakIn: (h) =>
      plainly(
        h,
        withMembers(h.adapter, {
          setWorking: (c, status) => h.adapter.setWorking(c, status ? { ...status, steps: undefined } : null),
        }),
      ),
  },
  {
    check: 'steps',
    broken: "the stream ignores the run's steps (showSteps does nothing)",
    fails: /the first step is shown running, in the streamed answer/,
    applies: (o) => o.steps === 'stream',
    breakIn: (h) =>
      plainly(
        h,
        withCapability(h.adapter, 'stream', (stream) => ({
          open: (c, r, hooks) => ({ ...wrapStream(stream.open(c, r, hooks)), showSteps: () => undefined }),
        })),
      ),
  },
  {
    check: 'notice',
    broken: 'postEphemeral posts the notice as an ordinary post (public, notifying nobody)',
    fails: /the notice is shown to the person/,
    breakIn: (h) =>
      plainly(
        h,
        withMembers(h.adapter, {
          postEphemeral: async (c, _u, text) => void (await h.adapter.postMessage(c, { text })),
        }),
      ),
  },
  {
    check: 'notice',
    broken: 'postEphemeral shows the notice to someone else',
    fails: /the notice is shown to the person/,
    applies: manyScreens,
    breakIn: (h) =>
      plainly(
        h,
        withMembers(h.adapter, { postEphemeral: (c, _u, text) => h.adapter.postEphemeral(c, h.otherPerson!, text) }),
      ),
  },
  {
    check: 'notice',
    broken: "postEphemeral shows the notice at the channel's top level instead of in the thread",
    fails: /the notice is shown to the person/,
    applies: manyScreens,
    breakIn: (h) =>
      plainly(h, withMembers(h.adapter, { postEphemeral: (c, u, text) => h.adapter.postEphemeral(top(c), u, text) })),
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
    breakIn: (h) =>
      plainly(h, withMembers(h.adapter, { openThread: async (channel, id) => ({ ...channel, thread: id }) })),
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
    check: 'stop',
    broken: 'connectionState() says connected after stop()',
    fails: /disconnected once stopped/,
    breakIn: (h) => {
      // stop() flushes the posts, then neither disconnects nor says so (the adapter itself is left running).
      const pending = new Set<Promise<unknown>>();
      const postMessage = (c: ConversationRef, m: OutboundMessage) => {
        const posted = h.adapter.postMessage(c, m);
        pending.add(posted);
        return posted;
      };
      const stop = async () => void (await Promise.allSettled([...pending]));
      return plainly(h, withMembers(h.adapter, { postMessage, stop }));
    },
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
