import { expect } from 'vitest';
import { scheduleActionId } from '../../src/chat/action-id.js';
import {
  elicitationActionId,
  type ElicitationEvent,
  type ElicitationForm,
  type ElicitationReply,
} from '../../src/chat/elicitation-form.js';
import { disconnectActionId } from '../../src/chat/home-connections.js';
import { waitFor } from '../fakes/wait-for.js';
import { freshThread, type ContractCheck, type ContractOptions } from './chat-adapter-harness.js';

/** The form the core answers Answer with in these checks: one text field. */
const tableForm = (id: string): ElicitationForm => ({
  id,
  server: 'diner',
  message: 'Which table should I book?',
  fields: [
    {
      kind: 'text',
      name: 'table',
      label: 'Table',
      description: null,
      required: true,
      format: null,
      minLength: null,
      maxLength: null,
      initial: null,
    },
  ],
});

/** How the core answers a person acting on these checks' questions. */
function dinerReplies(event: ElicitationEvent): ElicitationReply {
  if (event.kind === 'open') return { kind: 'form', form: tableForm(event.id) };
  if (event.kind === 'submit') return { kind: 'answered', text: 'Sent your answer to diner 4474.' };
  return { kind: 'answered', text: `Told diner you declined 4475.` };
}

/**
 * The platform surfaces beyond the conversation: the App Home (opening it, its Disconnect buttons), the
 * schedule form, MCP servers' questions (Answer's form, Decline), and buttons under a command's reply (a
 * schedule's Pause). Each goes through the platform's fake to the RecordingSink / RecordingSurfaces.
 */
