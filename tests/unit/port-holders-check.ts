import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Who holds which part of the adapter port (src/chat/chat-adapter.ts): the whole adapter only the composition
 * root, its delivery (everything that carries content onto a platform) only the outbox, its presence only the
 * presence port over the adapters. The check is the type checker's: a module outside a part's holders that
 * reaches anything the part's file declares — names the type, calls or destructures a member of it, wherever
 * the value came from — is reported. Which names to resolve is read from the port files themselves.
 */

/** Where the adapters are taken apart. */
const COMPOSITION = ['src/app.ts', 'src/app-contract.ts', 'src/app-lifecycle.ts', 'src/main.ts'];
/** The port's own files, which put the parts together. */
const PORT = ['src/chat/chat-adapter.ts', 'src/chat/adapter-capabilities.ts'];

/** Each part held by some, the file that declares it, and who may hold it (a path ending in `/` is a folder). */
export const PARTS: readonly { readonly file: string; readonly what: string; readonly holders: readonly string[] }[] = [
  { file: 'src/chat/chat-adapter.ts', what: 'the whole adapter', holders: [...COMPOSITION, ...PORT] },
  { file: 'src/chat/delivery.ts', what: 'delivery', holders: ['src/outbox/', ...COMPOSITION, ...PORT] },
  {
    file: 'src/chat/adapter-presence.ts',
    what: "an adapter's presence",
    holders: ['src/chat/presence-over-adapters.ts', ...COMPOSITION, ...PORT],
  },
];

const holds = (holders: readonly string[], file: string) =>
  holders.some((h) => (h.endsWith('/') ? file.startsWith(h) : file === h));

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

/** Every name a port file declares: its types and their members (the only names worth resolving elsewhere). */
function declaredNames(sf: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      (ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isPropertySignature(node) ||
        ts.isMethodSignature(node)) &&
      ts.isIdentifier(node.name)
    )
      names.add(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return names;
}

/**
 * Every place in `files` outside a part's holders that reaches a declaration of that part's file, as
 * `file:line reaches name of what`.
 */
export function portReaches(root: string, program: ts.Program, files: readonly string[]): string[] {
  const checker = program.getTypeChecker();
  const sourceOf = (f: string) => {
    const sf = program.getSourceFile(join(root, f));
    if (!sf) throw new Error(`${f} is not in the program`);
    return sf;
  };
  const names = new Set(PARTS.flatMap((p) => [...declaredNames(sourceOf(p.file))]));
  const partOf = (d: ts.Declaration) => PARTS.find((p) => p.file === relative(root, d.getSourceFile().fileName));
  const symbolOf = (node: ts.Identifier | ts.StringLiteral): ts.Symbol | undefined => {
    const binding = node.parent;
    // `const { postMessage } = adapter`: the member of what is destructured, not the new local.
    if (ts.isBindingElement(binding) && ts.isObjectBindingPattern(binding.parent) && !binding.propertyName)
      return checker.getTypeAtLocation(binding.parent).getProperty(node.text);
    const symbol = checker.getSymbolAtLocation(node);
    return symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  };
  const found: string[] = [];
  for (const file of files) {
    const sf = sourceOf(file);
    const outside = PARTS.filter((p) => p.file !== file && !holds(p.holders, file));
    if (outside.length === 0) continue;
    const visit = (node: ts.Node): void => {
      const named = ts.isIdentifier(node) || (ts.isStringLiteral(node) && ts.isElementAccessExpression(node.parent));
      if (named && names.has(node.text)) {
        const reached = new Set((symbolOf(node)?.declarations ?? []).map(partOf));
        for (const part of outside)
          if (reached.has(part)) {
            const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
            found.push(`${file}:${line} reaches ${node.text} of ${part.what}`);
          }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}
