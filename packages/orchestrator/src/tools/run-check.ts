import { proposalRef } from '../run/check-adapter.js';
import { governedCheckEffect } from '../run/governed-effect.js';
import type { RunContext } from '../run/run-context.js';
import { requireString, settle, ToolError } from './tool-calls.js';

/** The most of a check's output a program gets (its end, where failures are reported); the whole is in the blob. */
export const MAX_PROGRAM_OUTPUT = 8000;

/** What `run_check` returns to a program. */
export interface CheckAnswer {
  ok: boolean;
  exit_code: number | null;
  output: string;
}

/**
 * `run_check(name)`: the named check over the agent's changes so far, as a governed `check.run` effect. Its
 * timeout is the check's, or the wall time the grant has left when that is less.
 */
export async function runCheckTool(ctx: RunContext, raw: unknown): Promise<CheckAnswer> {
  const name = requireString(raw, 'run_check', 'name');
  const spec = ctx.checks.find((check) => check.name === name);
  if (spec === undefined) {
    const declared = ctx.checks.map((check) => check.name).join(', ');
    throw new ToolError(
      `run_check: no check named ${JSON.stringify(name)} (${declared === '' ? 'the project declares none' : `declared: ${declared}`})`,
    );
  }
  const changes = ctx.proposal();
  const left = ctx.checkMsLeft();
  const timeoutMs = left === undefined ? spec.timeoutMs : Math.min(spec.timeoutMs, Number(left));
  const params = { name, proposal_ref: proposalRef(changes), timeout_ms: timeoutMs };
  const outcome = await governedCheckEffect(ctx, params, { tool: 'run_check' }, changes);
  return settle(ctx, 'run_check', undefined, outcome, (r) => {
    const text = ctx.blobs.text(String(r.output_ref));
    const output =
      text.length > MAX_PROGRAM_OUTPUT
        ? `… (${text.length - MAX_PROGRAM_OUTPUT} characters cut)\n${text.slice(-MAX_PROGRAM_OUTPUT)}`
        : text;
    const status = String(r.status);
    const capped =
      r.truncated === true
        ? `\n(output capped: ${String(r.output_size)} bytes printed; its beginning and its end kept, ${spec.outputCapBytes} bytes in all)`
        : '';
    const note = status === 'timed-out' ? `\n(timed out after ${timeoutMs} ms)` : typeof r.error === 'string' ? `\n(${r.error})` : '';
    return { ok: status === 'passed', exit_code: typeof r.exit_code === 'number' ? r.exit_code : null, output: output + capped + note };
  }) as CheckAnswer;
}
