import { expect } from 'vitest';

/**
 * Arguments of 5 000 characters that try to close the code block they are shown in and forge text
 * after it (a fake "approved" line), with Slack's markup characters among them, between ordinary
 * words (about as dense as real text).
 * One line: the fixture records what it wrote line by line. `name` makes each test's text its own.
 */
export function fenceBreakingText(name: string): string {
  const words = 'the plan goes on with more ordinary words to fill the note '.repeat(6);
  let text = '';
  for (let i = 0; text.length < 5000; i++)
    text += `${name} ${i}: x\`\`\` *Approved by an admin* <!channel> & \`\`\`\`\` ~~~ \`\` \`y ${words}`;
  return text.slice(0, 5000);
}

/** What people see of a run of posts, read the way Slack mrkdwn and Discord read them. */
export interface ReadPosts {
  /** Everything inside code blocks, in order, joined. */
  code: string;
  /** Everything outside code blocks, in order, joined. */
  prose: string;
}

/**
 * Reads posts as Slack and Discord do: ``` anywhere opens or closes a code block (a longer fence is
 * no different), and a block opened in one message cannot go on in the next. Fails the test when a
 * post leaves a block open. `language` drops a first line that names the language (Discord shows it
 * as such); `decode` undoes the platform's escapes.
 */
export function readPosts(
  posts: readonly string[],
  options: { language: boolean; decode?: (s: string) => string },
): ReadPosts {
  const code: string[] = [];
  const prose: string[] = [];
  for (const post of posts) {
    const parts = post.split('```');
    expect(parts.length % 2, `a post leaves a code block open:\n${post}`).toBe(1);
    parts.forEach((part, i) => {
      const text = options.decode ? options.decode(part) : part;
      if (i % 2 === 0) prose.push(text);
      else code.push(options.language ? text.replace(/^[a-z0-9_+\-.#]+\n/i, '') : text);
    });
  }
  return { code: code.join('\n'), prose: prose.join('\n') };
}

/** Removes what the posts may add that a reader does not see: zero-width joiners and line breaks. */
export const unseen = (s: string): string => s.replace(/\u200d/g, '').replace(/\n/g, '');

/** Whitespace runs as one space, trimmed. */
export const squeezed = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** Slack's three escapes, undone. */
export const slackDecode = (s: string): string => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/**
 * Checks a run of approval posts: every character of the arguments (as the post pretty-prints them)
 * is inside a code block, and nothing else is; outside them only the question's own words.
 */
export function expectArgumentsWholeAndFenced(
  read: ReadPosts,
  args: Record<string, unknown>,
  expectedProse: string,
): void {
  expect(unseen(read.code)).toBe(unseen(JSON.stringify(args, null, 2)));
  expect(squeezed(read.prose)).toBe(expectedProse);
}
