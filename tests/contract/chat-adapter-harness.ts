import type { AdapterCapabilities } from '../../src/chat/adapter-capabilities.js';
import type { ChatAdapter } from '../../src/chat/chat-adapter.js';
import type { ChannelRef, ConversationRef } from '../../src/chat/conversation-ref.js';
import type { CommandName, InboundMessage } from '../../src/chat/inbound.js';
import type { OutboundButton } from '../../src/chat/outbound-button.js';
import { waitFor } from '../fakes/wait-for.js';
import type { RecordingSink, RecordingSurfaces } from './recording-sinks.js';

/** The capabilities an adapter may declare; its test names the ones it declares, and the suite drives each. */
export type CapabilityName = keyof AdapterCapabilities;

/** What a platform's test provides so the contract can drive its adapter through the platform (or its fake). */
export interface ChatAdapterHarness {
  /** Started adapter wired to `sink`. */
  readonly adapter: ChatAdapter;
  readonly sink: RecordingSink;
  /** A channel where the bot can post and open threads. */
  readonly channel: ChannelRef;
  /** Where everything people say lands on a platform with a single conversation (the console's session); absent: where it was said. */
  readonly onlyConversation?: ConversationRef;
  /** The person the drivers act as, by the user id the adapter reports. */
  readonly person: string;
  /** The person's timezone as the platform knows it (checked where the adapter declares `timezone`). */
  readonly personTimezone?: string;
  /** A person mentions the bot at the top level of `channel`; resolves once delivered (twins and all). */
  mentionBot(text: string): Promise<void>;
  /** The person writes in a conversation the bot takes part in, without a mention; resolves once delivered. */
  personSays(conversation: ConversationRef, text: string): Promise<void>;
  /** The platform delivers the person's last message again, as it does when it thinks an event was lost; null where it never does (a terminal). */
  readonly redeliverLast: (() => Promise<void>) | null;
  /**
   * The bot itself posts `text` in `conversation` (through the adapter), then another bot does; resolves once
   * the platform has delivered both posts back to the adapter, with how many such deliveries it made.
   */
  postAsSelfAndOtherBot(conversation: ConversationRef, text: string): Promise<number>;
  /** The person runs `/<name> <args>` in `channel`; resolves with the reply the person is shown. */
  runCommand(name: CommandName, args: string): Promise<string>;
  /** The person clicks `buttons[index]` on the bot's message `messageId` in `conversation`. */
  click(conversation: ConversationRef, messageId: string, buttons: readonly OutboundButton[], index: number): Promise<void>;
  /** The bot's texts the platform holds for a conversation, oldest first (what people see). */
  storedTexts(conversation: ConversationRef): Promise<string[]>;
  /** Notices shown only to `userId` in a conversation (or what the platform shows instead). */
  noticesTo(userId: string, conversation: ConversationRef): Promise<string[]>;
  /** Whether the platform shows the bot at work in a conversation right now (a notice with Stop, a working line). */
  workingShown(conversation: ConversationRef): Promise<boolean>;
  /** What `userId` received by direct message from the bot, oldest first (checked where the adapter declares `directMessage`). */
  directMessagesOf?(userId: string): Promise<string[]>;
  /** A person whose direct messages are closed to the bot (the platform refuses a DM to them). */
  readonly closedDmsPerson?: string;
  /** Gives the person exactly these roles on the platform now (checked where the adapter declares `memberRoles`). */
  setPersonRoles?(roles: readonly string[]): Promise<readonly string[]>;
  /** Someone who is not a member of the workspace of `channel` (checked where the adapter declares `memberRoles`). */
  readonly nonMember?: string;
  /** The surfaces sink the adapter was started with, where the platform has an App Home or forms. */
  readonly surfaces?: RecordingSurfaces;
  /** The person opens the bot's App Home; resolves once the platform shows it. */
  openHome?(): Promise<void>;
  /**
   * The person runs `/schedules add`, whose reply (`sink.commandReply`) asks for the schedule form; they fill
   * in `prompt` and `when` and submit it. Resolves with what the person is shown afterwards.
   */
  submitScheduleForm?(prompt: string, when: string): Promise<string>;
  /**
   * The files the bot posted in a conversation as people get them (downloaded from the platform where it keeps
   * them), oldest first, with the type the platform shows them as where it has one (checked where the adapter
   * declares `files`).
   */
  storedFiles?(conversation: ConversationRef): Promise<{ name: string; bytes: Uint8Array; mimeType?: string }[]>;
  /** The files the bot sent a person in their direct conversation with it (checked where the adapter declares `privateFiles`). */
  directFilesOf?(userId: string): Promise<{ name: string; bytes: Uint8Array }[]>;
  /** Every state the platform showed for the thread's session, in the core's words, oldest first (where the adapter declares `session`). */
  sessionStates?(conversation: ConversationRef): Promise<string[]>;
  /** The person presses the platform's own Stop on the thread's session; resolves once delivered. */
  stopSession?(conversation: ConversationRef): Promise<void>;
  teardown(): Promise<void>;
}

export interface ContractOptions {
  /** Exactly the capabilities the adapter declares: the suite fails when they differ, and drives each. */
  readonly capabilities: readonly CapabilityName[];
  /** Its history also reads what was said while Errand was down (`readAfter`): the suite fails when that differs. */
  readonly readAfter?: boolean;
  /** Buttons other than a question's options can be clicked (every platform but the console, which has only numbered answers). */
  readonly stopButtons: boolean;
  /** The platform surfaces beyond conversations the adapter serves through its SurfaceSink. */
  readonly surfaces?: { readonly home: boolean; readonly forms: boolean };
}

/** A person mentions the bot; resolves with what the core received. */
export async function mention(h: ChatAdapterHarness, text: string): Promise<InboundMessage> {
  const before = h.sink.messages.length;
  await h.mentionBot(text);
  return (await waitFor(() => h.sink.messages.slice(before).find((m) => m.text.includes(text)), 5000, `the mention "${text}"`))!;
}

/** A new thread on a fresh mention, which the core then knows (as it would once it answered there). */
export async function freshThread(h: ChatAdapterHarness, text: string): Promise<ConversationRef> {
  const root = await mention(h, text);
  const thread = await h.adapter.openThread(h.channel, root.messageId, text);
  h.sink.known.push(thread);
  return thread;
}
