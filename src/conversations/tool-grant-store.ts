
/** "Always allow here": tools a person approved for every later call in one conversation. */
export interface ToolGrantStore {
  isGranted(conversationId: string, tool: string): Promise<boolean>;
  grant(conversationId: string, tool: string, grantedBy: string | null): Promise<void>;
}
