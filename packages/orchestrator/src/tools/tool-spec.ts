import type { ToolHandler } from '@cairn/sandbox';
import type { RunContext } from '../run/run-context.js';

/** One parameter of a tool function. */
export interface ToolParam {
  name: string;
  type: 'string' | 'string[]' | 'number';
  /** Present when the parameter may be left out, with the value it then takes (as source text). */
  default?: string;
}

/**
 * Which programs get a tool: every program, authors (who propose changes), reviewers (who read and decide), or
 * the capture programs Cairn writes from an agent CLI's view.
 */
export type ToolAudience = 'everyone' | 'author' | 'reviewer' | 'capture';

/**
 * A tool function: its name (the same in JavaScript and Python), parameters, return type, one-line doc, who
 * gets it, and its handler. The model's prompt, the sandbox's globals and the Python names all come from here.
 */
export interface ToolSpec {
  name: string;
  params: readonly ToolParam[];
  returns: { js: string; py: string };
  doc: string;
  audience: ToolAudience;
  /** Offered to a program only when the project declares checks. */
  needsChecks?: boolean;
  handler(ctx: RunContext): ToolHandler;
}
