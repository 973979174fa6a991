import { NVIM_TEST_TOOLS } from './neovim-tools.js';
import { reportMissingTools } from './optional-tool.js';

/** Vitest global setup: says once per run which tools are missing, and so which tests are skipped. */
export default function setup(): void {
  reportMissingTools(NVIM_TEST_TOOLS);
}
