/** What a person decided about a tool call waiting for approval. */
export type ApprovalDecision = 'once' | 'always' | 'deny';

/** The buttons of an approval post, in order; the label is what a click sends back as the answer. */
export const APPROVAL_OPTIONS: readonly {
  readonly decision: ApprovalDecision;
  readonly label: string;
  readonly style?: 'primary' | 'danger';
}[] = [
  { decision: 'once', label: 'Allow once', style: 'primary' },
  { decision: 'always', label: 'Always allow here' },
  { decision: 'deny', label: 'Deny', style: 'danger' },
];

const TYPED: Record<string, ApprovalDecision> = {
  allow: 'once',
  'allow once': 'once',
  always: 'always',
  'always allow': 'always',
  'always allow here': 'always',
  deny: 'deny',
};

/**
 * Reads a typed reply or a clicked label as a decision; null for anything else, so an ordinary message
 * in the thread is never mistaken for a yes.
 */
export function parseApprovalDecision(text: string): ApprovalDecision | null {
  const words = text
    .trim()
    .toLowerCase()
    .replace(/^[`*_"'“”]+|[`*_"'“”.!]+$/g, '')
    .replace(/\s+/g, ' ');
  return TYPED[words] ?? null;
}

/** The result the model gets when a call was not run. Fixed wording: prompts and tests rely on it. */
export const DENIED_RESULT = { ok: false, error: 'The user denied this tool call.' } as const;
