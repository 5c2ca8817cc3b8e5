/**
 * Tells who asked that a task has just started in this process. A note armed for a task that may wait ("busy in
 * other conversations") is dropped the moment its task starts here, instead of reading the task back when its
 * time comes: under load nearly every queued request starts within the note's delay, and each read was a
 * statement a mention for nothing. A task started by another process is not heard here; the note's own read
 * covers that.
 */
export class TaskStarts {
  private readonly listeners = new Set<(taskId: number) => void>();

  /** Calls `listener` with each task started here from now on; returns what stops it. */
  listen(listener: (taskId: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  started(taskId: number): void {
    for (const listener of this.listeners) listener(taskId);
  }
}
