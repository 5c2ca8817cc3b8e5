/**
 * "Always allow here": tools a person approved for every later call in one conversation, made on their behalf.
 * A grant is the consent of one principal (platform user id; '' for a run acting for nobody): it lets that
 * person's runs call the tool here without asking, never another person's, whose call uses their own account.
 */
export interface ToolGrantStore {
  isGranted(conversationId: string, tool: string, principal: string | null): Promise<boolean>;
  /** Remembers the tool for runs acting for `principal` here; `grantedBy` is who clicked (the principal, or an admin). */
  grant(conversationId: string, tool: string, grantedBy: string | null, principal: string | null): Promise<void>;
}
