import type { CommandReply, InboundCommand } from '../../chat/inbound.js';
import type { HomeModel, HomeRequest } from '../../chat/schedule-form.js';
import type { SurfaceSink } from '../../chat/surface-sink.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { OpenWorkStore } from '../../conversations/open-work-by-person.js';
import type { StopAuthority } from '../../commands/command-deps.js';
import { buildHomeModel, type HomeViewDeps } from './home-view.js';
import { createScheduleEditor, type ScheduleEditor, type ScheduleEditorDeps } from './schedule-editor.js';
import { handleSchedulesCommand } from './schedules-command.js';

/** The editor's needs, and what the App Home lists beside the schedules. */
export interface ScheduleManagementDeps extends ScheduleEditorDeps {
  /** What the App Home lists beside the schedules: open work and its Stop buttons. */
  home: {
    openWork: OpenWorkStore;
    runs: Pick<RunStore, 'active'>;
    authority: StopAuthority;
    parseConversation: HomeViewDeps['parseConversation'];
    memories?: HomeViewDeps['memories'];
  };
}

/** The people-facing ways to manage schedules, wired once: the form and its buttons, the App Home, and `/schedules`. */
export interface ScheduleManagement {
  readonly editor: ScheduleEditor;
  home(request: HomeRequest): Promise<HomeModel>;
  /** The App Home and the schedule form, as the adapters' SurfaceSink. */
  readonly surfaces: Pick<SurfaceSink, 'onHomeOpened' | 'onScheduleForm'>;
  command(command: InboundCommand): Promise<CommandReply>;
}

/**
 * Builds the schedule form, App Home and `/schedules` over one service and one rights check, so every way a
 * person changes a schedule is judged alike (the agent's tools use the same rights).
 */
export function createScheduleManagement(deps: ScheduleManagementDeps): ScheduleManagement {
  const { service, rights } = deps;
  const editor = createScheduleEditor(deps);
  const home = (request: HomeRequest) => buildHomeModel(request, { ...deps.home, schedules: service, rights });
  return {
    editor,
    home,
    surfaces: { onHomeOpened: home, onScheduleForm: (submission) => editor.onSubmit(submission) },
    command: (cmd) =>
      handleSchedulesCommand(cmd.args, cmd.channel, service, {
        person: { platform: cmd.channel.platform, userId: cmd.userId, ...(cmd.roles ? { roles: cmd.roles } : {}) },
        rights,
        editor,
      }),
  };
}
