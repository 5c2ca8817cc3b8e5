/** Escape sequences a colour terminal's copy of the console's output carries. */
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
/** The speaker line of a message the console prints: its own, or another Errand console's. */
const SPEAKER = /^errand(?: \((?:edited|only you see this)\))?:$/;
/** The console's own lines outside messages: the banner, the working and end-of-run lines, its error notes. */
const OWN_LINES = [
  /^Errand console — /,
  /^… working(?: \(.+\))? — type stop to stop$/,
  /^── .+ ──$/,
  /^\(error: .*\)$/,
  /^Unknown command \/\S+\. Try \/help\.$/,
];

/**
 * Tells the lines of a bot's output apart from what a person types, so a console whose output comes
 * back as its input (two Errand consoles piped into each other, a saved session replayed) never answers
 * itself or another bot: a speaker line and the indented lines under it are a message, and the
 * console's own status lines are recognised as such. Stateful: give it every input line, in order.
 */
export function createEchoFilter(): (line: string) => boolean {
  let inMessage = false;
  return (raw) => {
    const line = raw.replace(ANSI, '');
    if (inMessage && line.startsWith('  ')) return true;
    inMessage = SPEAKER.test(line);
    return inMessage || OWN_LINES.some((own) => own.test(line));
  };
}
