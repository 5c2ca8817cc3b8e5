/**
 * What the thread reads when work stops at someone's word (a `stop` message, `/stop`, the Stop button): one
 * wording wherever the stop came from.
 */
export function stopNotice(userId: string, taskId: number | null, cancelled: number): string {
  const parts = [
    taskId !== null ? `⏹️ Stopped #${taskId} (requested by <@${userId}>).` : `⏹️ Stopped by <@${userId}>.`,
  ];
  if (cancelled > 0) parts.push(`Cancelled ${cancelled} pending task${cancelled === 1 ? '' : 's'}.`);
  return parts.join(' ');
}
