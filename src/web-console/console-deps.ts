import type { Person } from '../access/access-policy.js';
import type { AdminSignIn, ConsoleUser } from '../admin/admin-sign-in.js';
import type { ClusterView } from '../admin/cluster-view.js';
import type { ConsoleQueries } from '../admin/console-queries.js';
import type { SandboxStatus } from '../sandbox/sandbox-status.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditStore } from '../audit/audit-store.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { ScheduleFormResult, ScheduleFormSubmission } from '../chat/schedule-form.js';
import type { CommandReply, InboundAction } from '../chat/inbound.js';
import type { ScheduleRow } from '../db/schema.js';
import type { Logger } from '../logger.js';
import type { MemoryStore } from '../memory/memory-store.js';
import type { HealthReport } from '../metrics/health-check.js';
import type { TaskService } from '../tasks/task-service.js';
import type { FeedTimers, LiveFeeds } from './live-feed.js';

/** What stopping from the console did (the /stop path's own result). */
export interface ConsoleStop {
  readonly stoppedRun: boolean;
  readonly stoppedTaskId: number | null;
}

/**
 * Everything the console reads and changes, each through the path the commands use: stops through the run
 * coordinator's stop (as `/stop`), schedule changes through the schedule editor (as the buttons and the form),
 * disconnects through `/connections disconnect`'s, forgetting through the memory store.
 */
export interface WebConsoleDeps {
  readonly signIn: AdminSignIn;
  readonly queries: ConsoleQueries;
  readonly auditStore: AuditStore;
  readonly audit: AuditLog;
  readonly tasks: Pick<TaskService, 'list'>;
  readonly memory: Pick<MemoryStore, 'memory' | 'forget'>;
  /** Stops the conversation's active run and says so in its thread (`/stop`'s path; works whichever process runs it). */
  stopRun(conversationId: string, by: Person): Promise<ConsoleStop>;
  readonly schedules: {
    find(id: number): Promise<ScheduleRow | null>;
    onAction(action: Extract<InboundAction, { kind: 'schedule' }>, person: Person): Promise<CommandReply>;
    onSubmit(form: ScheduleFormSubmission): Promise<ScheduleFormResult>;
  };
  /** Forgets a person's tokens for a server (null: no server uses per-person sign-in). */
  readonly connections: { disconnect(principal: string, server: string): Promise<boolean> } | null;
  readonly overview: {
    health(): Promise<HealthReport>;
    readonly cluster: ClusterView;
    readonly sandbox: SandboxStatus;
  };
  refOf(conversationId: string): ConversationRef | null;
  now(): number;
  readonly live: LiveFeeds;
  /** The timers of live streams' keep-alives (the app's clock). */
  readonly timers: FeedTimers;
  /** PUBLIC_URL is https: cookies are Secure and `__Host-` prefixed. */
  readonly secure: boolean;
  readonly logger: Logger;
}

/** One signed-in request as the pages see it. */
export interface ConsoleRequest {
  readonly path: string;
  readonly query: URLSearchParams;
  readonly user: ConsoleUser;
  /** The CSRF token every form of this session carries. */
  readonly csrf: string;
}
