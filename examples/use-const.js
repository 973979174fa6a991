// Replaces `var` declarations with `const`, or `let` where the variable is assigned again later.
// Run it with: cairn spawn --code examples/use-const.js "use const and let instead of var"
const files = await search_files('**/*.{js,mjs,cjs}');
const changed = [];
for (const path of files) {
  if (path.startsWith('examples/')) continue;
  const text = await read_file(path);
  const updated = text.replace(/\bvar\s+([A-Za-z_$][\w$]*)/g, (match, name, offset) => {
    const rest = text.slice(offset + match.length);
    const reassigned = new RegExp(`(^|[^.\\w$])${name}\\s*([-+*/%]?=(?!=)|\\+\\+|--)`).test(rest.replace(/^\s*=/, ''));
    return `${reassigned ? 'let' : 'const'} ${name}`;
  });
  if (updated !== text) {
    await write_file(path, updated);
    changed.push(path);
  }
}
log(`${changed.length} of ${files.length} files used var`);
await submit_result(`use const and let instead of var in ${changed.length} file(s)`, changed);
