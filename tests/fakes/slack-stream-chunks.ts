/**
 * How Slack reads the `chunks` of `chat.startStream` / `appendStream` / `stopStream`, for the fake.
 * Checked against Slack's method docs: a chunk of an unknown type, a `task_update` without `id`, `title`
 * or a known `status`, a `plan_update` without `title`, or `chunks` that are not a JSON array →
 * `invalid_chunks`; `task_display_mode` other than `timeline`/`plan` → `invalid_arguments`. A task's
 * `title`, `status` and `output` replace what it showed, while `details` add to it (as peers probing
 * live workspaces found): a client that sends the same details twice shows them twice.
 */

/** One task card as the streamed message shows it. */
export interface StreamedTask {
  id: string;
  title: string;
  status: 'pending' | 'in_progress' | 'complete' | 'error';
  details?: string;
  output?: string;
}

/** What one call's chunks add to the message: its markdown text, task card updates and plan title. */
export interface ParsedChunks {
  markdown: string;
  tasks: StreamedTask[];
  planTitle: string | null;
  /** Every chunk as sent, in order. */
  raw: Record<string, unknown>[];
}

const STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** The call's chunks, or the error code Slack answers. Absent `chunks`: nothing. */
export function parseChunks(value: unknown): ParsedChunks | { error: string } {
  const parsed: ParsedChunks = { markdown: '', tasks: [], planTitle: null, raw: [] };
  if (value === undefined) return parsed;
  let list: unknown = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value) as unknown;
    } catch {
      return { error: 'invalid_chunks' };
    }
  }
  if (!Array.isArray(list)) return { error: 'invalid_chunks' };
  for (const item of list as unknown[]) {
    if (typeof item !== 'object' || item === null) return { error: 'invalid_chunks' };
    const c = item as Record<string, unknown>;
    parsed.raw.push(c);
    switch (c.type) {
      case 'markdown_text':
        if (typeof c.text !== 'string') return { error: 'invalid_chunks' };
        parsed.markdown += c.text;
        break;
      case 'task_update': {
        if (!nonEmpty(c.id) || !nonEmpty(c.title) || typeof c.status !== 'string' || !STATUSES.has(c.status))
          return { error: 'invalid_chunks' };
        const task: StreamedTask = { id: c.id, title: c.title, status: c.status as StreamedTask['status'] };
        if (typeof c.details === 'string') task.details = c.details;
        if (typeof c.output === 'string') task.output = c.output;
        parsed.tasks.push(task);
        break;
      }
      case 'plan_update':
        if (!nonEmpty(c.title)) return { error: 'invalid_chunks' };
        parsed.planTitle = c.title;
        break;
      case 'blocks':
        if (!Array.isArray(c.blocks)) return { error: 'invalid_chunks' };
        break;
      default:
        return { error: 'invalid_chunks' };
    }
  }
  return parsed;
}

/** `task_display_mode` as Slack accepts it: absent, `timeline` or `plan`. */
export function validDisplayMode(value: unknown): value is undefined | 'timeline' | 'plan' {
  return value === undefined || value === 'timeline' || value === 'plan';
}
