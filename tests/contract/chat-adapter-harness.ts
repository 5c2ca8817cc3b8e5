import type { AdapterCapabilities } from '../../src/chat/adapter-capabilities.js';
import type { ChatAdapter } from '../../src/chat/chat-adapter.js';
import type { ChannelRef, ConversationRef } from '../../src/chat/conversation-ref.js';
import type { CommandName, InboundMessage } from '../../src/chat/inbound.js';
import type { OutboundButton } from '../../src/chat/outbound-button.js';
import type { RunStepStatus } from '../../src/chat/run-step.js';
import { waitFor } from '../fakes/wait-for.js';
import type { RecordingSink, RecordingSurfaces } from './recording-sinks.js';

/** The capabilities an adapter may declare; its test names the ones it declares, and the suite drives each. */
export type CapabilityName = keyof AdapterCapabilities;

/** A file the bot posted, as people get it from the platform. */
export interface StoredFile {
  readonly name: string;
  readonly bytes: Uint8Array;
  /** The type the platform shows it as, where it has one. */
  readonly mimeType?: string;
  /** The platform message that carries it (files posted together share one). */
  readonly message: string;
}

/** One step of a run as the platform shows it: its title and its state. */
export interface ShownStep {
  readonly title: string;
  readonly status: RunStepStatus;
}

/** A message shown to one person alone, with the labels of its buttons (or the choices the platform offers instead). */
export interface PrivateMessage {
  readonly text: string;
  readonly buttons: readonly string[];
}

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
  /**
   * Someone else in the workspace, who must not see what is shown to `person` alone; absent where the platform
   * has one person (the console, whose terminal is read by whoever sits at it).
   */
  readonly otherPerson?: string;
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
  /**
   * Turns the adapter's echo filter off, so that bots' posts reach the core as a person's would, and returns what
   * turns it back on: only where the harness can reach the filter (`ContractOptions.echoFilterReachable`).
   */
  hearBots?(): () => void;
  /** The person runs `/<name> <args>` in `channel`; resolves with the reply the person is shown. */
  runCommand(name: CommandName, args: string): Promise<string>;
  /** The person clicks `buttons[index]` on the bot's message `messageId` in `conversation`. */
  click(
    conversation: ConversationRef,
    messageId: string,
    buttons: readonly OutboundButton[],
    index: number,
  ): Promise<void>;
  /**
   * The bot's texts the platform holds for a conversation, oldest first (what people see), and nothing of any
   * other conversation.
   */
  storedTexts(conversation: ConversationRef): Promise<string[]>;
  /**
   * Where the platform cannot edit a message in place (a terminal prints the new text again, marked as an
   * edit): the texts it shows as edits in the conversation, oldest first. Absent: edits replace the message.
   */
  editsShown?(conversation: ConversationRef): Promise<string[]>;
  /**
   * Notices shown to `userId` in a conversation: seen by them alone where the adapter has `privateNotices`, else
   * the posts there that notify them (Discord: the user its `allowed_mentions` pinged). Nothing shown to others.
   */
  noticesTo(userId: string, conversation: ConversationRef): Promise<string[]>;
  /** What was shown to `userId` alone with its buttons (`privateAnswers`): an ephemeral message, a DM, a private console line. */
  privatelyShown?(userId: string, conversation: ConversationRef): Promise<PrivateMessage[]>;
  /** Whether the platform shows the bot at work in a conversation right now (a notice with Stop, a working line). */
  workingShown(conversation: ConversationRef): Promise<boolean>;
  /**
   * The run's steps the platform shows in a conversation now, each as last shown (the working note's list,
   * the console's step lines, Slack's task cards in the streamed answer).
   */
  stepsShown(conversation: ConversationRef): Promise<ShownStep[]>;
  /**
   * A channel where no thread can be opened (a DM), with a message of the person in it (checked where the
   * adapter has `threadFallback`).
   */
  unthreadable?(): Promise<{ channel: ChannelRef; messageId: string }>;
  /** The person's one-to-one conversation with the bot, which nobody else reads (checked with `privateAnswers`). */
  readonly directConversation?: ConversationRef;
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
  /** The App Home as the person sees it now (its blocks, as text). */
  homeShown?(): Promise<string>;
  /** The person clicks the button `actionId` on their App Home; resolves once the platform showed the Home again. */
  clickOnHome?(actionId: string): Promise<void>;
  /**
   * The person runs `/schedules add`, whose reply (`sink.commandReply`) asks for the schedule form; they fill
   * in `prompt` and `when` and submit it. Resolves with what the person is shown afterwards.
   */
  submitScheduleForm?(prompt: string, when: string): Promise<string>;
  /**
   * The person runs `/<name> <args>`, whose reply carries buttons (`sink.commandReply`), and clicks the one
   * with `actionId`; resolves with what the person is shown after the click.
   */
  clickInCommandReply?(name: CommandName, args: string, actionId: string): Promise<string>;
  /**
   * The person answers an MCP server's question posted as `messageId` (its buttons `buttons`): clicks
   * `buttons[0]` (Answer), types `values` (in the form's field order) into the form that opens, and submits it.
   * Resolves once the submission was handed over.
   */
  answerElicitation?(
    conversation: ConversationRef,
    messageId: string,
    buttons: readonly OutboundButton[],
    values: readonly string[],
  ): Promise<void>;
  /** The person clicks `buttons[index]` of such a question (Decline, Done); resolves with what they are shown alone. */
  actOnElicitation?(
    conversation: ConversationRef,
    messageId: string,
    buttons: readonly OutboundButton[],
    index: number,
  ): Promise<string>;
  /** The files the bot posted in a conversation as people get them (checked where the adapter declares `files`). */
  storedFiles?(conversation: ConversationRef): Promise<StoredFile[]>;
  /** The files the bot sent a person in their direct conversation with it (checked where the adapter declares `privateFiles`). */
  directFilesOf?(userId: string): Promise<StoredFile[]>;
  /** Every state the platform showed for the thread's session, in the core's words, oldest first (where the adapter declares `session`). */
  sessionStates?(conversation: ConversationRef): Promise<string[]>;
  /** The person presses the platform's own Stop on the thread's session; resolves once delivered. */
  stopSession?(conversation: ConversationRef): Promise<void>;
  /**
   * Called before each check (and each run of one against a broken adapter). A platform that shows every
   * conversation on one screen (the console) reads only what was shown since, as a screen cleared between
   * tests would: the same check run twice would otherwise find the first run's lines.
   */
  beginCheck?(): void;
  teardown(): Promise<void>;
}

