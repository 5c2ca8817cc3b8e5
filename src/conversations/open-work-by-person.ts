/** A conversation in which someone's requests are pending or under way. */
export interface PersonOpenWork {
  readonly conversationId: string;
  /** The title of the task under way, else of the next pending one. */
  readonly title: string;
  readonly inProgress: boolean;
  readonly pending: number;
}

/**
 * The conversations of one workspace where a person's tasks are pending or in progress, newest
 * first, at most `limit` (the App Home shows a screenful). Reads the open-task partial range only.
 */
export interface OpenWorkStore {
  byPerson(platform: string, workspace: string, userId: string, limit: number): Promise<PersonOpenWork[]>;
}
