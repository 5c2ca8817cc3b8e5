/** A button the runtime asks for; `actionId` comes from src/chat/action-id.ts. */
export interface OutboundButton {
  readonly actionId: string;
  readonly label: string;
  readonly style?: 'primary' | 'danger';
}
