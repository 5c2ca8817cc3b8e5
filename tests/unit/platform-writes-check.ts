import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * The resolved check behind "one route out" (DESIGN.md, Layout): the modules that decide what Errand
 * does never write on a platform themselves. Everything they post, edit or delete goes through the
 * outbox; status and live previews through the presence port (src/chat/presence.ts); a new
 * conversation's thread through the thread opener. Names are resolved by the TypeScript type checker,
 * not matched by text: `Pick<ChatAdapter, 'editMessage'>`, a re-export, a destructured member, an
 * element access or an interface of their own that an adapter would fit are all seen.
 */

/** The folders held to it. */
export const DECIDING_MODULES = ['src/runtime/', 'src/commands/', 'src/agent/', 'src/tasks/', 'src/schedules/'];

/** The adapter port, which these modules never name beyond the values they pass on. */
const ADAPTER_PORT = 'src/chat/chat-adapter.ts';

/** What the adapter port declares that they may name: values handed through, not the adapter or a part of it. */
const ADAPTER_VALUES = new Set([
  'WorkingStatus',
  'WorkingActivity',
  'AnswerStream',
  'AnswerStreamHooks',
  'PreviewMessageSlot',
  'OutboundMessage',
  'PostedMessage',
]);

/** The members that write on a platform (Discord's `findUnrecordedPreview` may post again). */
const PLATFORM_WRITES = new Set([
  'postMessage',
  'editMessage',
  'deleteMessage',
  'postEphemeral',
  'openThread',
  'setWorking',
  'openStream',
  'findUnrecordedPreview',
]);

/** The narrow ports where such a member may be declared and reached from these modules. */
const NARROW_PORTS = new Set(['src/chat/presence.ts', 'src/chat/thread-opener.ts']);

/** A program over `files` (repo-relative) with the project's compiler options; `extra` adds files that exist only in memory. */
export function programOf(
  root: string,
  files: readonly string[],
  extra: ReadonlyMap<string, string> = new Map(),
): ts.Program {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, root);
  const options = { ...config.options, noEmit: true };
  const host = ts.createCompilerHost(options);
  const virtual = new Map([...extra].map(([f, text]) => [join(root, f), text]));
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => virtual.has(f) || fileExists.call(host, f);
  host.readFile = (f) => virtual.get(f) ?? readFile.call(host, f);
  host.getSourceFile = (f, language, onError, create) => {
    const text = virtual.get(f);
    return text !== undefined
      ? ts.createSourceFile(f, text, language, true)
      : getSourceFile.call(host, f, language, onError, create);
  };
  return ts.createProgram(
    [...files, ...extra.keys()].map((f) => join(root, f)),
    options,
    host,
  );
}

/**
 * Every place in `files` that names the adapter port itself (an import, a type, `Pick<ChatAdapter, …>`)
 * or reaches a platform-writing member that is not one of the narrow ports' (a call, a destructuring,
 * `x['postMessage']`, or a member of that name declared here for an adapter to fill), as `file:line what`.
 */
export function platformWrites(root: string, program: ts.Program, files: readonly string[]): string[] {
  const checker = program.getTypeChecker();
  const found: string[] = [];
  const fileOf = (d: ts.Declaration) => relative(root, d.getSourceFile().fileName);
  const resolved = (node: ts.Node): ts.Symbol | undefined => {
    const symbol = checker.getSymbolAtLocation(node);
    return symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  };
  for (const file of files) {
    const sf = program.getSourceFile(join(root, file));
    if (!sf) throw new Error(`${file} is not in the program`);
    const at = (node: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
    const visit = (node: ts.Node): void => {
      const name = ts.isIdentifier(node)
        ? node.text
        : ts.isStringLiteral(node) && ts.isElementAccessExpression(node.parent)
          ? node.text
          : null;
      // Resolving a member needs the type of what holds it, the costly part: only the writing members are worth it.
      const otherMember =
        name !== null &&
        !PLATFORM_WRITES.has(name) &&
        (ts.isPropertyAccessExpression(node.parent) || ts.isElementAccessExpression(node.parent)) &&
        node !== node.parent.expression;
      if (name !== null && !otherMember) {
        const declarations = resolved(node)?.declarations ?? [];
        const portType = declarations.find((d) => fileOf(d) === ADAPTER_PORT && ts.isSourceFile(d.parent));
        if (portType && !ADAPTER_VALUES.has(name)) found.push(`${at(node)} names ${name} of the adapter port`);
        else if (
          PLATFORM_WRITES.has(name) &&
          (declarations.length === 0 || declarations.some((d) => !NARROW_PORTS.has(fileOf(d))))
        ) {
          const where =
            declarations.length === 0 ? 'an unknown declaration' : [...new Set(declarations.map(fileOf))].join(', ');
          found.push(`${at(node)} reaches ${name} of ${where}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}
