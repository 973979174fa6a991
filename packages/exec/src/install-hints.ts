/** How to install the agent CLIs people run most, by program name. */
const INSTALL: Readonly<Record<string, string>> = {
  claude: 'npm install -g @anthropic-ai/claude-code',
  codex: 'npm install -g @openai/codex',
  gemini: 'npm install -g @google/gemini-cli',
  aider: 'python3 -m pip install aider-install && aider-install',
  opencode: 'npm install -g opencode-ai',
};

/** What to do when an agent's program is not found: how to install it, when Cairn knows, and where Cairn looked. */
export function installHint(program: string): string {
  const name = program.slice(program.lastIndexOf('/') + 1);
  const known = INSTALL[name];
  const looked = 'Cairn looks for it on your PATH (and the folder of the Node that runs Cairn)';
  return known === undefined ? `install ${name}, or give its full path; ${looked}` : `install it with \`${known}\`; ${looked}`;
}