export interface ContractOptions {
  /** Exactly the capabilities the adapter declares: the suite fails when they differ, and drives each. */
  readonly capabilities: readonly CapabilityName[];
  /** Its history also reads what was said while Errand was down (`readAfter`): the suite fails when that differs. */
  readonly readAfter?: boolean;
  /**
   * Every conversation shows on one screen, read by one person (the console): the harness has `onlyConversation` and no
   * `otherPerson`, and what tells conversations or people apart is not checked (nothing on the screen could show it).
   */
  readonly singleScreen?: boolean;
  /** Buttons other than a question's options can be clicked (every platform but the console, which has only numbered answers). */
  readonly stopButtons: boolean;
  /** The platform delivers an event again when it thinks it was lost (Slack, Discord): the harness has `redeliverLast`. */
  readonly redelivers: boolean;
  /** Where the run's steps show: with the working status (`setWorking`), or in the streamed answer (`AnswerStream.showSteps`, Slack). */
  readonly steps: 'working' | 'stream';
  /** Some channels take no thread (a DM): `openThread` returns the channel's conversation there (the harness has `unthreadable`). */
  readonly threadFallback: boolean;
  /** The platform surfaces beyond conversations the adapter serves through its SurfaceSink. */
  readonly surfaces?: {
    readonly home: boolean;
    readonly forms: boolean;
    /** MCP servers' questions: Answer opens a form, Decline answers at once. */
    readonly elicitation: boolean;
    /** Disconnect buttons of the Home's Connections section. */
    readonly disconnect: boolean;
  };
  /** The harness has `hearBots`: the bot-echo check is shown failing against the adapter with its filter off. */
  readonly echoFilterReachable?: boolean;
  /** Buttons under a command's reply (a schedule's Pause, Edit…) hand their click to the core. */
  readonly commandReplyButtons: boolean;
}

/** How long a check waits: `wait` for what a working adapter does, `last` for what a broken one is expected never to do. */
export interface Patience {
  readonly wait: number;
  readonly last: number;
}

/** The patience of the contract's own run. */
export const FULL_PATIENCE: Patience = { wait: 5000, last: 5000 };

/**
 * One test of the contract, callable apart from vitest's `it` so the suite can run it again against a broken
 * adapter and see it fail.
 */
export interface ContractCheck {
  /** What broken adapters refer to. */
  readonly id: string;
  readonly title: string;
  run(h: ChatAdapterHarness, t: Patience): Promise<void>;
}

/** A person mentions the bot; resolves with what the core received. */
export async function mention(h: ChatAdapterHarness, text: string): Promise<InboundMessage> {
  const before = h.sink.messages.length;
  await h.mentionBot(text);
  return (await waitFor(
    () => h.sink.messages.slice(before).find((m) => m.text.includes(text)),
    5000,
    `the mention "${text}"`,
  ))!;
}

/** A new thread on a fresh mention, which the core then knows (as it would once it answered there). */
export async function freshThread(h: ChatAdapterHarness, text: string): Promise<ConversationRef> {
  const root = await mention(h, text);
  const thread = await h.adapter.openThread(h.channel, root.messageId, text);
  h.sink.known.push(thread);
  return thread;
}

/** Texts of `texts` that contain `marker`. */
export const having = (texts: readonly string[], marker: string): string[] => texts.filter((t) => t.includes(marker));
