import { describe, expect, it } from 'vitest';
import {
  channelKey,
  channelOf,
  conversationKey,
  conversationRefSchema,
  parseConversationKey,
  type ConversationRef,
} from '../../src/chat/conversation-ref.js';

/** One pinned example: a platform location and the exact key its conversation must have. */
export interface KeyCase<L> {
  readonly location: L;
  readonly key: string;
}

/** An adapter's own conversation encoding, with pinned examples of each kind of conversation it has. */
export interface ConversationKeyCodec<L> {
  readonly platform: string;
  /** Platform location → ConversationRef; null when any id in it is malformed. */
  encode(location: L): ConversationRef | null;
  /** ConversationRef → platform location; null when it is not a valid ref of this platform. */
  decode(ref: ConversationRef): L | null;
  /** A direct message with the bot. */
  readonly dm: KeyCase<L>;
  /** A thread in a channel. */
  readonly thread: KeyCase<L>;
  /** The top level of the same channel as `thread`. */
  readonly channel: KeyCase<L>;
  /** Locations the encoder must refuse (wrong id shapes, parts that would break the key). */
  readonly malformed: readonly L[];
}

/**
 * What every adapter's conversation keys must satisfy: each kind of conversation encodes to its pinned
 * key, the key parses back to the same ref and the ref decodes back to the same place (so a restart, a
 * catch-up or a button click finds the conversation again); a thread belongs to its channel; malformed ids
 * and other platforms' refs are refused rather than guessed at.
 */
export function conversationKeyContract<L>(name: string, codec: ConversationKeyCodec<L>): void {
  describe(`${name} conversation keys`, () => {
    const kinds = { dm: codec.dm, thread: codec.thread, channel: codec.channel };

    for (const [kind, example] of Object.entries(kinds)) {
      it(`a ${kind} encodes to its pinned key and back, ref and place alike`, () => {
        const ref = codec.encode(example.location);
        expect(ref).not.toBeNull();
        expect(conversationRefSchema.safeParse(ref).success).toBe(true);
        expect(ref!.platform).toBe(codec.platform);
        expect(conversationKey(ref!)).toBe(example.key);
        expect(parseConversationKey(example.key)).toEqual(ref);
        expect(codec.decode(ref!)).toEqual(example.location);
      });
    }

    it('gives three kinds three different keys; a thread and the top level of its channel share the channel', () => {
      expect(new Set([codec.dm.key, codec.thread.key, codec.channel.key]).size).toBe(3);
      const thread = codec.encode(codec.thread.location)!;
      const channel = codec.encode(codec.channel.location)!;
      expect(thread.thread).not.toBeNull();
      expect(channel.thread).toBeNull();
      expect(channelKey(channelOf(thread))).toBe(channelKey(channelOf(channel)));
    });

    it('refuses malformed places', () => {
      expect(codec.malformed.length).toBeGreaterThan(0);
      for (const location of codec.malformed) expect(codec.encode(location), JSON.stringify(location)).toBeNull();
    });

    it("refuses other platforms' refs and keys that are not four parts", () => {
      for (const example of Object.values(kinds)) {
        const ref = codec.encode(example.location)!;
        expect(codec.decode({ ...ref, platform: `${codec.platform}x` })).toBeNull();
        expect(parseConversationKey(`${example.key}:extra`)).toBeNull();
        expect(parseConversationKey(example.key.split(':').slice(0, 3).join(':'))).toBeNull();
      }
    });
  });
}