export function surfaceChecks(options: ContractOptions): ContractCheck[] {
  const checks: ContractCheck[] = [];
  const add = (id: string, title: string, run: ContractCheck['run']) => checks.push({ id, title, run });

  if (options.surfaces?.home) {
    add('home', 'surfaces: asks the core for the App Home of the person who opens it, and shows it', async (h) => {
      const before = h.surfaces!.homes.length;
      await h.openHome!();
      expect(h.surfaces!.homes.slice(before), 'the Home of the person who opened it').toEqual([
        expect.objectContaining({ platform: h.adapter.platform, workspace: h.channel.workspace, userId: h.person }),
      ]);
    });
  }

  if (options.surfaces?.disconnect) {
    add(
      'disconnect',
      "surfaces: a Disconnect on the App Home's Connections reaches the core for that person and server, and the Home says what it did",
      async (h) => {
        const surfaces = h.surfaces!;
        const plain = surfaces.homeModel;
        surfaces.homeModel = {
          ...plain,
          connections: {
            connected: [
              {
                server: 'linear',
                text: 'Linear as alice 4490',
                disconnect: { actionId: disconnectActionId('linear'), label: 'Disconnect', style: 'danger' },
              },
            ],
            open: [],
          },
        };
        try {
          await h.openHome!();
          expect(await h.homeShown!(), 'the Home shows the connection').toContain('Linear as alice 4490');
          const before = surfaces.disconnects.length;
          await h.clickOnHome!(disconnectActionId('linear'));
          expect(
            surfaces.disconnects.slice(before),
            'the Disconnect of that person and server reached the core',
          ).toEqual([
            { platform: h.adapter.platform, workspace: h.channel.workspace, userId: h.person, server: 'linear' },
          ]);
          expect(await h.homeShown!(), 'the Home says what it did').toContain('Disconnected linear.');
        } finally {
          surfaces.homeModel = plain;
        }
      },
    );
  }

  if (options.surfaces?.forms) {
    add(
      'forms',
      'surfaces: opens the schedule form a command asks for and hands the submission to the core',
      async (h) => {
        h.sink.commandReply = {
          text: '',
          form: { scheduleId: null, values: { channel: h.channel.channel, prompt: '', when: '', timezone: 'UTC' } },
        };
        const shown = await h.submitScheduleForm!('post the digest 9902', '0 9 * * 1');
        expect(h.sink.commands.at(-1)).toMatchObject({ name: 'schedules', args: 'add' });
        expect(h.surfaces!.submissions.at(-1), 'the form as submitted').toMatchObject({
          platform: h.adapter.platform,
          workspace: h.channel.workspace,
          userId: h.person,
          scheduleId: null,
          values: { channel: h.channel.channel, prompt: 'post the digest 9902', when: '0 9 * * 1' },
        });
        expect(shown).toContain('Saved the schedule 9901.');
      },
    );
  }

  if (options.surfaces?.elicitation) {
    add(
      'elicitation',
      "surfaces: an MCP server's question — Answer opens its form and hands what was typed to the core; Decline answers at once, privately",
      async (h, t) => {
        const surfaces = h.surfaces!;
        surfaces.elicitationReplies = dinerReplies;
        try {
          const thread = await freshThread(h, 'contract elicitation');
          const ask = (id: string) => [
            { actionId: elicitationActionId(id, 'answer'), label: 'Answer' },
            { actionId: elicitationActionId(id, 'decline'), label: 'Decline' },
          ];
          const first = ask('q4471');
          const question = await h.adapter.postMessage(thread, {
            text: 'diner asks: which table? 4470',
            mentionUserId: h.person,
            buttons: first,
          });
          const before = surfaces.elicitations.length;
          await h.answerElicitation!(thread, question.id, first, ['by the window 4472']);
          const submitted = await waitFor(
            () => surfaces.elicitations.slice(before).find((e) => e.kind === 'submit'),
            t.wait,
            'the submitted form',
          );
          const actor = { id: 'q4471', platform: h.adapter.platform, userId: h.person };
          expect(surfaces.elicitations[before], 'Answer asked the core for the form').toEqual({
            kind: 'open',
            ...actor,
          });
          expect(submitted, 'the form came back with what was typed').toEqual({
            kind: 'submit',
            ...actor,
            values: { table: 'by the window 4472' },
          });

          const second = ask('q4473');
          const again = await h.adapter.postMessage(thread, {
            text: 'diner asks again 4473',
            mentionUserId: h.person,
            buttons: second,
          });
          const declined = surfaces.elicitations.length;
          const shown = await h.actOnElicitation!(thread, again.id, second, 1);
          expect(surfaces.elicitations.slice(declined), 'Decline reached the core').toEqual([
            { kind: 'decline', id: 'q4473', platform: h.adapter.platform, userId: h.person },
          ]);
          expect(shown, "the core's answer is shown to the person").toContain('Told diner you declined 4475.');
        } finally {
          surfaces.elicitationReplies = null;
        }
      },
    );
  }

  if (options.commandReplyButtons) {
    add(
      'schedule-click',
      "surfaces: a schedule's button under a command's reply reaches the core as that schedule's op, and its answer is shown to the clicker",
      async (h, t) => {
        const pause = scheduleActionId('pause', 42);
        h.sink.commandReply = {
          text: 'Your schedules 8801',
          buttons: [
            { actionId: pause, label: 'Pause' },
            { actionId: scheduleActionId('delete', 42), label: 'Delete', style: 'danger' },
          ],
        };
        h.sink.clickReply = { text: 'Paused the schedule 8802.' };
        try {
          const before = h.sink.actions.length;
          const shown = await h.clickInCommandReply!('schedules', 'list', pause);
          await waitFor(() => h.sink.actions.length > before, t.wait, 'the click');
          expect(h.sink.actions.slice(before), 'the click as the op on the schedule it names').toEqual([
            expect.objectContaining({
              kind: 'schedule',
              op: 'pause',
              scheduleId: 42,
              platform: h.adapter.platform,
              workspace: h.channel.workspace,
              userId: h.person,
              channel: h.channel,
            }),
          ]);
          expect(shown, "the core's answer is shown to the clicker").toContain('Paused the schedule 8802.');
        } finally {
          h.sink.commandReply = { text: 'command reply' };
          h.sink.clickReply = null;
        }
      },
    );
  }

  return checks;
}
