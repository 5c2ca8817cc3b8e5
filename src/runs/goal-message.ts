import type { TaskRow } from '../db/schema.js';

/** The user message that opens a task's run in the transcript. */
export function goalMessage(task: Pick<TaskRow, 'id' | 'title' | 'description' | 'createdBy' | 'scheduleId'>): string {
  switch (task.createdBy) {
    case 'user':
      return task.description;
    case 'schedule':
      return `[Scheduled prompt${task.scheduleId !== null ? ` #${task.scheduleId}` : ''}] ${task.description}`;
    case 'agent':
      return task.description === task.title
        ? `[To-do #${task.id}] ${task.title}`
        : `[To-do #${task.id}] ${task.title}\n\n${task.description}`;
  }
}

/** A short task title from free text: first line, at most 80 characters, cut at a word. */
export function titleFrom(text: string): string {
  const line = (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
  if (line === '') return '(empty message)';
  if (line.length <= 80) return line;
  const cut = line.slice(0, 80);
  const space = cut.lastIndexOf(' ');
  return `${space > 40 ? cut.slice(0, space) : cut}…`;
}
