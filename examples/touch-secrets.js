// Tries what no agent may do: read secrets, rewrite CI, leave the project. Every attempt is refused by
// Cairn's governance, journaled, and reaches the program as an error it can catch.
// Run it with: cairn spawn --code examples/touch-secrets.js "try the protected paths", then `cairn log <id>`.
const attempts = [
  ['read .env', () => read_file('.env')],
  ['write .github/workflows/ci.yml', () => write_file('.github/workflows/ci.yml', 'on: push\njobs: {}\n')],
  ['write ../outside.txt', () => write_file('../outside.txt', 'escaped')],
  ['write .git/config', () => write_file('.git/config', '[core]')],
];
const report = ['# What the agent was refused', ''];
for (const [what, attempt] of attempts) {
  try {
    await attempt();
    report.push(`- ${what}: allowed (!)`);
  } catch (error) {
    report.push(`- ${what}: refused — ${error.message}`);
  }
}
await write_file('REFUSED.md', report.join('\n') + '\n');
await submit_result('tried the protected paths, and wrote down what was refused', ['REFUSED.md']);
