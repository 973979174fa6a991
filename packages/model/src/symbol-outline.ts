import type * as TS from 'typescript';

/** The TypeScript compiler's own parser, loaded on first use (it is large, and only outlines need it). */
let compiler: Promise<typeof TS> | undefined;

/** Loads TypeScript's parser; later calls share the first load. */
export function loadParser(): Promise<typeof TS> {
  compiler ??= import('typescript').then((module) => ((module as unknown as { default?: typeof TS }).default ?? module) as typeof TS);
  return compiler;
}

const SCRIPT_KINDS: Record<string, keyof typeof TS.ScriptKind> = {
  ts: 'TS',
  mts: 'TS',
  cts: 'TS',
  tsx: 'TSX',
  js: 'JS',
  mjs: 'JS',
  cjs: 'JS',
  jsx: 'JSX',
};

/** The longest signature an outline shows, in characters. */
const MAX_SIGNATURE = 160;
/** The most members of one class or interface an outline shows. */
const MAX_MEMBERS = 12;

/** True for files whose outline TypeScript's parser can read (JavaScript and TypeScript). */
export function canOutline(path: string): boolean {
  return SCRIPT_KINDS[path.slice(path.lastIndexOf('.') + 1).toLowerCase()] !== undefined;
}

/**
 * The exported symbols of a JavaScript or TypeScript file, one line each with its signature (the declaration
 * up to its body): functions, classes with their public members, interfaces, types, enums, constants, default
 * and re-exports, and CommonJS `module.exports` / `exports.name`. Parsed with TypeScript's own parser.
 */
export function outlineSymbols(ts: typeof TS, path: string, text: string, maxLines = 24): string[] {
  const kind = SCRIPT_KINDS[path.slice(path.lastIndexOf('.') + 1).toLowerCase()];
  if (kind === undefined) return [];
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind[kind]);
  const lines: string[] = [];
  const push = (line: string) => {
    if (lines.length < maxLines) lines.push(line);
  };
  const head = (node: TS.Node, end?: number) => signature(text.slice(node.getStart(source), end ?? node.end));
  for (const statement of source.statements) {
    if (lines.length >= maxLines) break;
    const exported = isExported(ts, statement);
    if (ts.isFunctionDeclaration(statement) && exported) push(head(statement, statement.body?.getStart(source)));
    else if (ts.isClassDeclaration(statement) && exported) {
      push(head(statement, statement.members.pos).replace(/\{$/, '').trim());
      for (const member of statement.members.slice(0, MAX_MEMBERS)) {
        if (isPrivate(ts, member)) continue;
        const body = (member as { body?: TS.Node }).body;
        const line = head(member, body?.getStart(source)).replace(/;$/, '');
        if (line !== '') push(`  ${line}`);
      }
    } else if (
      (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement)) &&
      exported
    )
      push(signature(head(statement)).slice(0, MAX_SIGNATURE));
    else if (ts.isVariableStatement(statement) && exported)
      for (const declaration of statement.declarationList.declarations) push(variableLine(ts, source, text, statement, declaration));
    else if (ts.isExportDeclaration(statement) || ts.isExportAssignment(statement)) push(head(statement));
    else if (ts.isExpressionStatement(statement)) {
      const line = commonJsExport(ts, source, statement);
      if (line !== undefined) push(line);
    }
  }
  return lines;
}

function variableLine(
  ts: typeof TS,
  source: TS.SourceFile,
  text: string,
  statement: TS.VariableStatement,
  declaration: TS.VariableDeclaration,
): string {
  const keyword = text.slice(statement.declarationList.getStart(source), declaration.getStart(source)).trim();
  const name = declaration.name.getText(source);
  const type = declaration.type === undefined ? '' : `: ${declaration.type.getText(source)}`;
  const init = declaration.initializer;
  if (init !== undefined && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) {
    const body = init.body.getStart(source);
    return signature(`export ${keyword} ${name}${type} = ${text.slice(init.getStart(source), body)}`);
  }
  return signature(`export ${keyword} ${name}${type}`);
}

function commonJsExport(ts: typeof TS, source: TS.SourceFile, statement: TS.ExpressionStatement): string | undefined {
  const expression = statement.expression;
  if (!ts.isBinaryExpression(expression) || expression.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return undefined;
  const target = expression.left.getText(source);
  if (target === 'module.exports' && ts.isObjectLiteralExpression(expression.right))
    return signature(`module.exports = { ${expression.right.properties.map((p) => p.name?.getText(source) ?? '…').join(', ')} }`);
  if (/^(module\.)?exports\.[\w$]+$/.test(target))
    return signature(`${target} = ${ts.isFunctionLike(expression.right) ? 'function' : '…'}`);
  return undefined;
}

function isExported(ts: typeof TS, node: TS.Statement): boolean {
  const modifiers = ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined;
  return modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) === true;
}

function isPrivate(ts: typeof TS, node: TS.ClassElement): boolean {
  const modifiers = ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined;
  if (modifiers?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword) === true) return true;
  return node.name !== undefined && ts.isPrivateIdentifier(node.name);
}

/** A declaration's text as one line, cut to a readable length. */
function signature(text: string): string {
  const line = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\s*[{=]\s*$/, '');
  return line.length > MAX_SIGNATURE ? `${line.slice(0, MAX_SIGNATURE - 1)}…` : line;
}
