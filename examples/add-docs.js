// Adds a one-line doc comment above every exported function that has none.
// Run it with: cairn spawn --code examples/add-docs.js "document the exported functions"
const hits = await search_content('^export function ', 'src');
const byFile = new Map();
for (const hit of hits) byFile.set(hit.path, [...(byFile.get(hit.path) ?? []), hit]);
const changed = [];
for (const [path] of byFile) {
  const lines = (await read_file(path)).split('\n');
  const out = [];
  lines.forEach((line, i) => {
    const match = /^export function (\w+)\(([^)]*)\)/.exec(line);
    const documented = i > 0 && lines[i - 1].trim().endsWith('*/');
    if (match && !documented) {
      const params = match[2].split(',').map((p) => p.trim().split('=')[0].trim()).filter(Boolean);
      out.push(`/** ${match[1]}(${params.join(', ')}). */`);
    }
    out.push(line);
  });
  if (out.length !== lines.length) {
    await write_file(path, out.join('\n'));
    changed.push(path);
  }
}
await submit_result(`document ${changed.length} file(s) of exported functions`, changed);
